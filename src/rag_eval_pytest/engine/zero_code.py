"""Zero-code mode: with ``--rag-dataset`` and no test taking ``rag_case``, one test per case
checks every configured metric against its configured threshold.

The items are ordinary ``pytest.Function`` items under a collector for the dataset file, with
node ids like ``data/qa.json::tc_001``. They belong to the dataset file's folder: its collector
hangs under pytest's own collector of that folder (or of the nearest folder above it that was
collected), so the conftests that apply to a test file there apply to them (a conftest's
``rag_adapter`` and ``rag_judge``, its autouse fixtures). A ``rag_adapter`` or ``rag_judge`` of
a conftest they cannot see is named in a warning (:func:`unseen_fixtures`).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from ..metrics.registry import DEFAULT_METRICS, registered_names
from .assertions import check_together

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

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
    """Collector standing for a dataset file, under its folder's collector; its children are
    the zero-code items."""

    cases: list[LoadedCase]

    def collect(self) -> list[pytest.Item]:
        items: list[pytest.Item] = []
        shared: dict[str, Any] = {}  # the first item's fixtures, which its siblings share
        for loaded in self.cases:
            item = ZeroCodeItem.from_parent(
                self, name=loaded.key, callobj=rag_dataset_case, **shared
            )
            shared.setdefault("fixtureinfo", item._fixtureinfo)
            item.stash[ZERO_CODE_CASE] = loaded.key
            if loaded.critical:
                item.add_marker("rag_critical")
            items.append(item)
        return items


class ZeroCodeTests(pytest.Collector):
    """The zero-code tests, added to the session's own collectors, after the test files, so
    it is expanded after them, during collection (pytest counts its items, ``--collect-only``
    lists them, ``--lf`` and ``--deselect`` see them): when no test collected before it takes
    ``rag_case``, it gives one :class:`DatasetFile` per dataset file, each under the
    collector of its folder, which pytest built by then."""

    cases: list[LoadedCase]
    folders: Mapping[Path, pytest.Collector]
    """pytest's collector of each folder collected, by path (filled as pytest collects)."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        if any(
            "rag_case" in getattr(item, "fixturenames", ())
            for item in self.session.items
            if not isinstance(item, ZeroCodeItem)
        ):
            return []
        files: dict[Path, DatasetFile] = {}
        for loaded in self.cases:
            path = loaded.dataset.resolve()
            if path not in files:
                files[path] = DatasetFile.from_parent(self._folder_of(path), path=path)
                files[path].cases = []
            files[path].cases.append(loaded)
        return list(files.values())

    def _folder_of(self, path: Path) -> pytest.Collector:
        """The collector of ``path``'s folder, else of the nearest folder above it that pytest
        collected, else the session (whose conftests apply to every test)."""
        for folder in path.parents:
            if folder in self.folders:
                return self.folders[folder]
        return self.session


def dataset_collectors(
    session: pytest.Session,
    cases: list[LoadedCase],
    folders: Mapping[Path, pytest.Collector],
) -> list[pytest.Collector]:
    """The collector of the zero-code tests, last among the session's."""
    collector = ZeroCodeTests.from_parent(session, name="rag-eval zero-code tests")
    collector.cases = cases
    collector.folders = folders
    return [collector]


PLUGIN_FIXTURES = ("rag_adapter", "rag_judge")


def _conftest_fixtures(config: pytest.Config) -> Iterator[tuple[str, Path]]:
    """Each ``rag_adapter`` and ``rag_judge`` a conftest of the run defines, with its file."""
    for plugin in config.pluginmanager.get_plugins():
        file = _conftest_file(plugin)
        if file is None:
            continue
        for name in PLUGIN_FIXTURES:
            if callable(vars(plugin).get(name)):
                yield name, file


def _conftest_file(plugin: object) -> Path | None:
    """The file of a plugin that is a conftest module."""
    file = getattr(plugin, "__file__", None) if isinstance(plugin, ModuleType) else None
    if file is None or Path(file).name != "conftest.py":
        return None
    return Path(file).resolve()


def _anchors(items: Sequence[pytest.Item]) -> dict[Path, Path]:
    """Each dataset file of the zero-code tests, with the folder its tests belong to."""
    anchors: dict[Path, Path] = {}
    for item in items:
        file = item.parent if isinstance(item, ZeroCodeItem) else None
        if file is not None and file.parent is not None:
            anchors.setdefault(file.path, file.parent.path)
    return anchors


def unseen_fixtures(config: pytest.Config, items: Sequence[pytest.Item]) -> list[str]:
    """One line per ``rag_adapter`` or ``rag_judge`` of a conftest that the zero-code tests
    of a dataset file cannot see: a conftest applies to the tests of its own folder and of
    the folders below it. Such a fixture is not used, and must not go unsaid."""
    lines = []
    for dataset, anchor in _anchors(items).items():
        for name, conftest in _conftest_fixtures(config):
            if conftest.parent != anchor and conftest.parent not in anchor.parents:
                lines.append(
                    f"the zero-code tests of {_shown(config, dataset)} cannot see the {name} "
                    f"fixture of {_shown(config, conftest)} (a conftest applies to its own "
                    f"folder and the folders below it): they do not use it; put the dataset "
                    f"in {_shown(config, conftest.parent)} (or below), or the fixture in a "
                    f"conftest.py of {_shown(config, dataset.parent)} or a folder above it"
                )
    return lines


def _shown(config: pytest.Config, path: Path) -> str:
    """A path as the user would name it: relative to the rootdir when below it."""
    try:
        return str(path.relative_to(config.rootpath)) or "."
    except ValueError:
        return str(path)


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
