"""The reports are written case by case: the process that writes them holds one case at a
time, never all of them (a run of 50,000 cases peaked at 3.8 GB when its whole report was
built at the end; benchmarks/scale.py measures it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

CASES = 300
ANSWER = 100_000
"""Characters of each case's answer: 30 MB of answers in all."""

PEAK = """
import pathlib
import tracemalloc

import pytest


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    # What the end of the run allocates at its peak, beyond what the run held before it:
    # the summary, the reports written, the history line.
    tracemalloc.start()
    start, _ = tracemalloc.get_traced_memory()
    try:
        return (yield)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        pathlib.Path("peak.txt").write_text(str(peak - start))
"""


def test_the_reports_are_written_holding_one_case_at_a_time(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary, the JSON, Markdown and HTML reports, the step summary (one in three cases
    failing: their traces, their reasons) and the history line."""
    step_summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    answers = [f"{i} " + "x" * ANSWER for i in range(CASES)]
    context = [{"text": "The context.", "source": "a.md"}]
    write_dataset(
        [
            case(
                f"c{i}",
                f"Question {i}?",
                answer=answer,
                contexts=context,
                expected_contexts=["b.md" if i % 3 == 0 else "a.md"],
            )
            for i, answer in enumerate(answers)
        ]
    )
    pytester.makeconftest(PEAK)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: null\n"})
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    assert result.ret == 1, result.stdout.str()
    results = pytester.path / "results"
    assert [c["answer"] for c in read_report(pytester)["cases"]] == answers
    markdown = (results / "eval_report.md").read_text(encoding="utf-8")
    assert markdown.count("### FAILED: ") == CASES // 3
    assert "c299 | passed" in markdown  # the last row of every case's table
    page = (results / "eval_report.html").read_text(encoding="utf-8")
    assert page.count('<details class="case"') == CASES and page.endswith("</html>\n")
    assert step_summary.read_text(encoding="utf-8").count("- **c") == CASES // 3
    assert (results / "eval_summary.md").is_file() and (results / "results.jsonl").is_file()
    assert not list(results.glob(".rag-eval-spool-*"))  # removed
    # Every case's answer in memory at once would be 30 MB (the whole report built at once
    # peaked at 160 MB); written case by case the reports hold a few of them.
    assert int((pytester.path / "peak.txt").read_text()) < CASES * ANSWER / 3
