"""The assertion API as a test meets it: a score under its threshold raises with a first line
naming the case, metric, score and threshold, then the reason, the evidence (what counts
against first) and the answer with the unsupported statements marked; several metrics at
once fail once listing each miss; a metric not judged skips (or fails, with ``not_judged:
fail``); a check the judge cannot make neither; report-only records without raising."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from rag_eval_pytest.engine.assertions import (
    RagAssertionError,
    assert_criteria,
    assert_faithful,
    assert_metric,
    assert_rag,
    assert_retrieval,
    check_results,
    check_together,
    evaluate,
    failure_message,
)
from rag_eval_pytest.engine.case import RECORDER_KEY, RagCase
from rag_eval_pytest.metrics.base import Evidence, MetricResult
from tests.unit.engine.fakes import SentenceJudge, TestItem, engine_over, loaded, take_case

POLICY = "Refunds are paid within 30 days."
ASIDE = "Shipping is free."
REFUND = loaded(
    "refund",
    question="Refunds?",
    answer=f"{POLICY} {ASIDE}",
    contexts=[{"text": POLICY, "source": "policy.md"}, {"text": "FAQ", "source": "faq.md"}],
    expected_contexts=["policy.md", "terms.md"],
)


@contextlib.contextmanager
def refund_case(**settings: Any) -> Iterator[tuple[RagCase, TestItem]]:
    """The case a test of ``REFUND`` receives (the run's ``settings`` given), and its item."""
    with engine_over(REFUND, **settings) as engine:
        item = TestItem(case="refund", rag_judge=SentenceJudge())
        yield take_case(engine, item)[0], item


@pytest.fixture
def case() -> Iterator[RagCase]:
    with refund_case() as (rag_case, _):
        yield rag_case


def result(
    status: str, score: float | None = None, cause: str | None = None, **fields: Any
) -> MetricResult:
    return MetricResult(
        case="refund",
        metric=fields.pop("metric", "faithfulness"),
        score=score,
        threshold=fields.pop("threshold", 0.9),
        status=status,
        cause=cause,
        reason=fields.pop("reason", "why"),
        **fields,
    )


# --------------------------------------------------------------------------- the message


def test_a_failing_score_raises_naming_case_metric_score_and_threshold(case: RagCase) -> None:
    with pytest.raises(RagAssertionError) as failed:
        assert_faithful(case, 0.9)
    lines = str(failed.value).splitlines()
    # One of the answer's two sentences is in a context: 0.5.
    assert lines[0] == "refund faithfulness 0.50 < 0.90"
    assert lines[1] == "  1 of 2 statements supported by the contexts; 1 not mentioned"
    assert lines[2] == "evidence:"
    # What counts against the score comes first, whatever the judge's order.
    assert lines[3].startswith(f"  [not mentioned] {ASIDE}")
    assert lines[4].startswith(f"  [supported] {POLICY}")
    assert lines[-1] == f"  {POLICY} >>>{ASIDE}<<<"
    (failed_result,) = failed.value.results
    assert (failed_result.score, failed_result.threshold) == (0.5, 0.9)


def test_the_result_is_recorded_before_the_assertion_decides() -> None:
    with refund_case() as (case, item):
        with pytest.raises(RagAssertionError):
            assert_faithful(case, 0.9)
        assert [r.metric for r in item.stash[RECORDER_KEY].results] == ["faithfulness"]


def test_a_passing_score_returns_its_result(case: RagCase) -> None:
    passed = assert_faithful(case, 0.5)
    assert (passed.score, passed.status) == (0.5, "passed")


def test_the_error_reads_as_the_public_class() -> None:
    assert RagAssertionError.__module__ == "rag_eval_pytest"
    assert issubclass(RagAssertionError, AssertionError)


def test_long_evidence_is_cut_with_a_count_of_what_the_report_holds() -> None:
    evidence = [Evidence(kind="statement", text=f"s{n}", verdict="supported") for n in range(15)]
    message = failure_message(result("failed", 0.2, evidence=evidence))
    shown = [line for line in message.splitlines() if line.startswith("  [supported]")]
    assert len(shown) == 12
    assert message.splitlines()[-1] == "  … 3 more in the report"


def test_the_message_names_the_deciding_turn_and_the_judges_notes() -> None:
    decided = result("failed", 0.25, details={"turn": 3}, warnings=["context truncated"])
    lines = failure_message(decided).splitlines()
    assert lines[0] == "refund faithfulness 0.25 < 0.90 at turn 3"
    assert lines[-1] == "note: context truncated"


def test_a_result_not_judged_says_so_with_its_reason() -> None:
    message = failure_message(result("not_judged", reason="the case has no ground_truth"))
    assert message == "refund faithfulness not judged: the case has no ground_truth"


def test_an_answer_holding_a_secret_is_shown_masked_and_unmarked() -> None:
    secret = "sk-live-0123456789abcdef"
    answer = f"Your key is {secret}."
    leaked = result(
        "failed",
        0.0,
        evidence=[
            Evidence(
                kind="statement", text=answer, verdict="not mentioned", start=0, end=len(answer)
            )
        ],
    )
    message = failure_message(leaked, answer, lambda text: text.replace(secret, "[REDACTED]"))
    assert "answer (masked, so not marked): Your key is [REDACTED]." in message
    assert ">>>" not in message


# --------------------------------------------------------------------------- not judged


def test_nothing_judged_skips_the_test_with_the_reason(case: RagCase) -> None:
    with pytest.raises(pytest.skip.Exception, match="faithfulness not judged: the judge timed"):
        check_results([result("not_judged", cause="judge", reason="the judge timed out")], case)


def test_nothing_judged_fails_the_test_when_the_config_says_so() -> None:
    with refund_case(not_judged="fail") as (case, _):
        unjudged = result("not_judged", cause="judge", reason="the judge timed out")
        with pytest.raises(RagAssertionError, match="not judged: the judge timed out"):
            check_results([unjudged], case)


def test_a_check_the_judge_cannot_make_neither_skips_nor_fails(case: RagCase) -> None:
    # The judge reads statements only: a criterion is recorded as not judged, with why.
    measured = assert_criteria(case, "The answer must be polite.", name="polite")
    assert (measured.metric, measured.status, measured.unsupported) == (
        "criteria: polite",
        "not_judged",
        True,
    )


def test_report_only_records_a_failure_without_raising() -> None:
    with refund_case(report_only=True) as (case, item):
        measured = assert_faithful(case, 0.9)
        assert measured.status == "failed"
        assert item.stash[RECORDER_KEY].results == [measured]


# --------------------------------------------------------------------------- several at once


def test_several_metrics_fail_once_listing_every_miss(case: RagCase) -> None:
    with pytest.raises(RagAssertionError) as failed:
        assert_rag(case, retrieval_recall=0.8, retrieval_precision=0.9, faithfulness=0.4)
    message = str(failed.value)
    # policy.md of the expected two is retrieved (recall 0.5); one of the two retrieved is
    # expected (precision 0.5); faithfulness 0.5 passes its 0.4.
    assert message.splitlines()[0] == (
        "refund: 2 of 3 metrics missed: retrieval_recall 0.50 < 0.80, "
        "retrieval_precision 0.50 < 0.90"
    )
    assert "missing: terms.md" in message and "[not expected] faq.md" in message
    assert [r.metric for r in failed.value.results] == ["retrieval_recall", "retrieval_precision"]


def test_assert_rag_passes_a_metrics_parameters_and_returns_results_by_name(
    case: RagCase,
) -> None:
    results = assert_rag(case, faithfulness={"threshold": 0.9, "mode": "deepeval"})
    # DeepEval's reading: a statement the contexts do not mention is not unfaithful.
    assert results["faithfulness"].score == 1.0
    assert results["faithfulness"].threshold == 0.9


def test_assert_rag_refuses_an_unknown_metric_with_the_closest_name(case: RagCase) -> None:
    with pytest.raises(
        TypeError, match="unknown metric 'faithfullness'; did you mean faithfulness"
    ):
        assert_rag(case, faithfullness=0.9)
    with pytest.raises(TypeError, match="at least one metric"):
        assert_rag(case)
    with pytest.raises(ValueError, match="assert_rag: faithfulness: a threshold is a number"):
        assert_rag(case, faithfulness=9)


def test_a_metric_the_judge_failed_on_leaves_the_case_unchecked(case: RagCase) -> None:
    passed = result("passed", 0.95, metric="retrieval_recall")
    failed_judge = result("not_judged", cause="judge", reason="the judge timed out")
    with pytest.raises(pytest.skip.Exception, match="the judge timed out"):
        check_together([passed, failed_judge], case)
    check_together([passed, result("not_judged", cause="data", reason="no ground truth")], case)


# --------------------------------------------------------------------------- the helpers


def test_anything_but_a_case_is_refused_with_how_to_get_one() -> None:
    with pytest.raises(TypeError, match="expected a case, got str: the rag_case fixture"):
        evaluate("refund", "faithfulness")  # type: ignore[arg-type]


def test_evaluate_records_without_asserting(case: RagCase) -> None:
    measured = evaluate(case, "retrieval_recall", threshold=0.8)
    assert measured.status == "failed"  # returned, not raised


def test_assert_metric_checks_a_metric_by_name(case: RagCase) -> None:
    assert assert_metric(case, "retrieval_recall", 0.5).score == 0.5
    with pytest.raises(RagAssertionError, match=r"refund retrieval_recall 0\.50 < 0\.60"):
        assert_metric(case, "retrieval_recall", 0.6)


@pytest.mark.parametrize(
    ("kwargs", "checked"),
    [
        ({"recall": 0.5}, [("retrieval_recall", 0.5)]),
        ({"precision": 0.25}, [("retrieval_precision", 0.25)]),
        (
            {"threshold": 0.4, "recall": 0.5},
            [("retrieval_precision", 0.4), ("retrieval_recall", 0.5)],
        ),
    ],
)
def test_assert_retrieval_checks_what_it_names(
    case: RagCase, kwargs: dict[str, float], checked: list[tuple[str, float]]
) -> None:
    measured = assert_retrieval(case, **kwargs)
    assert [(r.metric, r.threshold) for r in measured] == checked


def test_a_bare_assert_retrieval_checks_both_at_their_defaults() -> None:
    with refund_case() as (case, item):
        # Both are 0.5: precision meets its default 0.5, recall misses its 0.8.
        with pytest.raises(RagAssertionError, match=r"refund retrieval_recall 0\.50 < 0\.80"):
            assert_retrieval(case)
        recorded = [(r.metric, r.threshold) for r in item.stash[RECORDER_KEY].results]
        assert recorded == [("retrieval_precision", 0.5), ("retrieval_recall", 0.8)]
