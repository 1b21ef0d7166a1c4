"""What the judge-based metrics share: turning a
:class:`~rag_eval_pytest.judges.base.JudgeOutcome` into the pieces of a measurement, and the
texts and vectors they compare."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..judges.base import Usage
from ..text.shorten import shorten
from .base import Measurement

if TYPE_CHECKING:
    from ..data.response import Context
    from ..judges.base import JudgeOutcome
    from .base import Sample


def not_judged(outcome: JudgeOutcome[Any], what: str) -> Measurement:
    """The measurement of a question the judge could not answer, with its reason (and, when
    the judge stopped for the rest of the run, why: ``details.judge_stopped``)."""
    details: dict[str, Any] = {"judge_error": outcome.reason} if outcome.reason else {}
    if outcome.stopped:
        details["judge_stopped"] = outcome.stopped
    return Measurement.not_judged(
        f"{what}: {outcome.reason}" if outcome.reason else what,
        cause="unsupported" if outcome.unsupported else "judge",
        usage=outcome.usage,
        warnings=list(outcome.notes),
        details=details,
    )


def unsure_listed(texts: list[str], noun: str) -> str:
    """The part of a reason that names the items the judge was unsure of: "; 2 claims
    unsure: "...", "..."", the first three shown."""
    shown = ", ".join(f'"{shorten(text, 60)}"' for text in texts[:3])
    more = f" and {len(texts) - 3} more" if len(texts) > 3 else ""
    return f"; {len(texts)} {noun}{'' if len(texts) == 1 else 's'} unsure: {shown}{more}"


def details(outcome: JudgeOutcome[Any]) -> dict[str, Any]:
    """What a judged measurement's details say of the judge's answer: the votes' agreement,
    and for a cascade judge how many items each tier decided (``tiers``)."""
    found: dict[str, Any] = {}
    if outcome.agreement is not None:
        found["agreement"] = outcome.agreement
    if outcome.tiers:
        found["tiers"] = dict(outcome.tiers)
    return found


def context_texts(sample: Sample) -> list[str]:
    assert sample.contexts is not None, "metrics requiring contexts are not run without them"
    return [c.text for c in sample.contexts]


def context_label(context: Context, index: int) -> str:
    return context.source or f"context {index + 1}"


def empty_contexts(usage: Usage | None = None) -> Measurement:
    """Contexts ``[]``: the RAG system retrieved nothing, so nothing it says is grounded."""
    return Measurement(
        score=0.0,
        reason="the RAG system returned no contexts (contexts=[])",
        usage=usage or Usage(),
    )


def cosine(a: list[float], b: list[float]) -> float:
    """Cosine similarity, clipped to [0, 1] (negative similarity counts as unrelated)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    if norm == 0.0 or not math.isfinite(dot / norm):
        return 0.0
    return min(1.0, max(0.0, dot / norm))
