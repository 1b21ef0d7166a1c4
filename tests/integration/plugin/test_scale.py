"""A test's cost does not grow with the dataset: no per-test search through every case."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case

# Counts every pass over the run's list of selected cases, from the session's start.
COUNTING = """
import pytest

PASSES = []

class CountingList(list):
    def __iter__(self):
        PASSES.append(1)
        return super().__iter__()

def pytest_sessionstart(session):
    datasets = session.config.pluginmanager.get_plugin("rag_eval_runner").session.datasets
    datasets.cases = CountingList(datasets.cases)

def pytest_sessionfinish(session):
    session.config.rootpath.joinpath("passes.txt").write_text(str(len(PASSES)))
"""

TEST_TAKING_A_CASE = """
from rag_eval_pytest import assert_metric

def test_retrieval(rag_case):
    assert_metric(rag_case, "retrieval_recall")
"""


def passes_over_cases(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], cases: int
) -> int:
    """Passes over the selected cases in a run of ``cases`` pre-recorded cases."""
    write_dataset(
        [
            case(
                f"c{i:04d}",
                f"question {i}",
                answer=f"answer {i}",
                contexts=[{"text": f"context {i}", "source": f"doc{i}.md"}],
                expected_contexts=[f"doc{i}.md"],
            )
            for i in range(cases)
        ]
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=cases)
    return int((pytester.path / "passes.txt").read_text())


@pytest.mark.parametrize("mode", ["zero-code", "rag_case"])
def test_no_test_searches_the_cases(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], mode: str
) -> None:
    """Each test finds its case by key: the run passes over the list of cases as many times
    with 120 cases as with 12 (a search per test made a run quadratic in the dataset's size:
    minutes at tens of thousands of cases)."""
    pytester.makeconftest(COUNTING)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: null\n"})
    if mode == "rag_case":
        pytester.makepyfile(test_retrieval=TEST_TAKING_A_CASE)
    small = passes_over_cases(pytester, write_dataset, 12)
    large = passes_over_cases(pytester, write_dataset, 120)
    assert large == small
