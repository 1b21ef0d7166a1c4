"""Answer relevance driven by a fixed judge: with embeddings and a judge that writes
questions, the mean cosine of the generated questions to the asked one; otherwise the judge's
direct rating; 0 for a noncommittal answer either way; and the result says which way."""

from __future__ import annotations

import math

import pytest

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.questions import (
    AnswerAddressesQuestion,
    DirectRelevance,
    GeneratedQuestions,
    GeneratedQuestionsOutput,
    QuestionsInput,
)
from rag_eval_pytest.metrics.answer_relevance import NONCOMMITTAL, AnswerRelevance
from tests.unit.metrics.fakes import FixedJudge, embeddings, make_sample, measure

QUESTION = "When are refunds paid?"
VECTORS = {
    QUESTION: [1.0, 0.0],
    "When do refunds arrive?": [1.0, 0.0],
    "What colour is the sky?": [0.0, 1.0],
    "How are refunds paid?": [1.0, 1.0],
    "Fourth?": [1.0, 0.0],
}


def generated(*questions: str, noncommittal: bool = False) -> GeneratedQuestionsOutput:
    return GeneratedQuestionsOutput(questions=list(questions), noncommittal=noncommittal)


def rating(score: float, noncommittal: bool = False) -> DirectRelevance:
    return DirectRelevance(score=score, noncommittal=noncommittal, reason="on topic")


def test_generated_questions_are_compared_with_the_question() -> None:
    judge = FixedJudge(
        {
            "generated_questions": generated(
                "When do refunds arrive?",
                " ",
                "What colour is the sky?",
                "How are refunds paid?",
                "Fourth?",
            )
        }
    )
    embed = embeddings(VECTORS)
    result = measure(AnswerRelevance(), make_sample(question=QUESTION), judge, embed)
    # The blank one is dropped and only the first 3 count: similarities 1, 0 and cos 45°.
    assert result.score == pytest.approx((1 + 0 + math.sqrt(0.5)) / 3)
    assert result.reason == "mean similarity of 3 generated questions to the question"
    assert [(e.text, e.score) for e in result.evidence] == [
        ("When do refunds arrive?", 1.0),
        ("What colour is the sky?", 0.0),
        ("How are refunds paid?", 0.7071),
    ]
    assert result.details == {"method": "generated_questions"}
    ((_, inputs),) = judge.asked
    assert inputs.count == 3


def test_the_number_of_questions_is_a_parameter() -> None:
    judge = FixedJudge({"generated_questions": generated("When do refunds arrive?")})
    measure(
        AnswerRelevance(questions=5), make_sample(question=QUESTION), judge, embeddings(VECTORS)
    )
    assert judge.asked[0][1].count == 5


@pytest.mark.parametrize("count", [0, 11, "3", 2.0])
def test_a_bad_number_of_questions_is_refused(count: object) -> None:
    with pytest.raises(ValueError, match="questions must be a whole number from 1 to 10"):
        AnswerRelevance(questions=count)


def test_a_noncommittal_answer_scores_zero_without_embedding() -> None:
    judge = FixedJudge({"generated_questions": generated(noncommittal=True)})
    embed = embeddings(VECTORS)
    result = measure(AnswerRelevance(), make_sample(), judge, embed)
    assert (result.score, result.reason) == (0.0, NONCOMMITTAL)
    assert embed.seen == []  # type: ignore[attr-defined]


def test_without_embeddings_the_judge_rates_the_answer_directly() -> None:
    judge = FixedJudge({"answer_addresses_question": rating(0.8)})
    result = measure(AnswerRelevance(), make_sample(question=QUESTION, answer="In 30 days."), judge)
    assert result.score == 0.8
    assert result.reason == "on topic"
    assert result.details == {"method": "direct_rating"}
    ((name, inputs),) = judge.asked
    assert name == "answer_addresses_question"
    assert (inputs.question, inputs.answer) == (QUESTION, "In 30 days.")


def test_a_judge_that_cannot_write_questions_rates_directly_even_with_embeddings() -> None:
    judge = FixedJudge(
        {"answer_addresses_question": rating(0.4, noncommittal=True)},
        supports=[AnswerAddressesQuestion],
    )
    result = measure(AnswerRelevance(), make_sample(), judge, embeddings(VECTORS))
    assert (result.score, result.reason) == (0.0, NONCOMMITTAL)
    assert result.details["method"] == "direct_rating"


def test_a_judge_that_can_do_neither_is_not_judged() -> None:
    result = measure(AnswerRelevance(), make_sample(), FixedJudge({}, supports=[]))
    assert result.score is None
    assert (
        result.reason == "the judge cannot generate questions and no embedding model is available"
    )


def test_an_empty_answer_scores_zero_without_asking() -> None:
    judge = FixedJudge({})
    assert measure(AnswerRelevance(), make_sample(answer=""), judge).score == 0.0
    assert judge.asked == []


def test_judge_failures_name_the_step_that_failed() -> None:
    failing = JudgeOutcome.not_judged("refused")
    generating = FixedJudge({"generated_questions": failing})
    assert measure(AnswerRelevance(), make_sample(), generating, embeddings(VECTORS)).reason == (
        "the judge generated no questions: refused"
    )
    rating_judge = FixedJudge({"answer_addresses_question": failing})
    assert measure(AnswerRelevance(), make_sample(), rating_judge).reason == (
        "the judge did not rate the answer: refused"
    )


def test_blank_generated_questions_are_not_judged_rather_than_a_crash() -> None:
    blank = generated(" ", "")
    # An LLM judge's reply of blank questions only is refused (and asked again) ...
    assert GeneratedQuestions().check(QuestionsInput(answer="a"), blank) == [
        "no question was generated"
    ]
    # ... and a judge that does not check its replies gets "not judged", not a crash.
    judge = FixedJudge({"generated_questions": blank})
    result = measure(AnswerRelevance(), make_sample(question=QUESTION), judge, embeddings(VECTORS))
    assert result.score is None
    assert result.cause == "judge"
