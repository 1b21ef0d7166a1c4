"""Zero-code mode: with ``--rag-dataset`` and no test taking ``rag_case``, one test per case
checks every configured metric against its configured threshold.

The items are ordinary ``pytest.Function`` items under a collector for the dataset file, so
they get fixtures (a conftest's ``rag_adapter``) and node ids like ``data/qa.json::tc_001``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .assertions import check_results
from .metrics.registry import registered_names

if TYPE_CHECKING:
    from pathlib import Path

    from .case import RagCase
    from .config import Settings
    from .dataset import LoadedCase

# The metrics a case is checked on when the config names none: the composite's four, then
# retrieval (judged only for cases with expected_contexts).
DEFAULT_METRICS = (
    "faithfulness",
    "answer_relevance",
    "context_precision",
    "context_recall",
    "retrieval_precision",
    "retrieval_recall",
)

ZERO_CODE_CASE = pytest.StashKey[str]()


def configured_metrics(settings: Settings) -> list[tuple[str, float | None]]:
    """(metric, per-case threshold or None for the metric's default), in check order."""
    if settings.metrics is not None:
        return list(settings.metrics.items())
    available = registered_names()
    names = list(DEFAULT_METRICS)
    if settings.answer_comparison is not None:
        names.append(f"answer_{settings.answer_comparison}")
    return [(name, None) for name in names if name in available]


def check_case(rag_case: RagCase) -> None:
    """The body of every zero-code test."""
    __tracebackhide__ = True
    requested = configured_metrics(rag_case.settings)
    results = rag_case.evaluate_many([(metric, threshold, {}) for metric, threshold in requested])
    check_results(results, rag_case)
    # Checked on every configured metric: one the judge failed on leaves the case unchecked,
    # not passed (skipped, or failed with ``not_judged: fail``), whatever else was judged.
    unjudged = [r for r in results if r.judge_failed]
    if unjudged:
        check_results(unjudged, rag_case)


def rag_dataset_case(rag_case: RagCase) -> None:
    """Check the configured metrics of one dataset case (zero-code mode)."""
    __tracebackhide__ = True
    check_case(rag_case)


class DatasetCaseItem(pytest.Function):
    """A zero-code test: reported as ``<dataset>::<case id>``."""

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class DatasetFile(pytest.File):
    """Collector standing for a dataset file; its children are the zero-code items."""

    def collect(self) -> list[pytest.Item]:  # pragma: no cover - items are built directly
        return []


def zero_code_items(session: pytest.Session, cases: list[LoadedCase]) -> list[pytest.Item]:
    items: list[pytest.Item] = []
    parents: dict[Path, DatasetFile] = {}
    for loaded in cases:
        parent = parents.get(loaded.dataset)
        if parent is None:
            parent = DatasetFile.from_parent(session, path=loaded.dataset.resolve())
            parents[loaded.dataset] = parent
        item = DatasetCaseItem.from_parent(parent, name=loaded.key, callobj=rag_dataset_case)
        item.stash[ZERO_CODE_CASE] = loaded.key
        if loaded.critical:
            item.add_marker("rag_critical")
        items.append(item)
    return items
