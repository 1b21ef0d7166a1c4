"""The integration lane: pytest runs inside a test (pytester), subprocesses, loopback servers
and the local model. Every test under this folder is marked ``integration``, so
``pytest -m "not integration"`` runs the unit lane alone."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import json
import sys
import sysconfig
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import _pytest._code.code
import pytest
from _pytest._code.source import Source
from _pytest.pytester import SysModulesSnapshot

from tests.helpers import APP, DEFAULT_CASES, preload_plugin_modules
from tests.servers.fake_llm import FakeLLMServer

# In-process pytester runs drop the modules they imported when they end; loading the
# plugin's modules here first keeps one copy of each class across all inner runs (libraries
# are kept by the fixture below). Done here, not in tests/conftest.py: the unit lane does not
# pay for it.
preload_plugin_modules()

HERE = Path(__file__).parent

LIBRARIES = tuple(
    {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
)


_LIBRARY: dict[str, bool] = {}


def _a_library(name: str) -> bool:
    """Whether a module is the standard library's or an installed package's (not a test
    file, a conftest or the plugin's own source), as pytester also keeps zope's. Asked of
    every loaded module (thousands, with PyTorch) at the end of every in-process run: a
    library's answer is kept, as it stays loaded."""
    known = _LIBRARY.get(name)
    if known is not None:
        return known
    if name.startswith(("zope", "readline")):
        return True
    module = sys.modules.get(name)
    where = getattr(module, "__file__", None) or next(iter(getattr(module, "__path__", ())), "")
    if not where and "." in name:  # a compiled module's own submodule (torch._C._distributed)
        return _a_library(name.partition(".")[0])
    library = isinstance(where, str) and where.startswith(LIBRARIES)
    if library:
        _LIBRARY[name] = True
    return library


@pytest.fixture(autouse=True, scope="session")
def _inner_runs_keep_the_libraries_they_import() -> Iterator[None]:
    """pytester drops every module an in-process run (or the test around it) imported when
    it ends; a library imported there again later can then fail to load in the same process
    (numpy.fft: "cannot load module more than once per process"; transformers registers
    PyTorch operators once per process). The libraries stay loaded; test files, conftests
    and their same-named modules across runs are still dropped."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            pytest.Pytester,
            "_Pytester__take_sys_modules_snapshot",
            lambda self: SysModulesSnapshot(preserve=_a_library),
        )
        yield


_PARSED: dict[str, ast.AST] = {}
_statement_range = _pytest._code.code.getstatementrange_ast


def _statement_range_of_a_file_parsed_once(
    lineno: int, source: Source, assertion: bool = False, astnode: ast.AST | None = None
) -> tuple[ast.AST, int, int]:
    """pytest's ``getstatementrange_ast``, given each file's syntax tree parsed once for the
    worker rather than once per traceback: the same tree, the same range."""
    if astnode is None:
        content = str(source)
        astnode = _PARSED.get(content)
        if astnode is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                astnode = _PARSED[content] = ast.parse(content, "source", "exec")
    return _statement_range(lineno, source, assertion, astnode)


@pytest.fixture(autouse=True, scope="session")
def _tracebacks_parse_each_file_once() -> Iterator[None]:
    """A run that ends with ``pytest.exit`` (every fatal error of the plugin) has pytest
    format the whole traceback of the exit, parsing the source file of every frame in it;
    the hundreds of fatal in-process runs here parsed the same few files again each time,
    a third of the CPU time of a file of such runs. The trees are kept for the worker."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            _pytest._code.code, "getstatementrange_ast", _statement_range_of_a_file_parsed_once
        )
        yield


class _ReadOnce(importlib.metadata.PathDistribution):
    """An installed distribution whose metadata, entry points and file list are read once."""

    metadata = functools.cached_property(importlib.metadata.PathDistribution.metadata.fget)  # type: ignore[assignment,arg-type]
    entry_points = functools.cached_property(  # type: ignore[assignment]
        importlib.metadata.PathDistribution.entry_points.fget  # type: ignore[arg-type]
    )
    files = functools.cached_property(importlib.metadata.PathDistribution.files.fget)  # type: ignore[assignment,arg-type]


@pytest.fixture(autouse=True, scope="session")
def _inner_runs_read_the_installed_distributions_once() -> Iterator[None]:
    """Each in-process run has pytest and pluggy list every installed distribution, read the
    entry points of each and the file list of each pytest plugin (to find its plugins and
    the modules to rewrite), again for every run. The environment does not change
    during the run: the list is read once."""
    listed: list[importlib.metadata.Distribution] = [
        _ReadOnce(d._path) if type(d) is importlib.metadata.PathDistribution else d  # type: ignore[attr-defined]
        for d in importlib.metadata.distributions()
    ]
    every = importlib.metadata.distributions

    def distributions(**search: Any) -> Iterator[importlib.metadata.Distribution]:
        return iter(listed) if not search else iter(every(**search))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(importlib.metadata, "distributions", distributions)
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def write_dataset(pytester: pytest.Pytester) -> Callable[..., Path]:
    """Write a JSON dataset in the pytester directory and return its path."""

    def write(
        cases: list[dict[str, Any]] | None = None,
        name: str = "dataset.json",
        metadata: dict[str, Any] | None = None,
    ) -> Path:
        doc = {
            "metadata": {"name": "t", "created": "2099-01-01"} if metadata is None else metadata,
            "test_cases": DEFAULT_CASES if cases is None else cases,
        }
        path = pytester.path / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        return path

    return write


@pytest.fixture
def rag_app(pytester: pytest.Pytester) -> str:
    """A tiny keyword-retrieval RAG app as ``app:answer``: tc_003's question misses."""
    pytester.makepyfile(app=APP)
    pytester.syspathinsert()
    return "app:answer"


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """The scripted fake LLM server (Messages and Chat Completions APIs) on 127.0.0.1."""
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()
