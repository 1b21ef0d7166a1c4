"""Sentence vectors kept on disk: a re-run with every text known never loads the model (a
damaged file is a miss: tests/unit/judges/local/test_vector_cache.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

pytest.importorskip("torch")

REPORT_TORCH = """
import sys
def pytest_sessionfinish(session):
    print("TORCH LOADED", "torch" in sys.modules)
"""


def test_a_rerun_with_every_vector_cached_scores_the_same_without_loading_the_model(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case(
                "pto",
                "How many days of paid time off?",
                "20 days.",
                answer="Employees receive 30 days of paid time off.",
                contexts=["Full-time employees receive 20 days paid time off annually."],
            )
        ]
    )
    pytester.makeconftest(REPORT_TORCH)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    args = ("--rag-dataset=dataset.json", "-s", "-p", "no:randomly")
    first = pytester.runpytest_subprocess(*args)
    first.stdout.fnmatch_lines(["*TORCH LOADED True*"])
    scores = read_report(pytester)["cases"][0]["metrics"]
    again = pytester.runpytest_subprocess(*args)
    again.stdout.fnmatch_lines(["*TORCH LOADED False*"])
    assert read_report(pytester)["cases"][0]["metrics"] == scores
    off = pytester.runpytest_subprocess(*args, "--rag-no-cache")
    off.stdout.fnmatch_lines(["*TORCH LOADED True*"])
