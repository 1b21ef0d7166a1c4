"""Context recall: how much of the ground truth the retrieved contexts support.

The ground truth is split into sentences; one verdict per sentence (one judge call), score =
attributed sentences / all sentences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import (
    AttributionInput,
    Attributions,
    GroundTruthAttribution,
    SentenceAttribution,
)
from ..text.sentences import split_sentences
from .base import Evidence, Measurement, Metric, Requirement
from .judged import context_texts, details, empty_contexts, not_judged, unsure_listed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..judges.base import JudgeOutcome, Question
    from .base import Sample, Services


class ContextRecall(Metric):
    name = "context_recall"
    default_threshold = 0.7
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "ground_truth", "judge"})
    summary = "ground-truth sentences attributable to the contexts / all of them"
    failure_cause = "retrieval_miss"

    def judge_questions(
        self,
        question: str,
        ground_truth: str,
        answer: str,
        contexts: list[str],
        *,
        earlier: Sequence[str] = (),
    ) -> list[tuple[Question[Any, Any], BaseModel]]:
        inputs = AttributionInput(
            question=question, ground_truth_sentences=[ground_truth], contexts=contexts
        )
        return [(GroundTruthAttribution(), inputs)]

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        contexts = context_texts(sample)
        if not contexts:
            return empty_contexts()
        sentences = split_sentences(sample.ground_truth)
        if not sentences:
            return Measurement.not_judged("the ground truth has no sentence to attribute")
        inputs = AttributionInput(
            question=sample.question_in_context, ground_truth_sentences=sentences, contexts=contexts
        )
        outcome = await services.ask(GroundTruthAttribution(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge gave no attribution verdicts")
        return _measured(sentences, outcome.value, outcome)


def _measured(
    sentences: list[str], judged: Attributions, outcome: JudgeOutcome[Attributions]
) -> Measurement:
    """The share of the ground truth's sentences attributed to the contexts, with its bounds
    over the sentences the judge was unsure of."""
    doubtful = {judged.sentences[i].index for i in outcome.unsure}
    verdicts = sorted(judged.sentences, key=lambda v: v.index)
    attributed = sum(v.attributed for v in verdicts if v.index not in doubtful)
    decided = len(verdicts) - len(doubtful)
    score, low, high = _recall(attributed, len(doubtful), len(verdicts))
    return Measurement(
        score=score,
        reason=_reason(attributed, decided, sentences, doubtful),
        cause="unsure" if score is None else None,
        evidence=_evidence(sentences, verdicts, doubtful),
        usage=outcome.usage,
        warnings=list(outcome.notes),
        details=details(outcome),
        unsure=len(doubtful),
        bounds=(low, high) if low != high else None,
    )


def _recall(attributed: int, unsure: int, total: int) -> tuple[float | None, float, float]:
    """The score with its least and greatest values over the unsure sentences. An unsure
    sentence may be attributed or not: the score is the decided sentences' share where they
    count the same either way."""
    low, high = attributed / total, (attributed + unsure) / total
    if low == high:
        return low, low, high
    decided = total - unsure
    return (attributed / decided if decided else None), low, high


def _reason(attributed: int, decided: int, sentences: list[str], doubtful: set[int]) -> str:
    reason = f"{attributed} of {decided} ground-truth sentences found in the contexts"
    if doubtful:
        reason += unsure_listed([sentences[i] for i in sorted(doubtful)], "sentence")
    return reason


def _evidence(
    sentences: list[str], verdicts: list[SentenceAttribution], doubtful: set[int]
) -> list[Evidence]:
    return [
        Evidence(
            kind="ground_truth_sentence",
            text=sentences[v.index],
            verdict=_shown_verdict(v, doubtful),
            reason=v.reason,
        )
        for v in verdicts
    ]


def _shown_verdict(verdict: SentenceAttribution, doubtful: set[int]) -> str:
    if verdict.index in doubtful:
        return "unsure"
    return "attributed" if verdict.attributed else "not found"
