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
    from .data.dataset import Case
    from .data.response import Context, RAGResponse
    from .engine.assertions import (
        RagAssertionError,
        assert_context_precision,
        assert_context_recall,
        assert_context_relevance,
        assert_correct,
        assert_criteria,
        assert_faithful,
        assert_metric,
        assert_rag,
        assert_relevant,
        assert_retrieval,
        assert_similar,
        evaluate,
    )
    from .engine.case import RagCase
    from .engine.inline import make_case, make_conversation
    from .errors import (
        AdapterError,
        ConfigError,
        DatasetError,
        RagEvalError,
        RagEvalWarning,
        ReportError,
    )
    from .metrics.base import Evidence, Measurement, Metric, MetricResult, Sample, Services
    from .metrics.registry import register_metric
    from .reporting.models import Report
    from .reporting.reader import load_report

_EXPORTS: dict[str, str] = {
    "RAGAdapter": ".adapters.base",
    "CallableAdapter": ".adapters.callable",
    "RagAssertionError": ".engine.assertions",
    "assert_context_precision": ".engine.assertions",
    "assert_context_recall": ".engine.assertions",
    "assert_context_relevance": ".engine.assertions",
    "assert_correct": ".engine.assertions",
    "assert_criteria": ".engine.assertions",
    "assert_faithful": ".engine.assertions",
    "assert_metric": ".engine.assertions",
    "assert_rag": ".engine.assertions",
    "assert_relevant": ".engine.assertions",
    "assert_retrieval": ".engine.assertions",
    "assert_similar": ".engine.assertions",
    "evaluate": ".engine.assertions",
    "RagCase": ".engine.case",
    "make_case": ".engine.inline",
    "make_conversation": ".engine.inline",
    "Case": ".data.dataset",
    "AdapterError": ".errors",
    "ConfigError": ".errors",
    "DatasetError": ".errors",
    "RagEvalError": ".errors",
    "RagEvalWarning": ".errors",
    "ReportError": ".errors",
    "Evidence": ".metrics.base",
    "Measurement": ".metrics.base",
    "Metric": ".metrics.base",
    "MetricResult": ".metrics.base",
    "Sample": ".metrics.base",
    "Services": ".metrics.base",
    "register_metric": ".metrics.registry",
    "Report": ".reporting.models",
    "load_report": ".reporting.reader",
    "Context": ".data.response",
    "RAGResponse": ".data.response",
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
    "Report",
    "ReportError",
    "Sample",
    "Services",
    "assert_context_precision",
    "assert_context_recall",
    "assert_context_relevance",
    "assert_correct",
    "assert_criteria",
    "assert_faithful",
    "assert_metric",
    "assert_rag",
    "assert_relevant",
    "assert_retrieval",
    "assert_similar",
    "evaluate",
    "load_report",
    "make_case",
    "make_conversation",
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
