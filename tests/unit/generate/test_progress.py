"""A generation's spending and its progress line: shown on a terminal only."""

from __future__ import annotations

import io

import pytest

from rag_eval_pytest.generate.progress import Progress, Spend
from rag_eval_pytest.judges.base import Usage


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("stream", [Terminal(), io.StringIO()])
def test_the_progress_line_is_written_on_a_terminal_only(
    stream: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stderr", stream)
    spend = Spend(cap=0.01)
    progress = Progress(planned=4)
    spend.add(Usage(judge_calls=1, input_tokens=900, output_tokens=100, cost_usd=0.004))
    progress.written(spend)
    progress.checked(spend)
    progress.done()
    shown = stream.getvalue()
    if stream.isatty():
        assert "rag-eval generate: 1/4 written, 1 checked, 1 requests, $0.0040" in shown
        assert shown.endswith("\n")
    else:
        assert shown == ""
    assert spend.allows()
    spend.add(Usage(judge_calls=1, cost_usd=0.006))
    assert not spend.allows() and spend.capped and spend.tokens == 1000
