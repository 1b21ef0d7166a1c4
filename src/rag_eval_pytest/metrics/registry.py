"""The metric registry: names to metric classes, and the one list of built-in metric names.

Built-in metrics are listed as import paths and imported on first use, so naming a metric
costs nothing until it runs; this module imports no metric code, so the options can name
the built-in metrics without it. Custom metrics register with :func:`register_metric`.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .base import Metric, Requirement


@dataclass(frozen=True)
class _Builtin:
    target: str
    """``module:Class``, relative to this package."""
    weight: float = 0.0
    """Its weight in the composite score by default (0: not in the composite)."""
    checked_by_default: bool = False
    """Checked by zero-code tests when the config names no metrics."""


# In report order. Judge-based metrics add their rows here.
_BUILTIN: dict[str, _Builtin] = {
    "faithfulness": _Builtin(".faithfulness:Faithfulness", 40, checked_by_default=True),
    "answer_relevance": _Builtin(
        ".answer_relevance:AnswerRelevance", 20, checked_by_default=True
    ),
    "context_precision": _Builtin(
        ".context_precision:ContextPrecision", 20, checked_by_default=True
    ),
    "context_recall": _Builtin(".context_recall:ContextRecall", 20, checked_by_default=True),
    "context_relevance": _Builtin(".context_relevance:ContextRelevance"),
    "answer_similarity": _Builtin(".answer_similarity:AnswerSimilarity"),
    "answer_correctness": _Builtin(".answer_correctness:AnswerCorrectness"),
    # Judged only for cases with expected_contexts.
    "retrieval_precision": _Builtin(".retrieval:RetrievalPrecision", checked_by_default=True),
    "retrieval_recall": _Builtin(".retrieval:RetrievalRecall", checked_by_default=True),
    "retrieval_hit_rate": _Builtin(".ranking:RetrievalHitRate"),
    "retrieval_mrr": _Builtin(".ranking:RetrievalMRR"),
    "retrieval_ndcg": _Builtin(".ranking:RetrievalNDCG"),
}
_CUSTOM: dict[str, type[Metric]] = {}

METRIC_NAMES: tuple[str, ...] = tuple(_BUILTIN)
"""The built-in metrics, in report order."""
DEFAULT_WEIGHTS: dict[str, float] = {n: m.weight for n, m in _BUILTIN.items() if m.weight}
"""The composite's metrics and their weights when the config gives none."""
DEFAULT_METRICS: tuple[str, ...] = tuple(n for n, m in _BUILTIN.items() if m.checked_by_default)
"""The metrics a zero-code case is checked on when the config names none."""

M = TypeVar("M", bound="type[Metric]")


def metric_order(name: str) -> tuple[int, str]:
    """Sort key: built-in metrics in report order, then the others by name."""
    return (METRIC_NAMES.index(name) if name in METRIC_NAMES else len(METRIC_NAMES), name)


def register_metric(cls: M) -> M:
    """Class decorator: make ``cls`` available by its ``name`` to ``evaluate`` and configs."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"{cls.__name__}.name must be an identifier, got {name!r}")
    if name in _BUILTIN:
        raise ValueError(f"metric {name!r} is built in and cannot be replaced")
    _CUSTOM[name] = cls
    return cls


def registered_names() -> set[str]:
    return set(_BUILTIN) | set(_CUSTOM)


def metric_class(name: str) -> type[Metric]:
    if name in _CUSTOM:
        return _CUSTOM[name]
    builtin = _BUILTIN.get(name)
    if builtin is None:
        known = ", ".join(sorted(registered_names()))
        raise KeyError(f"unknown metric {name!r} (known: {known})")
    return _builtin_class(builtin.target)


@functools.cache
def _builtin_class(target: str) -> type[Metric]:
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name, __package__)
    cls: type[Metric] = getattr(module, attr)
    return cls


def get_metric(metric: str | Metric, **params: Any) -> Metric:
    """A metric instance from a name (with parameters) or an instance (as is)."""
    from .base import Metric

    if isinstance(metric, Metric):
        if params:
            raise TypeError("pass parameters to the metric's constructor, not to evaluate()")
        return metric
    return metric_class(metric)(**params)


def requirements(metric: str | Metric) -> frozenset[Requirement]:
    """What ``metric`` needs (``KeyError`` for a name not registered)."""
    from .base import Metric

    return (type(metric) if isinstance(metric, Metric) else metric_class(metric)).requires


def default_threshold(name: str) -> float:
    return metric_class(name).default_threshold
