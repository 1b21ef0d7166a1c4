"""Why a failing case failed: one planted fault per cause, the order when several apply,
and the matching of expected documents shared with the retrieval metrics."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from rag_eval_pytest.metrics.base import MetricFailure, MetricResult
from rag_eval_pytest.metrics.registry import METRIC_NAMES, failure_cause
from rag_eval_pytest.reporting.causes import (
    CAUSES,
    MEANINGS,
    FailureCause,
    count_causes,
    expected_retrieved,
    failure_causes,
)
from rag_eval_pytest.reporting.payload import CasePayload


def payload(
    *,
    expected: list[str] | None = None,
    sources: list[str] | None = None,
    error: str | None = None,
    **extra: Any,
) -> CasePayload:
    """A case whose response returned a context from each of ``sources`` (none given:
    contexts unknown)."""
    contexts = None if sources is None else [{"text": "t", "source": s} for s in sources]
    data: dict[str, Any] = {
        "schema": 1,
        "key": "c1",
        "id": "c1",
        "index": 0,
        "dataset": "d.json",
        "question": "What is the refund policy?",
        "ground_truth": "30 days.",
        "critical": False,
        "tags": [],
        "expected_contexts": expected,
        "recorded": True,
        "answer": None if error else "Refunds within 30 days.",
        "contexts": contexts,
        "sources": list(sources or []),
        "latency": None,
        "error": error,
        "adapter": None,
        "judge": None,
        "metrics": [],
        **extra,
    }
    return data  # type: ignore[return-value]


def failed(metric: str, score: float = 0.2, threshold: float = 0.8) -> MetricResult:
    return MetricResult(case="c1", metric=metric, score=score, threshold=threshold, status="failed")


def passed(metric: str) -> MetricResult:
    return MetricResult(case="c1", metric=metric, score=1.0, threshold=0.8, status="passed")


def not_judged(metric: str) -> MetricResult:
    return MetricResult(
        case="c1",
        metric=metric,
        score=None,
        threshold=0.8,
        status="not_judged",
        cause="judge",
        reason="the judge failed",
    )


def causes(case: CasePayload, *results: MetricResult, status: str = "failed") -> tuple[str, ...]:
    return failure_causes(case, results, status)


# --- one planted fault per cause ------------------------------------------------------


def test_rag_error_a_failed_rag_call() -> None:
    case = payload(expected=["policy.md"], error="the RAG system is down")
    assert causes(case, status="error") == ("rag_error",)


def test_retrieval_miss_no_expected_document_among_those_returned() -> None:
    case = payload(expected=["policy.md"], sources=["faq.md", "shipping.md"])
    # The answer is unsupported too, but that follows from the miss: not a cause of its own.
    assert causes(case, failed("faithfulness")) == ("retrieval_miss",)


def test_retrieval_miss_when_nothing_was_retrieved() -> None:
    assert causes(payload(expected=["policy.md"], sources=[]), failed("retrieval_recall", 0.0)) == (
        "retrieval_miss",
    )


def test_ranking_the_expected_document_was_returned_below_an_irrelevant_one() -> None:
    case = payload(expected=["policy.md"], sources=["faq.md", "policy.md"])
    assert causes(case, failed("retrieval_mrr", 0.5, 1.0)) == ("ranking",)


def test_ranking_when_recall_fails_with_some_expected_documents_returned() -> None:
    case = payload(expected=["policy.md", "terms.md"], sources=["policy.md"])
    assert causes(case, failed("retrieval_recall", 0.5, 1.0)) == ("ranking",)


def test_unsupported_answer_with_the_needed_documents_retrieved() -> None:
    case = payload(expected=["policy.md"], sources=["policy.md"])
    assert causes(case, failed("faithfulness", 0.5, 0.9), passed("retrieval_recall")) == (
        "unsupported_answer",
    )


def test_unsupported_answer_when_no_expected_document_is_known() -> None:
    assert causes(payload(sources=["policy.md"]), failed("faithfulness")) == ("unsupported_answer",)


def test_incorrect_answer_faithful_to_its_sources_but_not_to_the_ground_truth() -> None:
    case = payload(sources=["policy.md"])
    assert causes(case, passed("faithfulness"), failed("answer_correctness")) == (
        "incorrect_answer",
    )
    # An unfaithful answer says where the error came from: the generator, not the sources.
    assert causes(case, failed("faithfulness"), failed("answer_similarity")) == (
        "unsupported_answer",
    )


def test_irrelevant_answer() -> None:
    assert causes(payload(sources=["policy.md"]), failed("answer_relevance")) == (
        "irrelevant_answer",
    )


def test_not_judged_a_failing_verdict_from_a_check_the_judge_could_not_make() -> None:
    assert causes(payload(sources=["policy.md"]), not_judged("faithfulness")) == ("not_judged",)


def test_not_judged_when_the_tests_judge_could_not_be_built() -> None:
    case = payload(sources=["policy.md"], setup_error="no API key for the judge")
    assert causes(case, status="error") == ("not_judged",)


# --- the order, and what decides nothing ----------------------------------------------


def test_every_cause_that_applies_is_kept_the_most_telling_first() -> None:
    case = payload(expected=["policy.md"], sources=["faq.md", "policy.md"])
    found = causes(
        case,
        not_judged("context_precision"),
        failed("answer_relevance"),
        failed("answer_correctness"),
        failed("faithfulness"),
        failed("retrieval_ndcg"),
    )
    assert found == ("ranking", "unsupported_answer", "irrelevant_answer", "not_judged")


def test_a_case_that_did_not_fail_has_no_cause() -> None:
    case = payload(expected=["policy.md"], sources=["faq.md"])
    for status in ("passed", "skipped"):
        assert causes(case, failed("faithfulness"), status=status) == ()


def test_a_failure_nothing_explains_has_no_cause() -> None:
    case = payload(expected=["policy.md"], sources=["policy.md"])
    # The test's own assertion; a named check and an unknown metric declare nothing.
    assert causes(case) == ()
    assert causes(case, failed("criteria: polite"), failed("my_custom_metric")) == ()


def test_a_crash_of_the_test_process_is_no_rag_error() -> None:
    case = payload(error="the test process crashed: its worker died", crashed=True)
    assert causes(case, status="error") == ()


def test_expected_documents_are_matched_as_the_retrieval_metrics_match_them() -> None:
    # Case, slashes and a #fragment do not matter; a path ending in the name matches.
    case = payload(expected=["Docs/Policy.md", "terms.md"], sources=["docs\\policy.md#s2"])
    assert expected_retrieved(case) == 1
    # Contexts that name no source, or unknown contexts: nothing to match, no miss.
    assert expected_retrieved(payload(expected=["policy.md"])) is None
    unnamed = payload(expected=["policy.md"], contexts=[{"text": "t", "source": None}])
    assert expected_retrieved(unnamed) is None
    assert causes(unnamed, failed("context_recall")) == ("retrieval_miss",)


def test_counts_per_cause_follow_the_order_of_the_causes() -> None:
    found: list[tuple[FailureCause, ...]] = [
        ("unsupported_answer",),
        ("retrieval_miss", "unsupported_answer"),
        (),
        ("retrieval_miss",),
    ]
    counts = count_causes(found)
    assert counts == {"retrieval_miss": 2, "unsupported_answer": 1}
    assert list(counts) == ["retrieval_miss", "unsupported_answer"]


def test_every_cause_has_its_meaning_and_every_metric_cause_is_a_cause() -> None:
    assert set(get_args(FailureCause)) == set(CAUSES) == set(MEANINGS)
    assert set(get_args(MetricFailure)) <= set(CAUSES)


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_every_built_in_metric_but_criteria_says_what_its_failure_means(name: str) -> None:
    assert (failure_cause(name) is None) == (name == "criteria")
