"""Huge texts (an answer or a context of megabytes, a judge's runaway reason): whole in
eval_report.json, shown cut with a note of their length in the Markdown and HTML reports and
the terminal (the step summary's one line per failing case is cut shorter still)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.text.shorten import LONG_TEXT
from tests.helpers import case, read_report

HUGE = 1_000_000
"""Characters of each answer, context and reason."""

RUNAWAY = """
import pytest
from rag_eval_pytest import Evidence, Measurement, Metric, register_metric

@register_metric
class Runaway(Metric):
    name = "runaway"
    default_threshold = 0.5

    async def measure(self, sample, services):
        reason = "the judge went on and on " * (HUGE // 25)
        return Measurement(score=0.1, reason=reason,
                           evidence=[Evidence(kind="statement", text=sample.answer,
                                              verdict="unsupported", reason=reason)])
""".replace("HUGE", str(HUGE))

TESTS = """
from rag_eval_pytest import assert_metric
def test_runaway(rag_case):
    assert_metric(rag_case, "runaway")
"""

NOTE = "characters in all; the whole text is in eval_report.json)"


def test_huge_texts_are_whole_in_the_json_report_and_cut_with_a_note_elsewhere(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    step_summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    answer = "The refund takes thirty days. " * (HUGE // 30)
    context = [{"text": "Refunds within thirty days. " * (HUGE // 28), "source": "a.md"}]
    write_dataset([case("huge", "Refunds?", answer=answer, contexts=context)])
    pytester.makeconftest(RUNAWAY)
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    assert result.ret == 1
    terminal = result.stdout.str()
    assert f"({HUGE:,} characters in all; the whole text is in eval_report.json)" in terminal
    assert len(terminal) < 2 * LONG_TEXT + 20_000  # the reason, cut; no answer or context
    reported = read_report(pytester)["cases"][0]
    assert reported["answer"] == answer and reported["contexts"][0] == context[0]
    runaway = reported["metrics"]["runaway"]
    assert len(runaway["reason"]) == HUGE
    # The evidence quoting the answer and the reason again holds their start and a note.
    evidence = runaway["evidence"][0]
    assert evidence["text"].startswith(answer[:1000]) and evidence["text"].endswith(
        f"({len(answer):,} characters in all; the whole text is in the case's answer)"
    )
    assert evidence["reason"].endswith("the whole text is in the metric's reason)")
    assert len(evidence["text"]) <= LONG_TEXT and len(evidence["reason"]) <= LONG_TEXT
    assert (pytester.path / "results" / "eval_report.json").stat().st_size < 3.5 * HUGE
    results = pytester.path / "results"
    for name in ("eval_report.md", "eval_report.html"):
        text = (results / name).read_text(encoding="utf-8")
        assert NOTE in text, name
        assert len(text) < 8 * LONG_TEXT, name
    # The step summary gives a failing case one line, its reason cut at 200 characters.
    summary = (results / "eval_summary.md").read_text(encoding="utf-8")
    assert len(summary) < 5000 and summary == step_summary.read_text(encoding="utf-8")


UNSURE = """
from rag_eval_pytest import Measurement, Metric, register_metric

@register_metric
class Unsure(Metric):
    name = "unsure"
    default_threshold = 0.5

    async def measure(self, sample, services):
        return Measurement(score=None, reason="the judge hesitated " * (HUGE // 20),
                           cause="unsure")
""".replace("HUGE", str(HUGE))


def test_a_check_not_judged_for_a_huge_reason_is_skipped_with_the_reason_cut(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("huge", "Refunds?", answer="Thirty days.", contexts=[])])
    pytester.makeconftest(UNSURE)
    pytester.makepyfile(test_rag=TESTS.replace('"runaway"', '"unsure"'))
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly", "-rs")
    result.assert_outcomes(skipped=1)
    terminal = result.stdout.str()
    assert f"({HUGE:,} characters in all; the whole text is in eval_report.json)" in terminal
    assert len(terminal) < 2 * LONG_TEXT + 20_000
