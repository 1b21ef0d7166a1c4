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


def _run(pytester: pytest.Pytester, write_dataset: Callable[..., Path], formats: str) -> int:
    """The run's peak while it wrote ``formats``, in bytes; its answers are checked whole in
    the JSON report."""
    answers = [f"{i} " + "x" * ANSWER for i in range(CASES)]
    context = [{"text": "The context.", "source": "a.md"}]
    write_dataset(
        [
            case(f"c{i}", f"Question {i}?", answer=a, contexts=context, expected_contexts=["a.md"])
            for i, a in enumerate(answers)
        ]
    )
    pytester.makeconftest(PEAK)
    pytester.makefile(
        ".yaml",
        **{"eval-config": f"metrics:\n  retrieval_recall: null\noutput:\n  formats: {formats}\n"},
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    assert result.ret == 0, result.stdout.str()
    assert [c["answer"] for c in read_report(pytester)["cases"]] == answers
    assert not list((pytester.path / "results").glob(".rag-eval-spool-*"))  # removed
    return int((pytester.path / "peak.txt").read_text())


def test_the_json_report_is_written_holding_one_case_at_a_time(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    # Every case's answer in memory at once would be 30 MB (the whole report built at once
    # peaked at 170 MB); the report written case by case holds a few of them.
    assert _run(pytester, write_dataset, "[json]") < CASES * ANSWER / 3
