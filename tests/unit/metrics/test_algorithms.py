"""The metric algorithms on fixed judge answers: formulas, modes, and the cases that must be
"not judged" or 0 rather than a made-up number."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.judges.base import Judge, JudgeOutcome, Question, Usage
from rag_eval_pytest.judges.questions import (
    AnswerAddressesQuestion,
    Attributions,
    ContextVerdicts,
    DirectRelevance,
    Equivalence,
    GeneratedQuestions,
    GeneratedQuestionsOutput,
    SentenceRelevances,
    StatementVerdicts,
)
from rag_eval_pytest.metrics.base import Measurement, Sample, Services
from rag_eval_pytest.metrics.context_precision import average_precision
from rag_eval_pytest.metrics.registry import get_metric


class CannedJudge(Judge):
    """Answers each question kind with a fixed output; counts the asks."""

    kind = "canned"

    def __init__(self, answers: dict[str, BaseModel | None], *, generates: bool = True) -> None:
        self.answers = answers
        self.generates = generates
        self.asked: list[str] = []

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        return self.generates or question is not GeneratedQuestions

    async def ask(self, question: Question[Any, Any], inputs: Any) -> JudgeOutcome[Any]:
        self.asked.append(question.name)
        value = self.answers.get(question.name)
        if value is None:
            return JudgeOutcome.not_judged("the model refused: I cannot help with that")
        return JudgeOutcome(value=value, usage=Usage(judge_calls=1, input_tokens=100))


def sample(contexts: list[str] | None = ("Paris is the capital of France.",), **kw: Any) -> Sample:  # type: ignore[assignment]
    fields: dict[str, Any] = {
        "case_key": "tc",
        "question": "What is the capital of France?",
        "ground_truth": "Paris is the capital. It has 2 million people.",
        "answer": "Paris is the capital of France.",
        "contexts": None if contexts is None else [Context(text=c) for c in contexts],
        "sources": [],
        "expected_contexts": None,
    }
    fields.update(kw)
    return Sample(**fields)


def run(
    metric: str, s: Sample, judge: Judge | None, embed: Any = None, **params: Any
) -> Measurement:
    services = Services(judge=judge, embed=embed)
    return asyncio.run(measure(get_metric(metric, **params), s, services))


def verdicts(*pairs: tuple[str, str]) -> StatementVerdicts:
    return StatementVerdicts.model_validate(
        {"statements": [{"statement": s, "verdict": v, "reason": "r"} for s, v in pairs]}
    )


MIXED = verdicts(
    ("a", "supported"), ("b", "not mentioned"), ("c", "contradicted"), ("d", "supported")
)


@pytest.mark.parametrize(
    ("params", "expected", "reason"),
    [
        ({}, 0.5, "2 of 4 statements supported by the contexts; 1 contradicted, 1 not mentioned"),
        (
            {"mode": "deepeval"},
            0.75,
            "3 of 4 statements not contradicted by the contexts (2 supported, 1 not mentioned); "
            "1 contradicted",
        ),
        (
            {"mode": "deepeval", "penalize_ambiguous": True},
            0.5,
            "2 of 4 statements supported by the contexts; 1 contradicted, 1 not mentioned",
        ),
    ],
)
def test_faithfulness_modes_count_not_mentioned_statements_as_documented(
    params: dict[str, Any], expected: float, reason: str
) -> None:
    result = run("faithfulness", sample(), CannedJudge({"statement_support": MIXED}), **params)
    assert result.score == expected
    assert result.reason == reason
    assert [e.verdict for e in result.evidence] == [
        "supported",
        "not mentioned",
        "contradicted",
        "supported",
    ]
    assert result.usage.judge_calls == 1


def test_a_two_way_no_is_unfaithful_in_both_modes() -> None:
    two_way = verdicts(("a", "supported"), ("b", "unsupported"))
    for params in ({}, {"mode": "deepeval"}):
        result = run(
            "faithfulness", sample(), CannedJudge({"statement_support": two_way}), **params
        )
        assert result.score == 0.5
        assert result.reason.endswith("; 1 not supported")


def test_faithfulness_answer_without_statements_is_not_judged_not_zero() -> None:
    result = run("faithfulness", sample(), CannedJudge({"statement_support": verdicts()}))
    assert result.score is None
    assert result.reason == "the answer makes no factual statement to check"


def test_faithfulness_empty_contexts_score_zero_without_asking() -> None:
    judge = CannedJudge({"statement_support": MIXED})
    result = run("faithfulness", sample(contexts=[]), judge)
    assert result.score == 0.0
    assert "no contexts" in result.reason
    assert judge.asked == []


def test_context_metrics_skip_unknown_contexts() -> None:
    for metric in ("faithfulness", "context_precision", "context_recall", "context_relevance"):
        result = run(metric, sample(contexts=None), CannedJudge({}))
        assert result.score is None, metric
        assert "contexts unknown" in result.reason


def test_a_refusal_is_not_judged_with_the_judges_words() -> None:
    result = run("faithfulness", sample(), CannedJudge({}))
    assert result.score is None
    assert "I cannot help with that" in result.reason


def test_no_judge_is_not_judged() -> None:
    result = run("answer_correctness", sample(), None)
    assert result.score is None
    assert "no judge" in result.reason


def test_faithfulness_rejects_an_unknown_mode() -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        get_metric("faithfulness", mode="strict")


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([True, False, False], 1.0),
        ([False, False, True], 1 / 3),
        ([True, False, True], (1 + 2 / 3) / 2),
        ([False, False], 0.0),
    ],
)
def test_average_precision_rewards_useful_contexts_ranked_first(
    flags: list[bool], expected: float
) -> None:
    assert average_precision(flags) == pytest.approx(expected)


def test_context_precision_uses_verdicts_in_rank_order() -> None:
    out = ContextVerdicts.model_validate(
        {
            "verdicts": [
                {"index": 1, "useful": True, "reason": "r"},
                {"index": 0, "useful": False, "reason": "r"},
            ]
        }
    )
    result = run(
        "context_precision",
        sample(contexts=["noise", "Paris"]),
        CannedJudge({"context_usefulness": out}),
    )
    assert result.score == pytest.approx(0.5)
    assert [e.verdict for e in result.evidence] == ["not useful", "useful"]


def test_context_recall_is_attributed_ground_truth_sentences() -> None:
    out = Attributions.model_validate(
        {
            "sentences": [
                {"index": 0, "attributed": True, "reason": "r"},
                {"index": 1, "attributed": False, "reason": "no population"},
            ]
        }
    )
    result = run("context_recall", sample(), CannedJudge({"ground_truth_attribution": out}))
    assert result.score == 0.5
    assert [(e.text, e.verdict) for e in result.evidence] == [
        ("Paris is the capital.", "attributed"),
        ("It has 2 million people.", "not found"),
    ]


def test_context_relevance_is_needed_sentences_over_all_judged_sentences() -> None:
    out = SentenceRelevances.model_validate(
        {
            "sentences": [
                {"index": 0, "relevant": True},
                {"index": 1, "relevant": False},
                {"index": 2, "relevant": False},
            ]
        }
    )
    s = sample(contexts=["Paris is the capital of France. It rains.", "Berlin is big."])
    result = run("context_relevance", s, CannedJudge({"context_sentence_relevance": out}))
    assert result.score == pytest.approx(1 / 3)
    assert result.reason == (
        "1 of 3 context sentences needed for the question (1 of 2 contexts hold one)"
    )
    assert [e.source for e in result.evidence] == ["context 1", "context 1", "context 2"]


def test_context_relevance_without_any_sentence_verdict_is_not_judged() -> None:
    out = SentenceRelevances.model_validate({"sentences": []})
    s = sample(contexts=["Paris is the capital of France."])
    result = run("context_relevance", s, CannedJudge({"context_sentence_relevance": out}))
    assert result.score is None
    assert result.reason == "the judge gave no sentence verdicts"


def fake_embed(table: dict[str, list[float]]) -> Any:
    async def embed(texts: list[str]) -> list[list[float]]:
        return [table[t] for t in texts]

    return embed


def test_answer_relevance_is_mean_cosine_of_generated_questions() -> None:
    out = GeneratedQuestionsOutput(questions=["q1", "q2"], noncommittal=False)
    embed = fake_embed(
        {"What is the capital of France?": [1.0, 0.0], "q1": [1.0, 0.0], "q2": [0.0, 1.0]}
    )
    result = run("answer_relevance", sample(), CannedJudge({"generated_questions": out}), embed)
    assert result.score == pytest.approx(0.5)
    assert [e.score for e in result.evidence] == [1.0, 0.0]


def test_answer_relevance_noncommittal_answer_scores_zero() -> None:
    out = GeneratedQuestionsOutput(questions=["q1"], noncommittal=True)
    result = run(
        "answer_relevance", sample(), CannedJudge({"generated_questions": out}), fake_embed({})
    )
    assert result.score == 0.0
    assert "noncommittal" in result.reason


def test_answer_relevance_without_question_generation_uses_the_direct_rating() -> None:
    rating = DirectRelevance(score=0.8, noncommittal=False, reason="answers the question")
    judge = CannedJudge({"answer_addresses_question": rating}, generates=False)
    result = run("answer_relevance", sample(), judge, fake_embed({}))
    assert result.score == 0.8
    assert result.details["method"] == "direct_rating"
    assert judge.asked == [AnswerAddressesQuestion.name]


def test_answer_similarity_needs_embeddings_and_says_how_to_get_them() -> None:
    result = run("answer_similarity", sample(), None, None)
    assert result.score is None
    assert "rag-eval-pytest[local]" in result.reason
    result = run(
        "answer_similarity",
        sample(),
        None,
        fake_embed(
            {
                "Paris is the capital of France.": [1.0, 1.0],
                "Paris is the capital. It has 2 million people.": [1.0, 0.0],
            }
        ),
    )
    assert result.score == pytest.approx(0.7071, abs=1e-4)


def test_answer_correctness_is_f1_over_facts() -> None:
    eq = Equivalence(
        same_information=False,
        matching_facts=["Paris is the capital"],
        missing_facts=["2 million people"],
        wrong_or_extra_facts=[],
    )
    result = run("answer_correctness", sample(), CannedJudge({"answer_equivalence": eq}))
    assert result.score == pytest.approx(1 / 1.5)
    assert [e.verdict for e in result.evidence] == ["matching", "missing"]


def test_the_same_question_goes_to_the_judge_once_per_run() -> None:
    judge = CannedJudge({"statement_support": MIXED})
    services = Services(judge=judge)
    ragas = get_metric("faithfulness")
    deepeval = get_metric("faithfulness", mode="deepeval")

    async def both() -> list[Measurement]:
        return [
            await measure(ragas, sample(), services),
            await measure(deepeval, sample(), services),
        ]

    first, second = asyncio.run(both())
    assert (first.score, second.score) == (0.5, 0.75)
    assert judge.asked == ["statement_support"]
    assert (first.usage.judge_calls, second.usage.judge_calls) == (1, 0)
