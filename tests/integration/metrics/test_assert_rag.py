"""``assert_rag``: several metrics in one assertion, scored together, all recorded, and one
failure that lists every metric that missed, each with its evidence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge
from tests.helpers import case, read_report
from tests.integration.metrics.test_judged_runs import JUDGE_CONFTEST

CASES = [
    case(
        "refund",
        "What is the refund policy?",
        "Refunds are available within 30 days of purchase.",
        expected_contexts=["policy.md"],
    )
]


@pytest.fixture
def judged(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(CASES)
    pytester.makeconftest(JUDGE_CONFTEST)
    return pytester


def test_two_failing_metrics_are_reported_at_once_with_their_evidence(
    judged: pytest.Pytester,
) -> None:
    judged.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_rag

def test_quality(rag_case):
    assert_rag(rag_case, faithfulness=0.9, answer_correctness=0.9, context_recall=None)
"""
    )
    result = judged.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*refund: 2 of 3 metrics missed: faithfulness 0.50 < 0.90, "
            "answer_correctness 0.67 < 0.90",
            "*refund faithfulness 0.50 < 0.90",
            "*evidence:",
            "*Shipping is free to Mars.*",
            "*refund answer_correctness 0.67 < 0.90",
            "*evidence:",
            "*Shipping is free to Mars.*",
        ]
    )
    metrics = read_report(judged)["cases"][0]["metrics"]
    statuses = {name: metrics[name]["status"] for name in metrics}
    assert statuses["faithfulness"] == "failed"
    assert statuses["answer_correctness"] == "failed"
    assert statuses["context_recall"] == "passed"
    assert metrics["context_recall"]["threshold"] == 0.7  # None: the metric's default


def test_the_metrics_are_asked_of_the_judge_together_and_returned_by_name(
    judged: pytest.Pytester,
) -> None:
    judged.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_rag

def test_quality(rag_case):
    results = assert_rag(
        rag_case,
        faithfulness=0.4,
        context_recall=None,
        retrieval_recall={"threshold": 1.0},
    )
    assert list(results) == ["faithfulness", "context_recall", "retrieval_recall"]
    assert results["faithfulness"].score == 0.5
"""
    )
    word_judge.calls.clear()
    result = judged.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    result.assert_outcomes(passed=1)
    assert len(word_judge.calls) == 2  # one request per judged metric, none repeated


def test_an_unknown_metric_name_is_a_clear_error_with_a_suggestion(
    judged: pytest.Pytester,
) -> None:
    judged.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_rag

def test_quality(rag_case):
    assert_rag(rag_case, faithfullness=0.9)
"""
    )
    result = judged.runpytest("--rag-dataset", "dataset.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*TypeError: assert_rag: unknown metric 'faithfullness'; did you mean faithfulness?"]
    )


def test_one_missed_metric_reads_like_any_single_assertion(judged: pytest.Pytester) -> None:
    judged.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_rag

def test_quality(rag_case):
    assert_rag(rag_case, faithfulness=0.9, context_recall=0.5)
"""
    )
    result = judged.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E * refund faithfulness 0.50 < 0.90"])
    assert "metrics missed" not in result.stdout.str()
