"""rag-eval-pytest: RAG quality assertions for pytest.

The public names are loaded on first use, so importing the plugin entry point costs nothing
beyond pytest when ``--rag-dataset`` is not given.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .adapters.base import RAGAdapter
    from .adapters.callable import CallableAdapter
    from .assertions import (
        RagAssertionError,
        assert_context_precision,
        assert_context_recall,
        assert_context_relevance,
        assert_correct,
        assert_faithful,
        assert_metric,
        assert_relevant,
        assert_retrieval,
        assert_similar,
        evaluate,
    )
    from .case import RagCase
    from .dataset import Case
    from .errors import AdapterError, ConfigError, DatasetError, RagEvalError, RagEvalWarning
    from .metrics.base import Evidence, Measurement, Metric, MetricResult, Sample, Services
    from .metrics.registry import register_metric
    from .response import Context, RAGResponse

_EXPORTS: dict[str, str] = {
    "RAGAdapter": ".adapters.base",
    "CallableAdapter": ".adapters.callable",
    "RagAssertionError": ".assertions",
    "assert_context_precision": ".assertions",
    "assert_context_recall": ".assertions",
    "assert_context_relevance": ".assertions",
    "assert_correct": ".assertions",
    "assert_faithful": ".assertions",
    "assert_metric": ".assertions",
    "assert_relevant": ".assertions",
    "assert_retrieval": ".assertions",
    "assert_similar": ".assertions",
    "evaluate": ".assertions",
    "RagCase": ".case",
    "Case": ".dataset",
    "AdapterError": ".errors",
    "ConfigError": ".errors",
    "DatasetError": ".errors",
    "RagEvalError": ".errors",
    "RagEvalWarning": ".errors",
    "Evidence": ".metrics.base",
    "Measurement": ".metrics.base",
    "Metric": ".metrics.base",
    "MetricResult": ".metrics.base",
    "Sample": ".metrics.base",
    "Services": ".metrics.base",
    "register_metric": ".metrics.registry",
    "Context": ".response",
    "RAGResponse": ".response",
}

__all__ = [
    "AdapterError",
    "CallableAdapter",
    "Case",
    "ConfigError",
    "Context",
    "DatasetError",
    "Evidence",
    "Measurement",
    "Metric",
    "MetricResult",
    "RAGAdapter",
    "RAGResponse",
    "RagAssertionError",
    "RagCase",
    "RagEvalError",
    "RagEvalWarning",
    "Sample",
    "Services",
    "assert_context_precision",
    "assert_context_recall",
    "assert_context_relevance",
    "assert_correct",
    "assert_faithful",
    "assert_metric",
    "assert_relevant",
    "assert_retrieval",
    "assert_similar",
    "evaluate",
    "register_metric",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rag_eval_pytest' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
