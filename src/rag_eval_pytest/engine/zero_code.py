"""Zero-code mode: with ``--rag-dataset`` and no test taking ``rag_case``, one test per case
checks every configured metric against its configured threshold.

The items are ordinary ``pytest.Function`` items under a collector for the dataset file, so
they get fixtures (a conftest's ``rag_adapter``) and node ids like ``data/qa.json::tc_001``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from ..metrics.registry import DEFAULT_METRICS, registered_names
from .assertions import check_together

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..config.settings import Settings
    from ..data.dataset import DatasetCollection, LoadedCase
    from .case import RagCase

ZERO_CODE_CASE = pytest.StashKey[str]()


class ConfiguredMetric(NamedTuple):
    """A metric the zero-code tests check: its per-case threshold (``None``: the metric's
    default) and its parameters."""

    name: str
    threshold: float | None
    params: dict[str, Any]


def configured_metrics(settings: Settings) -> list[ConfiguredMetric]:
    """The metrics the zero-code tests check, in check order."""
    if settings.metrics is not None:
        return [
            ConfiguredMetric(name, entry.threshold, entry.params)
            for name, entry in settings.metrics.items()
        ]
    available = registered_names()
    names = list(DEFAULT_METRICS)
    if settings.answer_comparison is not None:
        names.append(f"answer_{settings.answer_comparison}")
    return [ConfiguredMetric(name, None, {}) for name in names if name in available]


def check_case(rag_case: RagCase) -> None:
    """The body of every zero-code test."""
    __tracebackhide__ = True
    requested = configured_metrics(rag_case.settings)
    results = rag_case.evaluate_many(
        [(metric.name, metric.threshold, metric.params) for metric in requested]
    )
    check_together(results, rag_case)


def rag_dataset_case(rag_case: RagCase) -> None:
    """Check the configured metrics of one dataset case (zero-code mode)."""
    __tracebackhide__ = True
    check_case(rag_case)


class ZeroCodeItem(pytest.Function):
    """A zero-code test: reported as ``<dataset>::<case id>``."""

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class DatasetFile(pytest.File):
    """Collector standing for a dataset file; its children are the zero-code items.

    Added to the session's own collectors, after the test files, so it is expanded after
    them, during collection (pytest counts its items, ``--collect-only`` lists them, ``--lf``
    and ``--deselect`` see them): it collects one item per case when no test collected
    before it takes ``rag_case``, else nothing."""

    cases: list[LoadedCase]

    def collect(self) -> list[pytest.Item]:
        if any(
            "rag_case" in getattr(item, "fixturenames", ())
            for item in self.session.items
            if not isinstance(item, ZeroCodeItem)
        ):
            return []
        items: list[pytest.Item] = []
        for loaded in self.cases:
            item = ZeroCodeItem.from_parent(self, name=loaded.key, callobj=rag_dataset_case)
            item.stash[ZERO_CODE_CASE] = loaded.key
            if loaded.critical:
                item.add_marker("rag_critical")
            items.append(item)
        return items


def dataset_collectors(session: pytest.Session, cases: list[LoadedCase]) -> list[DatasetFile]:
    """One collector per dataset file, holding that file's selected cases."""
    collectors: dict[Path, DatasetFile] = {}
    for loaded in cases:
        collector = collectors.get(loaded.dataset)
        if collector is None:
            collector = DatasetFile.from_parent(session, path=loaded.dataset.resolve())
            collector.cases = []
            collectors[loaded.dataset] = collector
        collector.cases.append(loaded)
    return list(collectors.values())


def zero_code_cases(
    items: Sequence[pytest.Item], datasets: DatasetCollection
) -> list[LoadedCase] | None:
    """The cases of a zero-code suite's selected tests; ``None`` when a test takes
    ``rag_case`` (such a suite chooses its metrics as its tests run)."""
    if any(
        "rag_case" in getattr(item, "fixturenames", ())
        for item in items
        if not isinstance(item, ZeroCodeItem)
    ):
        return None
    by_key = datasets.by_key()
    return [by_key[i.stash[ZERO_CODE_CASE]] for i in items if isinstance(i, ZeroCodeItem)]
