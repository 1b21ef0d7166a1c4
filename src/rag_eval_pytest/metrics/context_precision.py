"""Context precision: are the useful contexts ranked first?

One verdict per retrieved context, useful or not for reaching the ground truth (one judge
call for all contexts). Score = average precision over ranks, as RAGAS computes it:
``sum_k(precision@k * useful_k) / number of useful contexts``; 0 when none is useful.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import ContextsInput, ContextUsefulness, ContextVerdict, ContextVerdicts
from .base import Evidence, Measurement, Metric, Requirement
from .judged import (
    context_label,
    context_texts,
    details,
    empty_contexts,
    not_judged,
    unsure_listed,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..data.response import Context
    from ..judges.base import JudgeOutcome, Question
    from .base import Sample, Services


def average_precision(useful: list[bool]) -> float:
    """Average precision of a ranked list of relevance flags (0 when nothing is relevant)."""
    hits = 0
    total = 0.0
    for rank, flag in enumerate(useful, start=1):
        if flag:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


class ContextPrecision(Metric):
    name = "context_precision"
    default_threshold = 0.7
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "ground_truth", "judge"})
    summary = "average precision of useful contexts over rank"
    failure_cause = "ranking"

    def judge_questions(
        self,
        question: str,
        ground_truth: str,
        answer: str,
        contexts: list[str],
        *,
        earlier: Sequence[str] = (),
    ) -> list[tuple[Question[Any, Any], BaseModel]]:
        inputs = ContextsInput(question=question, ground_truth=ground_truth, contexts=contexts)
        return [(ContextUsefulness(), inputs)]

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        assert sample.contexts is not None
        contexts = context_texts(sample)
        if not contexts:
            return empty_contexts()
        inputs = ContextsInput(
            question=sample.question_in_context, ground_truth=sample.ground_truth, contexts=contexts
        )
        outcome = await services.ask(ContextUsefulness(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge gave no context verdicts")
        return _measured(sample.contexts, contexts, outcome.value, outcome)


def _measured(
    retrieved: list[Context],
    contexts: list[str],
    judged: ContextVerdicts,
    outcome: JudgeOutcome[ContextVerdicts],
) -> Measurement:
    """The average precision of the contexts in their ranks, with its bounds over the
    contexts the judge was unsure of."""
    doubtful = {judged.verdicts[i].index for i in outcome.unsure}
    verdicts = sorted(judged.verdicts, key=lambda v: v.index)
    flags = [v.useful for v in verdicts]
    low, high = precision_bounds(flags, [v.index in doubtful for v in verdicts])
    return Measurement(
        score=average_precision(flags),  # the best guess where it depends on them
        reason=_reason(flags, contexts, doubtful),
        evidence=_evidence(retrieved, contexts, verdicts, doubtful),
        usage=outcome.usage,
        warnings=list(outcome.notes),
        details={"ranks_useful": flags, **details(outcome)},
        unsure=len(doubtful),
        bounds=(low, high) if low != high else None,
    )


def _reason(flags: list[bool], contexts: list[str], doubtful: set[int]) -> str:
    reason = f"{sum(flags)} of {len(flags)} contexts useful for the ground truth"
    if doubtful:
        reason += unsure_listed([contexts[i] for i in sorted(doubtful)], "context")
    return reason


def _evidence(
    retrieved: list[Context],
    contexts: list[str],
    verdicts: list[ContextVerdict],
    doubtful: set[int],
) -> list[Evidence]:
    return [
        Evidence(
            kind="context",
            text=contexts[v.index],
            verdict=_shown_verdict(v, doubtful),
            reason=v.reason,
            source=context_label(retrieved[v.index], v.index),
        )
        for v in verdicts
    ]


def _shown_verdict(verdict: ContextVerdict, doubtful: set[int]) -> str:
    if verdict.index in doubtful:
        return "unsure"
    return "useful" if verdict.useful else "not useful"


def precision_bounds(flags: list[bool], unsure: list[bool]) -> tuple[float, float]:
    """The least and the greatest average precision over every way the unsure contexts may
    be useful or not (all of 0 to 1 beyond ten of them)."""
    doubtful = [i for i, u in enumerate(unsure) if u]
    if len(doubtful) > 10:
        return 0.0, 1.0
    scores = []
    for mask in range(2 ** len(doubtful)):
        trial = list(flags)
        for bit, i in enumerate(doubtful):
            trial[i] = bool(mask >> bit & 1)
        scores.append(average_precision(trial))
    return min(scores), max(scores)
