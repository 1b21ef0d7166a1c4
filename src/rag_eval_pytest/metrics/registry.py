"""The metric registry: names to metric classes.

Built-in metrics are listed as import paths and imported on first use, so naming a metric
costs nothing until it runs. Custom metrics register with :func:`register_metric`.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any, TypeVar

from .base import Metric

# name -> "module:Class", relative to this package. Judge-based metrics add their rows here.
_BUILTIN: dict[str, str] = {
    "faithfulness": ".faithfulness:Faithfulness",
    "answer_relevance": ".answer_relevance:AnswerRelevance",
    "context_precision": ".context_precision:ContextPrecision",
    "context_recall": ".context_recall:ContextRecall",
    "context_relevance": ".context_relevance:ContextRelevance",
    "answer_similarity": ".answer_similarity:AnswerSimilarity",
    "answer_correctness": ".answer_correctness:AnswerCorrectness",
    "retrieval_precision": ".retrieval:RetrievalPrecision",
    "retrieval_recall": ".retrieval:RetrievalRecall",
}
_CUSTOM: dict[str, type[Metric]] = {}

M = TypeVar("M", bound=type[Metric])


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
    target = _BUILTIN.get(name)
    if target is None:
        known = ", ".join(sorted(registered_names()))
        raise KeyError(f"unknown metric {name!r} (known: {known})")
    return _builtin_class(target)


@functools.cache
def _builtin_class(target: str) -> type[Metric]:
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name, __package__)
    cls: type[Metric] = getattr(module, attr)
    return cls


def get_metric(metric: str | Metric, **params: Any) -> Metric:
    """A metric instance from a name (with parameters) or an instance (as is)."""
    if isinstance(metric, Metric):
        if params:
            raise TypeError("pass parameters to the metric's constructor, not to evaluate()")
        return metric
    return metric_class(metric)(**params)


def default_threshold(name: str) -> float:
    return metric_class(name).default_threshold
