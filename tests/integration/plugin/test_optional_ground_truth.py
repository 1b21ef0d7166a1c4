"""Cases without ``ground_truth``: the metrics that need one are not judged, with the reason,
and the run names those cases and metrics once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge  # noqa: F401  imported before any inner run, so inner runs share it
from tests.helpers import read_report

JUDGE_CONFTEST = """
import pytest
from tests.word_judge import word_judge

@pytest.fixture(scope="session")
def rag_judge():
    return word_judge
"""

# Pre-recorded answers: no adapter is called. Neither case has a ground truth.
CASES = [
    {
        "id": "pto",
        "question": "How many days of paid time off do employees get?",
        "answer": "Full-time employees receive 20 days of paid time off.",
        "contexts": ["Full-time employees receive 20 days paid time off annually."],
    },
    {
        "id": "remote",
        "question": "Can employees work remotely?",
        "answer": "Employees may work remotely two days a week.",
        "contexts": ["Employees may work remotely up to two days per week."],
    },
]
NOTICE = (
    "2 of 2 cases have no 'ground_truth'; the metrics that need one (context_precision, "
    "context_recall, answer_similarity, answer_correctness) are not judged for them: pto, remote"
)


@pytest.fixture
def no_truth(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(CASES)
    pytester.makeconftest(JUDGE_CONFTEST)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-judge-passes", "1", "-p", "no:randomly", *args
    )


def test_faithfulness_is_judged_on_a_dataset_without_ground_truth(
    no_truth: pytest.Pytester,
) -> None:
    no_truth.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.9\n"})
    result = run(no_truth, "-v")
    result.stdout.fnmatch_lines(["*dataset.json::pto PASSED*", "*dataset.json::remote PASSED*"])
    assert result.ret == 0
    report = read_report(no_truth)
    for case in report["cases"]:
        assert case["ground_truth"] is None
        assert case["metrics"]["faithfulness"]["score"] == 1.0


def test_answer_correctness_is_not_judged_with_the_reason_and_does_not_fail(
    no_truth: pytest.Pytester,
) -> None:
    no_truth.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_correct, assert_faithful

def test_correct(rag_case):
    assert rag_case.ground_truth is None
    assert_correct(rag_case, threshold=0.9)

def test_faithful(rag_case):
    assert_faithful(rag_case, threshold=0.9)
"""
    )
    result = run(no_truth, "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines(
        ["SKIPPED * pto answer_correctness not judged: the case has no ground_truth"]
    )
    assert result.ret == 0
    report = read_report(no_truth)
    for case in report["cases"]:
        correctness = case["metrics"]["answer_correctness"]
        assert correctness["status"] == "not_judged"
        assert correctness["score"] is None
        assert correctness["reason"] == "the case has no ground_truth"
    assert report["summary"]["metrics"]["answer_correctness"]["not_judged"] == 2
    markdown = (no_truth.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert "- pto: Answer Correctness: the case has no ground_truth" in markdown, markdown


def test_not_judged_fail_makes_the_missing_ground_truth_fail_the_test(
    no_truth: pytest.Pytester,
) -> None:
    no_truth.makefile(".yaml", **{"eval-config": "not_judged: fail\n"})
    no_truth.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_correct

def test_correct(rag_case):
    assert_correct(rag_case)
"""
    )
    result = run(no_truth)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["*pto answer_correctness not judged: the case has no ground_truth"]
    )


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_the_cases_and_metrics_are_named_once_per_run(
    no_truth: pytest.Pytester, workers: list[str]
) -> None:
    """Zero-code mode with the default metrics, two of which need a ground truth: one notice
    for the run (not one per case, nor one per xdist worker); the other metrics are judged."""
    result = run(no_truth, *workers)
    text = result.stdout.str() + result.stderr.str()
    # Shown once in pytest's warnings summary and once in the run's summary, as every notice.
    assert text.count(f"RagEvalWarning: {NOTICE}") == 1, text
    assert text.count(f"warning: {NOTICE}") == 1, text
    report = read_report(no_truth)
    assert report["warnings"].count(NOTICE) == 1
    for case in report["cases"]:
        assert case["metrics"]["context_recall"]["status"] == "not_judged"
        assert case["metrics"]["faithfulness"]["status"] == "passed"


def test_every_case_with_a_ground_truth_gives_no_notice(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([{**c, "ground_truth": "20 days."} for c in CASES])
    pytester.makeconftest(JUDGE_CONFTEST)
    result = run(pytester)
    assert "have no 'ground_truth'" not in result.stdout.str() + result.stderr.str()
