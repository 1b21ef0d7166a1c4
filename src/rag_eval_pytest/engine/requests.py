"""What a test asks of its case's metrics: the request types, and the companions a metric
brings with it (asking for answer similarity also measures answer correctness)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..metrics.base import Metric, MetricResult

MetricRequest = tuple["str | Metric", "float | None", "dict[str, Any]"]
"""What a test asks for: (metric, threshold or None for the metric's default, parameters)."""
PlannedMetric = tuple[str, dict[str, Any]]
"""A metric to measure, by name with its parameters and without a threshold (what the engine
learns a test function measures)."""


def _companion(metric: str | Metric) -> str | None:
    """The metric measured beside the one named ``metric`` (``Metric.companion``), if it has
    one (a metric object given by a test brings none)."""
    from ..metrics.registry import metric_class

    if not isinstance(metric, str):
        return None
    try:
        return metric_class(metric).companion
    except KeyError:
        return None


def _name(metric: str | Metric) -> str:
    return metric if isinstance(metric, str) else metric.name


def with_companions(requests: list[MetricRequest]) -> list[MetricRequest]:
    """``requests`` and the companions they ask for, after them."""
    names = {_name(m) for m, _, _ in requests}
    extra: list[MetricRequest] = []
    for metric, _, _ in requests:
        companion = _companion(metric)
        if companion is not None and companion not in names:
            names.add(companion)
            extra.append((companion, None, {}))
    return [*requests, *extra]


def attach_companions(
    results: list[MetricResult], companions: list[MetricResult]
) -> list[MetricResult]:
    """Each result with its companion's score and reason in its details (``beside``)."""
    by_name = {c.metric: c for c in companions}
    out: list[MetricResult] = []
    for result in results:
        companion = by_name.get(_companion(result.metric) or "")
        if companion is not None:
            details = dict(result.details)
            details["beside"] = {
                "metric": companion.metric,
                "score": companion.score,
                "reason": companion.reason,
            }
            result = result.model_copy(update={"details": details})
        out.append(result)
    return out
