"""The trend of the last runs, from ``results.jsonl``, and regressions against the last
comparable run.

The report shows the composite and per-metric means of the last runs (the current one
included). Scores are compared only with the last complete run of the same selection (the
same scored cases, metrics, judge and dataset content: see
:func:`~rag_eval_pytest.reporting.history.selection`), so a run of some tags, a ``-k``, a
shard or a ``--lf`` is never compared with a full run. Every score that dropped by more than
the tolerance since that run is flagged. A history line written before runs recorded their
selection is shown but never compared. A regression is reported, it does not change the exit
code: use the thresholds for that.
"""

from __future__ import annotations

from typing import Literal

from .models import ComparedRun, HistoryLine, Regression, Trend, TrendPoint

TREND_RUNS = 10


def _fingerprint(line: HistoryLine) -> str | None:
    return None if line.selection is None else line.selection.fingerprint


def _point(line: HistoryLine, fingerprint: str | None) -> TrendPoint:
    own = _fingerprint(line)
    selected: Literal["same", "other", "unknown"] = (
        "unknown" if own is None else ("same" if own == fingerprint else "other")
    )
    return TrendPoint(
        run_id=line.run_id,
        timestamp=line.timestamp,
        composite=line.composite_score,
        metrics=dict(line.metrics),
        partial=line.partial,
        selection=selected,
        judge=line.judge,
        judge_identity=None if line.selection is None else line.selection.judge_identity,
    )


def build_trend(
    history: list[HistoryLine], current: HistoryLine, *, tolerance: float = 0.05
) -> Trend:
    """``history``: earlier ``results.jsonl`` lines, oldest first; ``current``: this run's
    line. Returns the points (at most :data:`TREND_RUNS`, oldest first), the run compared
    with (the last complete one of the same selection, from the whole history) or why none
    was, and the regressions."""
    fingerprint = _fingerprint(current)
    points = [_point(e, fingerprint) for e in history[-(TREND_RUNS - 1) :]]
    points.append(_point(current, fingerprint))
    previous = _compared(history, fingerprint)
    return Trend(
        points=points,
        compared_with=None
        if previous is None
        else ComparedRun(run_id=previous.run_id, timestamp=previous.timestamp),
        not_compared=None if previous is not None else _why_not(history, fingerprint),
        regressions=[] if previous is None else _regressions(previous, points[-1], tolerance),
        tolerance=tolerance,
    )


def _compared(history: list[HistoryLine], fingerprint: str | None) -> TrendPoint | None:
    """The last complete run of the same selection in the whole history, if any."""
    if fingerprint is None:
        return None
    return next(
        (
            _point(e, fingerprint)
            for e in reversed(history)
            if _fingerprint(e) == fingerprint and not e.partial
        ),
        None,
    )


def _regressions(previous: TrendPoint, now: TrendPoint, tolerance: float) -> list[Regression]:
    """The composite and each metric of this run that dropped by more than ``tolerance``
    since ``previous``."""
    pairs = [("composite", previous.composite, now.composite)]
    pairs += [(m, previous.metrics.get(m), v) for m, v in now.metrics.items()]
    regressions: list[Regression] = []
    for name, before, after in pairs:
        if before is not None and after is not None and before - after > tolerance:
            regressions.append(
                Regression(
                    name=name,
                    previous=round(before, 4),
                    current=round(after, 4),
                    previous_run=previous.run_id,
                )
            )
    return regressions


def _why_not(history: list[HistoryLine], fingerprint: str | None) -> str:
    if fingerprint is None:
        return "this run recorded no selection"
    parts = _not_compared(history, fingerprint)
    if not parts:
        return "no earlier run"
    return "no earlier complete run of the same selection: of the earlier runs, " + ", ".join(parts)


def _not_compared(history: list[HistoryLine], fingerprint: str) -> list[str]:
    """Why each earlier run was not compared, counted by reason."""
    unknown, interrupted, other = _kinds_of_runs(history, fingerprint)
    reasons = (
        (other, f"{other} selected other cases, metrics, a judge or dataset content"),
        (interrupted, f"{interrupted} of the same selection were partial"),
        (unknown, f"{unknown} recorded no selection (written by an earlier version)"),
    )
    return [reason for count, reason in reasons if count]


def _kinds_of_runs(history: list[HistoryLine], fingerprint: str) -> tuple[int, int, int]:
    """How many earlier runs recorded no selection, were partial runs of this one's (every
    complete one would have been compared), or selected something else."""
    unknown = sum(1 for e in history if _fingerprint(e) is None)
    interrupted = sum(1 for e in history if _fingerprint(e) == fingerprint)
    return unknown, interrupted, len(history) - unknown - interrupted
