"""The reports are written case by case: the process that writes them holds one case at a
time, never all of them (a run of 50,000 cases peaked at 3.8 GB when its whole report was
built at the end; benchmarks/scale.py measures it)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.cli import main
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


def _peak(command: Callable[[], int]) -> tuple[int, int]:
    """The command's exit code, and what it allocated at its peak, in bytes."""
    tracemalloc.start()
    try:
        code = command()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return code, peak


def test_rag_eval_merge_and_report_hold_one_case_at_a_time(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """The shards' reports and the merged one are read a case at a time where they lie in
    their files; the merged cases are written from a spool."""
    answers = [f"{i} " + "x" * ANSWER for i in range(CASES)]
    context = [{"text": "The context.", "source": "a.md"}]
    write_dataset(
        [
            case(f"c{i}", f"Question {i}?", answer=a, contexts=context, expected_contexts=["a.md"])
            for i, a in enumerate(answers)
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: null\n"})
    for index in (1, 2, 3):
        shard = pytester.runpytest(
            "--rag-dataset", "dataset.json", "--rag-shard", f"{index}/3",
            "--rag-output-dir", f"s{index}", "-p", "no:randomly",
        )  # fmt: skip
        assert shard.ret == 0
    shards = [f"s{index}/eval_report.json" for index in (1, 2, 3)]
    code, merging = _peak(lambda: main(["merge", *shards, "--output-dir", "merged"]))
    assert code == 0
    assert [c["answer"] for c in read_report(pytester, "merged")["cases"]] == answers
    assert not list((pytester.path / "merged").glob(".rag-eval-spool-*"))  # removed
    page = pytester.path / "page.html"
    code, reporting = _peak(lambda: main(["report", "merged", "--output", str(page)]))
    assert code == 0
    assert page.read_text(encoding="utf-8").count('<details class="case"') == CASES
    # Every answer in memory at once would be 30 MB (read whole, the merge peaked at 155 MB,
    # the page's rebuild at 62 MB).
    assert merging < CASES * ANSWER / 3
    assert reporting < CASES * ANSWER / 3
