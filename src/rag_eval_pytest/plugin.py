"""The pytest entry point (``pytest11: rag_eval``): options, markers, the run's start and the
fixtures. The hooks are methods of one object per process role, registered at the start:

* a run with ``--rag-dataset``: the :class:`~.pytest_support.runner.Runner` (an xdist
  worker's :class:`~.pytest_support.runner.WorkerRunner`), which holds the process's
  :class:`~rag_eval_pytest.engine.session.EvalSession` and engine, and, in the aggregating
  process (a plain run or the xdist controller), the
  :class:`~.pytest_support.aggregation.AggregatingProcess`, which holds the aggregator that
  writes the reports;
* a run without one: the :class:`~.pytest_support.inline.DormantRun`, which imports only
  light modules and registers the same roles when a test first evaluates a case made in
  code (``make_case``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .config.options import OPTIONS, REMOVED_INI_KEYS
from .engine.running import RUNNER_PLUGIN
from .errors import SetupFailed
from .pytest_support.aggregation import CRITICAL_MARKER
from .pytest_support.guard import guarded

if TYPE_CHECKING:
    from collections.abc import Iterator

    from .config.options import OptionSpec
    from .engine.case import RagCase
    from .engine.session import EvalSession
    from .pytest_support.runner import Runner


def pytest_addoption(parser: pytest.Parser) -> None:
    """All processes: the ``--rag-*`` options and their ``rag_*`` ini keys, and the removed
    ini keys (a value given is refused, naming what replaces it)."""
    group = parser.getgroup("rag-eval", "RAG evaluation (rag-eval-pytest)")
    for spec in OPTIONS:
        parser.addini(spec.ini_name, spec.help, type=spec.registered_ini_type, default=None)
        if spec.flag is not None:
            group.addoption(spec.flag, **_flag_arguments(spec))
    for name, instead in REMOVED_INI_KEYS.items():
        parser.addini(name, f"Removed: use {instead}", type="string", default=None)


def _flag_arguments(spec: OptionSpec) -> dict[str, Any]:
    """How argparse reads an option's flag: as a string, validated by the settings model
    (bootstrap.gather_overrides), so that a bad value exits with the fatal code like the same
    value in the ini file."""
    kwargs: dict[str, Any] = {"dest": spec.dest, "help": spec.help, "action": spec.action}
    if spec.action not in ("store_true",):
        kwargs.update(metavar=spec.metavar)
    return {k: v for k, v in kwargs.items() if v is not None}


@pytest.hookimpl(trylast=True)  # after the terminal reporter exists (the dry run prints)
@guarded("pytest_configure")
def pytest_configure(config: pytest.Config) -> None:
    """All processes: register the marker, then the roles of this process (with a dataset),
    or the dormant run (without)."""
    config.addinivalue_line(
        "markers", f"{CRITICAL_MARKER}: a critical RAG check: runs first; its failure exits 2"
    )
    from .pytest_support import startup

    paths = dataset_paths(config)
    if paths:
        startup.start_dataset_run(config, paths)
    else:
        startup.start_dormant_run(config)


def dataset_paths(config: pytest.Config) -> list[Path]:
    """Datasets from the command line (relative to the invocation dir), else from the ini."""
    cli = config.getoption("rag_dataset", None)
    if cli:
        base = config.invocation_params.dir
        return [Path(p) if Path(p).is_absolute() else base / p for p in cli]
    ini = config.getini("rag_dataset")
    return [Path(p) for p in ini] if ini else []


# --------------------------------------------------------------------------- fixtures


def _runner(request: pytest.FixtureRequest, fixture: str) -> Runner:
    """The process's runner; without a dataset, the test is skipped with how to give one."""
    runner: Runner | None = request.config.pluginmanager.get_plugin(RUNNER_PLUGIN)
    if runner is None:
        pytest.skip(f"{fixture} needs a dataset: run pytest with --rag-dataset PATH")
    return runner


@pytest.fixture
def rag_case(request: pytest.FixtureRequest) -> Iterator[RagCase]:
    """The dataset case of this test, with the RAG system's response (queried once per run)."""
    yield from _runner(request, "rag_case").engine.rag_case(request)


@pytest.fixture(scope="session")
def rag_adapter(request: pytest.FixtureRequest) -> Any:
    """The RAG system under test, from ``--rag-adapter``/``--rag-target`` or the config.
    Override this fixture in a conftest to wire your own (any callable or adapter)."""
    session = _runner(request, "rag_adapter").session
    from .adapters.factory import adapter_from_settings

    with _setup_errors_fail(request, session):
        return adapter_from_settings(session.settings, session.search_paths, session.config_file)


@pytest.fixture(scope="session")
def rag_judge(request: pytest.FixtureRequest) -> Any:
    """The judge of the judge-based metrics, from ``--rag-judge`` or config ``judge:``
    (``auto``: Anthropic with ``ANTHROPIC_API_KEY``, else the offline local judge).

    Override it in a conftest to use your own: return a ``Judge``, any ``prompt -> text``
    callable (sync or async; the plugin does the prompting and parsing), or ``None``."""
    engine = _runner(request, "rag_judge").engine
    with _setup_errors_fail(request, engine.session):
        return engine.judges.default()


@contextlib.contextmanager
def _setup_errors_fail(request: pytest.FixtureRequest, session: EvalSession) -> Iterator[None]:
    """A judge or RAG system that cannot be built (a missing key or extra) fails the test
    with one redacted line and stops the run with the fatal code: no traceback, whose
    arguments would print the settings and the environment."""
    from .errors import RagEvalError

    try:
        yield
    except RagEvalError as exc:
        message = session.redactor.text(str(exc))
        request.session.shouldfail = f"rag-eval: {message}"
        raise SetupFailed(message, pytrace=False) from None
