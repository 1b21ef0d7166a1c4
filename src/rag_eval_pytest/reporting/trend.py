"""The trend of the last runs, from ``results.jsonl``, and regressions against the previous run.

The report shows the composite and per-metric means of the last runs (the current one
included) and flags every score that dropped by more than the tolerance since the previous
complete run. A regression is reported, it does not change the exit code: use the
thresholds for that.
"""

from __future__ import annotations

from typing import Any

TREND_RUNS = 10


def _point(entry: dict[str, Any]) -> dict[str, Any]:
    metrics = entry.get("metrics")
    return {
        "run_id": entry.get("run_id"),
        "timestamp": entry.get("timestamp"),
        "composite": _number(entry.get("composite_score")),
        "metrics": {k: _number(v) for k, v in metrics.items()} if isinstance(metrics, dict) else {},
        "partial": bool(entry.get("partial")),
    }


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def build_trend(
    history: list[dict[str, Any]], current: dict[str, Any], *, tolerance: float = 0.05
) -> dict[str, Any]:
    """``history``: earlier ``results.jsonl`` entries, oldest first; ``current``: this run's
    entry. Returns the points (at most :data:`TREND_RUNS`, oldest first) and regressions."""
    points = [_point(e) for e in history[-(TREND_RUNS - 1) :]] + [_point(current)]
    previous = next((p for p in reversed(points[:-1]) if not p["partial"]), None)
    regressions: list[dict[str, Any]] = []
    if previous is not None:
        now = points[-1]
        pairs = [("composite", previous["composite"], now["composite"])]
        pairs += [(m, previous["metrics"].get(m), v) for m, v in now["metrics"].items()]
        for name, before, after in pairs:
            if before is not None and after is not None and before - after > tolerance:
                regressions.append(
                    {
                        "name": name,
                        "previous": round(before, 4),
                        "current": round(after, 4),
                        "previous_run": previous["run_id"],
                    }
                )
    return {"points": points, "regressions": regressions, "tolerance": tolerance}
