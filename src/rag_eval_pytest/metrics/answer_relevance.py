"""Answer relevance: does the answer address the question that was asked?

RAGAS' algorithm when the judge can write questions and embeddings are available: the judge
writes ``questions`` (default 3) that the answer would answer and says whether the answer is
noncommittal; the score is the mean cosine similarity of their embeddings to the question's,
and 0 for a noncommittal answer ("I don't know").

A judge that cannot write questions (the offline judge), or a run without embeddings, rates
the relevance directly (:class:`~rag_eval_pytest.judges.questions.AnswerAddressesQuestion`);
the result says which way it was measured. A direct rating the judge was unsure of (the local
judge's unsure band) keeps its best-guess score with the bounds the judge gives it, and a
verdict between them follows ``judge.local.unsure``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import (
    AnswerAddressesQuestion,
    DirectRelevanceInput,
    GeneratedQuestions,
    QuestionsInput,
)
from .base import Evidence, Measurement, Metric, Requirement
from .judged import cosine, details, not_judged

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..judges.base import JudgeOutcome, Question
    from ..judges.questions import DirectRelevance, GeneratedQuestionsOutput
    from .base import Sample, Services

NONCOMMITTAL = "the answer is noncommittal (it evades or declines to answer)"


class AnswerRelevance(Metric):
    name = "answer_relevance"
    default_threshold = 0.7
    requires: ClassVar[frozenset[Requirement]] = frozenset({"judge"})
    optional: ClassVar[frozenset[Requirement]] = frozenset({"embeddings"})
    summary = "mean similarity of questions generated from the answer to the question"
    failure_cause = "irrelevant_answer"
    accepted_params = frozenset({"questions"})

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        count = self.params.get("questions", 3)
        if not isinstance(count, int) or not 1 <= count <= 10:
            raise ValueError(f"questions must be a whole number from 1 to 10, got {count!r}")
        self.count = count

    def judge_questions(
        self,
        question: str,
        ground_truth: str,
        answer: str,
        contexts: list[str],
        *,
        earlier: Sequence[str] = (),
    ) -> list[tuple[Question[Any, Any], BaseModel]]:
        return [(GeneratedQuestions(), QuestionsInput(answer=answer))]

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        if not sample.answer.strip():
            return Measurement(score=0.0, reason="the answer is empty")
        judge = services.judge
        assert judge is not None, "a metric that requires a judge runs only with one"
        if services.embed is not None and judge.supports(GeneratedQuestions):
            return await self._generated(sample, services)
        if judge.supports(AnswerAddressesQuestion):
            return await self._direct(sample, services)
        return Measurement.not_judged(
            "the judge cannot generate questions and no embedding model is available"
        )

    async def _generated(self, sample: Sample, services: Services) -> Measurement:
        assert services.embed is not None
        inputs = QuestionsInput(answer=sample.answer, count=self.count)
        outcome = await services.ask(GeneratedQuestions(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge generated no questions")
        generated = outcome.value
        info = {"method": "generated_questions", **details(outcome)}
        if generated.noncommittal:
            return Measurement(
                score=0.0,
                reason=NONCOMMITTAL,
                usage=outcome.usage,
                warnings=list(outcome.notes),
                details=info,
            )
        questions = _written(generated, self.count)
        if not questions:  # a judge that does not check its answers: blank questions only
            return not_judged(outcome, "the judge generated no questions")
        vectors = await services.embed([sample.question_in_context, *questions])
        return _mean_similarity(questions, vectors, outcome, info)

    async def _direct(self, sample: Sample, services: Services) -> Measurement:
        inputs = DirectRelevanceInput(question=sample.question_in_context, answer=sample.answer)
        outcome = await services.ask(AnswerAddressesQuestion(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge did not rate the answer")
        return _rated(sample.answer, outcome.value, outcome)


def _written(generated: GeneratedQuestionsOutput, count: int) -> list[str]:
    """The first ``count`` questions the judge wrote that are not blank."""
    return [q for q in generated.questions if q.strip()][:count]


def _mean_similarity(
    questions: list[str],
    vectors: list[list[float]],
    outcome: JudgeOutcome[GeneratedQuestionsOutput],
    info: dict[str, Any],
) -> Measurement:
    """The mean similarity of the questions' vectors to the question's (the first)."""
    similarities = [cosine(vectors[0], v) for v in vectors[1:]]
    return Measurement(
        score=sum(similarities) / len(similarities),
        reason=f"mean similarity of {len(questions)} generated questions to the question",
        evidence=[
            Evidence(kind="generated_question", text=q, score=round(sim, 4))
            for q, sim in zip(questions, similarities, strict=True)
        ],
        usage=outcome.usage,
        warnings=list(outcome.notes),
        details=info,
    )


def _rated(
    answer: str, rating: DirectRelevance, outcome: JudgeOutcome[DirectRelevance]
) -> Measurement:
    """The judge's direct rating. A rating the judge was unsure of (its only item) is its
    best guess: the score could be anywhere between the bounds it gives (all of 0 to 1 if it
    gives none)."""
    info = {"method": "direct_rating", **details(outcome)}
    unsure = bool(outcome.unsure)
    bounds = (rating.bounds or (0.0, 1.0)) if unsure else None
    evidence = [_rating_evidence(answer, rating, unsure)]
    if rating.noncommittal:
        return Measurement(
            score=0.0,
            reason=NONCOMMITTAL,
            evidence=evidence,
            usage=outcome.usage,
            details=info,
            unsure=int(unsure),
            bounds=bounds,
        )
    return Measurement(
        score=rating.score,
        reason=rating.reason or "rated by the judge",
        evidence=evidence,
        usage=outcome.usage,
        warnings=list(outcome.notes),
        details=info,
        unsure=int(unsure),
        bounds=bounds,
    )


def _rating_evidence(answer: str, rating: DirectRelevance, unsure: bool) -> Evidence:
    """The answer as rated, with its score (none for a noncommittal answer)."""
    verdict = "unsure" if unsure else None
    if rating.noncommittal:
        return Evidence(kind="rating", text=answer, verdict=verdict, reason=rating.reason)
    return Evidence(
        kind="rating", text=answer, verdict=verdict, score=rating.score, reason=rating.reason
    )
