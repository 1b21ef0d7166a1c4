"""Context recall: how much of the ground truth the retrieved contexts support.

The ground truth is split into sentences; one verdict per sentence (one judge call), score =
attributed sentences / all sentences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import AttributionInput, GroundTruthAttribution
from ..text.sentences import split_sentences
from .base import Evidence, Measurement, Metric, Requirement
from .judged import context_texts, details, empty_contexts, not_judged, unsure_listed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..judges.base import Question
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
        doubtful = {outcome.value.sentences[i].index for i in outcome.unsure}
        verdicts = sorted(outcome.value.sentences, key=lambda v: v.index)
        attributed = sum(v.attributed for v in verdicts if v.index not in doubtful)
        decided = len(verdicts) - len(doubtful)
        # An unsure sentence may be attributed or not: the score is the decided sentences'
        # share where they count the same either way.
        low, high = attributed / len(verdicts), (attributed + len(doubtful)) / len(verdicts)
        score = low if low == high else (attributed / decided if decided else None)
        reason = f"{attributed} of {decided} ground-truth sentences found in the contexts"
        if doubtful:
            reason += unsure_listed([sentences[i] for i in sorted(doubtful)], "sentence")
        return Measurement(
            score=score,
            reason=reason,
            cause="unsure" if score is None else None,
            evidence=[
                Evidence(
                    kind="ground_truth_sentence",
                    text=sentences[v.index],
                    verdict="unsure"
                    if v.index in doubtful
                    else "attributed"
                    if v.attributed
                    else "not found",
                    reason=v.reason,
                )
                for v in verdicts
            ],
            usage=outcome.usage,
            warnings=list(outcome.notes),
            details=details(outcome),
            unsure=len(doubtful),
            bounds=(low, high) if low != high else None,
        )
