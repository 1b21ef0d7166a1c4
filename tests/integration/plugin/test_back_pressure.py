"""Adaptive back-pressure: a judge that answers 429 beyond its capacity slows the plugin
down instead of failing cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import case, read_report
from tests.servers.limited_judge import LimitedJudge


@pytest.fixture
def limited() -> Iterator[LimitedJudge]:
    server = LimitedJudge(limit=3).start()
    try:
        yield server
    finally:
        server.stop()


def test_429s_lower_the_concurrency_and_every_case_is_still_judged(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    limited: LimitedJudge,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset(
        [
            case(f"c{i:02d}", f"question {i}?", "truth", answer=f"Answer {i}.", contexts=["ctx"])
            for i in range(24)
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: null\n"})
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-back-pressure-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", limited.url)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        "--rag-judge=anthropic",
        "--rag-judge-passes=1",
        "--rag-no-cache",
        "--rag-concurrency=8",  # 16 judge requests in flight at first
    )
    result.assert_outcomes(passed=24)
    faithfulness = read_report(pytester)["summary"]["metrics"]["faithfulness"]
    assert (faithfulness["judged"], faithfulness["not_judged"]) == (24, 0)
    assert limited.served == 24
    assert limited.peak <= 3
    # Halving on each 429 brings the plugin under the server's limit within a few rounds:
    # far fewer rejections than 16 requests hammering 3 slots for the whole run.
    assert 0 < limited.rejected <= 40
