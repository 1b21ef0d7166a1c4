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

    first = turns[0]
    usage = sum((r.usage for r in turns), Usage())
    warnings = list(dict.fromkeys(w for r in turns for w in r.warnings))
    scores = {n: r.score for n, r in enumerate(turns, start=1)}
    details: dict[str, Any] = {
        "aggregate": aggregate,
        "turns": {str(n): s for n, s in scores.items()},
    }
    common = {"usage": usage, "warnings": warnings, "metric": first.metric, "case": key}
    blocking = next(
        ((n, r) for n, r in enumerate(turns, start=1) if r.score is None and r.cause != "data"),
        None,
    )
    judged = [(n, r) for n, r in enumerate(turns, start=1) if r.score is not None]
    if blocking is not None or not judged:
        n, why = blocking or (1, first)
        reason = (
            f"turn {n}: {why.reason}" if blocking else f"no turn was judged (turn 1: {why.reason})"
        )
        return MetricResult(
            score=None,
            reason=reason,
            cause=why.cause or "data",
            threshold=threshold,
            status="not_judged",
            details={**details, "turn": n},
            **common,
        )
    if aggregate == "min":
        n, worst = min(judged, key=lambda item: cast("float", item[1].score))
        score = cast("float", worst.score)
        deciding = [(n, worst)]
    else:
        score = sum(cast("float", r.score) for _, r in judged) / len(judged)
        n, worst = min(judged, key=lambda item: cast("float", item[1].score))
        below = [
            (m, r)
            for m, r in judged
            if threshold is not None and cast("float", r.score) < threshold
        ]
        deciding = below or [(n, worst)]
    evidence = [
        item.model_copy(update={"turn": m}) for m, result in deciding for item in result.evidence
    ]
    shown = ", ".join(f"turn {m} {cast('float', r.score):.2f}" for m, r in judged)
    reason = (
        f"turn {n} of {len(turns)}: {worst.reason}" if worst.reason else f"turn {n} of {len(turns)}"
    )
    if aggregate == "mean":
        reason = f"mean of {len(judged)} turns ({shown}); lowest {reason}"
    score = min(max(score, 0.0), 1.0)
    return MetricResult(
        score=score,
        reason=reason,
        threshold=threshold,
        status=status_of(score, threshold),
        evidence=evidence,
        details={**details, "turn": n},
        **common,
    )
