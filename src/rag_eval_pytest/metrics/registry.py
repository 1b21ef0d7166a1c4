"""The metric registry: names to metric classes, and the one list of built-in metric names.

Each built-in metric's row names the function that imports its class, on first use: naming
a metric costs nothing until it runs, so the options can name the built-in metrics without
importing metric code, and every tool (an IDE, import-linter) follows the import. Custom
metrics register with :func:`register_metric`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from .base import Metric, MetricFailure, Requirement


@dataclass(frozen=True)
class _Builtin:
    load: Callable[[], type[Metric]]
    """Imports and returns the metric's class."""
    weight: float = 0.0
    """Its weight in the composite score by default (0: not in the composite)."""
    checked_by_default: bool = False
    """Checked by zero-code tests when the config names no metrics."""


def _faithfulness() -> type[Metric]:
    from .faithfulness import Faithfulness

    return Faithfulness


def _answer_relevance() -> type[Metric]:
    from .answer_relevance import AnswerRelevance

    return AnswerRelevance


def _context_precision() -> type[Metric]:
    from .context_precision import ContextPrecision

    return ContextPrecision


def _context_recall() -> type[Metric]:
    from .context_recall import ContextRecall

    return ContextRecall


def _context_relevance() -> type[Metric]:
    from .context_relevance import ContextRelevance

    return ContextRelevance


def _answer_similarity() -> type[Metric]:
    from .answer_similarity import AnswerSimilarity

    return AnswerSimilarity


def _answer_correctness() -> type[Metric]:
    from .answer_correctness import AnswerCorrectness

    return AnswerCorrectness


def _knowledge_retention() -> type[Metric]:
    from .knowledge_retention import KnowledgeRetention

    return KnowledgeRetention


def _retrieval_precision() -> type[Metric]:
    from .retrieval import RetrievalPrecision

    return RetrievalPrecision


def _retrieval_recall() -> type[Metric]:
    from .retrieval import RetrievalRecall

    return RetrievalRecall


def _retrieval_hit_rate() -> type[Metric]:
    from .ranking import RetrievalHitRate

    return RetrievalHitRate


def _retrieval_mrr() -> type[Metric]:
    from .ranking import RetrievalMRR

    return RetrievalMRR


def _retrieval_ndcg() -> type[Metric]:
    from .ranking import RetrievalNDCG

    return RetrievalNDCG


# In report order: a metric's row, its weight in the composite and whether zero-code tests
# check it by default. Everything else about a metric lives on its class.
_BUILTIN: dict[str, _Builtin] = {
    "faithfulness": _Builtin(_faithfulness, 40, checked_by_default=True),
    "answer_relevance": _Builtin(_answer_relevance, 20, checked_by_default=True),
    "context_precision": _Builtin(_context_precision, 20, checked_by_default=True),
    "context_recall": _Builtin(_context_recall, 20, checked_by_default=True),
    "context_relevance": _Builtin(_context_relevance),
    "answer_similarity": _Builtin(_answer_similarity),
    "answer_correctness": _Builtin(_answer_correctness),
    # Judged only on a conversation's turns after the first.
    "knowledge_retention": _Builtin(_knowledge_retention),
    # Judged only for cases with expected_contexts.
    "retrieval_precision": _Builtin(_retrieval_precision, checked_by_default=True),
    "retrieval_recall": _Builtin(_retrieval_recall, checked_by_default=True),
    "retrieval_hit_rate": _Builtin(_retrieval_hit_rate),
    "retrieval_mrr": _Builtin(_retrieval_mrr),
    "retrieval_ndcg": _Builtin(_retrieval_ndcg),
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
    return builtin.load()


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


def failure_cause(name: str) -> MetricFailure | None:
    """What a failure of the metric reported as ``name`` says about the RAG system (its
    class's ``failure_cause``); ``None`` for one that declares nothing, a named check
    (``criteria: ...``) or a custom metric this process has not registered."""
    try:
        return metric_class(name).failure_cause
    except KeyError:
        return None
