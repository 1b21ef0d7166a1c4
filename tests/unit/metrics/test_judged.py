"""What the judged metrics share: a question the judge could not answer becomes "not judged"
with its reason (and why the judge stopped, or that it cannot answer such a question at all),
the details say the votes' agreement and each cascade tier's share, and cosine similarity
stays in [0, 1]."""

from __future__ import annotations

import math

import pytest

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.judges.base import JudgeOutcome, Usage
from rag_eval_pytest.metrics.judged import (
    context_label,
    cosine,
    details,
    empty_contexts,
    not_judged,
)


def test_not_judged_carries_the_judges_reason_usage_and_notes() -> None:
    outcome = JudgeOutcome(None, "the model refused", Usage(judge_calls=2), notes=("re-asked",))
    result = not_judged(outcome, "the judge gave no statement verdicts")
    assert result.score is None
    assert result.reason == "the judge gave no statement verdicts: the model refused"
    assert result.cause == "judge"
    assert result.usage.judge_calls == 2
    assert result.warnings == ["re-asked"]
    assert result.details == {"judge_error": "the model refused"}


def test_a_stopped_judge_says_why_in_the_details() -> None:
    outcome = JudgeOutcome.not_judged("out of retries", stopped="HTTP 401: key refused")
    result = not_judged(outcome, "no verdicts")
    assert result.details == {
        "judge_error": "out of retries",
        "judge_stopped": "HTTP 401: key refused",
    }


def test_a_question_the_judge_cannot_answer_is_unsupported_not_a_judge_failure() -> None:
    outcome = JudgeOutcome(None, "", unsupported=True)
    result = not_judged(outcome, "the local judge writes no text")
    assert result.cause == "unsupported"
    assert result.reason == "the local judge writes no text"  # no dangling ": "
    assert result.details == {}


def test_details_give_agreement_and_tiers_only_when_known() -> None:
    assert details(JudgeOutcome(None)) == {}
    both = JudgeOutcome(None, agreement=0.75, tiers=(("local", 3), ("llm", 1)))
    assert details(both) == {"agreement": 0.75, "tiers": {"local": 3, "llm": 1}}


def test_empty_contexts_score_zero_with_the_reason() -> None:
    result = empty_contexts(Usage(judge_calls=1))
    assert result.score == 0.0
    assert result.reason == "the RAG system returned no contexts (contexts=[])"
    assert result.usage.judge_calls == 1


def test_a_context_is_labelled_by_its_source_else_its_position() -> None:
    assert context_label(Context(text="t", source="faq.md"), 0) == "faq.md"
    assert context_label(Context(text="t"), 2) == "context 3"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([1.0, 0.0], [2.0, 0.0], 1.0),
        ([1.0, 0.0], [0.0, 3.0], 0.0),
        ([1.0, 1.0], [1.0, 0.0], math.sqrt(0.5)),
        ([1.0, 0.0], [-1.0, 0.0], 0.0),  # opposite counts as unrelated, not negative
        ([0.0, 0.0], [1.0, 0.0], 0.0),  # a zero vector: no similarity, not NaN
        ([math.inf, 0.0], [1.0, 0.0], 0.0),
    ],
)
def test_cosine_is_clipped_to_the_unit_interval(
    a: list[float], b: list[float], expected: float
) -> None:
    assert cosine(a, b) == pytest.approx(expected)


def test_cosine_refuses_vectors_of_different_lengths() -> None:
    with pytest.raises(ValueError):
        cosine([1.0], [1.0, 0.0])
