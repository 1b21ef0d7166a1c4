"""rag-eval-pytest: RAG quality assertions for pytest.

The public names are loaded on first use, so importing the plugin entry point costs nothing
beyond pytest when ``--rag-dataset`` is not given. They are written once, as the imports
below: type checkers read them there, and the first lookup of a public name (or of
``__all__``) reads the same lines to know which module to load it from.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the public names: `X as X` exports each to type checkers
    from .adapters.base import RAGAdapter as RAGAdapter
    from .adapters.callable import CallableAdapter as CallableAdapter
    from .data.dataset import Case as Case
    from .data.response import Context as Context
    from .data.response import RAGResponse as RAGResponse
    from .engine.assertions import RagAssertionError as RagAssertionError
    from .engine.assertions import assert_context_precision as assert_context_precision
    from .engine.assertions import assert_context_recall as assert_context_recall
    from .engine.assertions import assert_context_relevance as assert_context_relevance
    from .engine.assertions import assert_correct as assert_correct
    from .engine.assertions import assert_criteria as assert_criteria
    from .engine.assertions import assert_faithful as assert_faithful
    from .engine.assertions import assert_metric as assert_metric
    from .engine.assertions import assert_rag as assert_rag
    from .engine.assertions import assert_relevant as assert_relevant
    from .engine.assertions import assert_retrieval as assert_retrieval
    from .engine.assertions import assert_similar as assert_similar
    from .engine.assertions import evaluate as evaluate
    from .engine.case import RagCase as RagCase
    from .engine.inline import make_case as make_case
    from .engine.inline import make_conversation as make_conversation
    from .errors import AdapterError as AdapterError
    from .errors import ConfigError as ConfigError
    from .errors import DatasetError as DatasetError
    from .errors import RagEvalError as RagEvalError
    from .errors import RagEvalWarning as RagEvalWarning
    from .errors import ReportError as ReportError
    from .judges.base import Judge as Judge
    from .judges.callable import CallableJudge as CallableJudge
    from .metrics.base import Evidence as Evidence
    from .metrics.base import Measurement as Measurement
    from .metrics.base import Metric as Metric
    from .metrics.base import MetricResult as MetricResult
    from .metrics.base import Sample as Sample
    from .metrics.base import Services as Services
    from .metrics.registry import register_metric as register_metric
    from .reporting.models import Report as Report
    from .reporting.reader import load_report as load_report

if TYPE_CHECKING:  # for the annotations of the reader below, which imports it when it runs
    import ast
    from collections.abc import Iterator

_exports: dict[str, str] = {}
"""Each public name -> the module it is loaded from (relative), once read."""


def _public_names() -> dict[str, str]:
    """The imports above, read from this file's source on first use (``ast`` and the file
    only then: a run that uses no public name reads neither)."""
    if not _exports:
        import ast
        from pathlib import Path

        tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
        _exports.update(_imported_names(_names_block(tree)))
    return _exports


def _names_block(tree: ast.Module) -> ast.If:
    """The first ``if TYPE_CHECKING:`` block, the public names'."""
    import ast

    return next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )


def _imported_names(block: ast.If) -> Iterator[tuple[str, str]]:
    """Each name the block imports, with the module it imports it from."""
    import ast

    for stmt in block.body:
        if isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
            yield from ((alias.name, module) for alias in stmt.names)


def __getattr__(name: str) -> Any:
    if name == "__all__":
        value: Any = sorted(_public_names())
    elif name in _public_names():
        module = importlib.import_module(_public_names()[name], __name__)
        value = getattr(module, name)
    else:
        raise AttributeError(f"module 'rag_eval_pytest' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_public_names()})
