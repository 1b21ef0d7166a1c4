"""A conversation's result of a metric, from its turns' results: the minimum over the turns
by default (``aggregate="mean"``: their mean), with the evidence of the turns that decide it,
each piece naming its turn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast

from ..judges.base import Usage

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .base import MetricResult

Aggregate = Literal["min", "mean"]
AGGREGATES: tuple[Aggregate, ...] = ("min", "mean")
DEFAULT_AGGREGATE: Aggregate = "min"


def split_aggregate(params: Mapping[str, Any]) -> tuple[Aggregate, dict[str, Any]]:
    """The ``aggregate`` parameter of a metric request (how a conversation's turns make its
    score) and the metric's own parameters; an unknown aggregate is one clear error."""
    rest = dict(params)
    value = rest.pop("aggregate", DEFAULT_AGGREGATE)
    if value not in AGGREGATES:
        raise ValueError(f"aggregate must be 'min' or 'mean', got {value!r}")
    return cast("Aggregate", value), rest


def conversation_result(
    key: str,
    turns: Sequence[MetricResult],
    threshold: float | None,
    aggregate: Aggregate = DEFAULT_AGGREGATE,
) -> MetricResult:
    """The conversation ``key``'s result from its turns' results (in turn order).

    A turn the judge could not judge (its error, an unsure verdict, a check it cannot make)
    leaves the conversation not judged, naming the turn; turns not judged for their own data
    (a turn without a ground truth) are left out, and with no judged turn the conversation
    is not judged either."""
    from .base import MetricResult, status_of

    numbered = list(enumerate(turns, start=1))
    blocking = _blocking(numbered)
    judged = [(n, r) for n, r in numbered if r.score is not None]
    if blocking is not None or not judged:
        turn, fields = _not_judged(blocking, turns[0])
    else:
        turn, fields = _judged(judged, len(turns), threshold, aggregate)
    details = {"aggregate": aggregate, "turns": {str(n): r.score for n, r in numbered}}
    return MetricResult(
        threshold=threshold,
        status=status_of(fields["score"], threshold),
        details={**details, "turn": turn},
        **fields,
        **_common(key, turns),
    )


Numbered = list[tuple[int, "MetricResult"]]
"""Turns' results, each with its turn's number (from 1)."""


def _common(key: str, turns: Sequence[MetricResult]) -> dict[str, Any]:
    """What the conversation's result takes from all its turns: their costs added up, each
    warning once."""
    return {
        "usage": sum((r.usage for r in turns), Usage()),
        "warnings": list(dict.fromkeys(w for r in turns for w in r.warnings)),
        "metric": turns[0].metric,
        "case": key,
    }


def _blocking(numbered: Numbered) -> tuple[int, MetricResult] | None:
    """The first turn the judge could not judge (one without the data the metric needs is
    left out instead)."""
    return next(((n, r) for n, r in numbered if r.score is None and r.cause != "data"), None)


def _not_judged(
    blocking: tuple[int, MetricResult] | None, first: MetricResult
) -> tuple[int, dict[str, Any]]:
    """The turn that leaves the conversation not judged, and why: the blocking turn, or the
    first when no turn was judged."""
    n, why = blocking or (1, first)
    reason = f"turn {n}: {why.reason}" if blocking else f"no turn was judged (turn 1: {why.reason})"
    return n, {"score": None, "reason": reason, "cause": why.cause or "data"}


def _judged(
    judged: Numbered, count: int, threshold: float | None, aggregate: Aggregate
) -> tuple[int, dict[str, Any]]:
    """The turn that decides the conversation's score, the score and the evidence of the
    turns that decide it, each piece naming its turn."""
    score, (n, worst), deciding = _aggregated(judged, threshold, aggregate)
    evidence = [
        item.model_copy(update={"turn": m}) for m, result in deciding for item in result.evidence
    ]
    reason = _reason(n, worst, count, judged, aggregate)
    return n, {"score": min(max(score, 0.0), 1.0), "reason": reason, "evidence": evidence}


def _aggregated(
    judged: Numbered, threshold: float | None, aggregate: Aggregate
) -> tuple[float, tuple[int, MetricResult], Numbered]:
    """The score, the lowest turn, and the turns that decide: the lowest alone for ``min``;
    for ``mean``, the turns under the threshold (the lowest when none is)."""
    lowest = min(judged, key=lambda item: cast("float", item[1].score))
    if aggregate == "min":
        return cast("float", lowest[1].score), lowest, [lowest]
    score = sum(cast("float", r.score) for _, r in judged) / len(judged)
    return score, lowest, _below(judged, threshold) or [lowest]


def _below(judged: Numbered, threshold: float | None) -> Numbered:
    if threshold is None:
        return []
    return [(m, r) for m, r in judged if cast("float", r.score) < threshold]


def _reason(n: int, worst: MetricResult, count: int, judged: Numbered, aggregate: Aggregate) -> str:
    reason = f"turn {n} of {count}: {worst.reason}" if worst.reason else f"turn {n} of {count}"
    if aggregate != "mean":
        return reason
    shown = ", ".join(f"turn {m} {cast('float', r.score):.2f}" for m, r in judged)
    return f"mean of {len(judged)} turns ({shown}); lowest {reason}"
