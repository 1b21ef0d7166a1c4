"""The pytest entry point (``pytest11: rag_eval``): options, markers, fixtures and thin hooks.

Dormant without ``--rag-dataset``: this module imports only pytest, the stdlib and a few
light modules of its own, and every hook returns at once until a test evaluates a case made
in code (``make_case``), which activates the run (:mod:`.pytest_support.inline`). With a
dataset, ``pytest_configure`` builds the process's
:class:`~rag_eval_pytest.engine.session.EvalSession` and its engine, and — in the
aggregating process (a plain run or the xdist controller) — a
:class:`~rag_eval_pytest.reporting.aggregator.Aggregator` that writes the reports.
Hooks translate pytest events into calls on those objects.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .config.options import OPTIONS, ini_flag
from .engine.running import ACTIVATE_KEY, ENGINE_KEY, running
from .errors import RagEvalError, SetupFailed
from .pytest_support.aggregation import (
    AGGREGATOR_KEY,
    CRITICAL_MARKER,
    INLINE_ATTRIBUTE,
    REPORT_ATTRIBUTE,
    SETUP_ERROR_ATTRIBUTE,
    prune_judge_cache,
)
from .pytest_support.guard import SESSION_KEY, exit_if_deferred, guarded

if TYPE_CHECKING:
    from collections.abc import Callable, Generator, Iterator

    from .engine.case import RagCase
    from .engine.engine import Engine
    from .engine.session import EvalSession
    from .pytest_support.termination import SigtermAsInterrupt

INTERRUPTED_KEY: pytest.StashKey[bool] = pytest.StashKey()  # Ctrl-C ended the run
NOTICES_KEY: pytest.StashKey[list[str]] = pytest.StashKey()  # warnings a filter made errors
SIGTERM_KEY: pytest.StashKey[SigtermAsInterrupt] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    """All processes: the ``--rag-*`` options and their ``rag_*`` ini keys."""
    group = parser.getgroup("rag-eval", "RAG evaluation (rag-eval-pytest)")
    for spec in OPTIONS:
        parser.addini(spec.ini_name, spec.help, type=spec.registered_ini_type, default=None)
        if spec.flag is None:
            continue
        kwargs: dict[str, Any] = {"dest": spec.dest, "help": spec.help, "action": spec.action}
        if spec.action not in ("store_true",):
            # A string, validated by the settings model (bootstrap.gather_overrides): a bad
            # value exits with the fatal code like the same value in the ini file.
            kwargs.update(metavar=spec.metavar)
        group.addoption(
            spec.flag, *spec.aliases, **{k: v for k, v in kwargs.items() if v is not None}
        )


@pytest.hookimpl(trylast=True)  # after the terminal reporter exists (the dry run prints)
@guarded("pytest_configure")
def pytest_configure(config: pytest.Config) -> None:
    """All processes: register the marker; with a dataset, build the session. Invalid input
    ends the run here, before any test is collected, with one message and the fatal code."""
    config.addinivalue_line(
        "markers", f"{CRITICAL_MARKER}: a critical RAG check: runs first; its failure exits 2"
    )
    paths = dataset_paths(config)
    if not paths:
        _wait_for_inline_cases(config)
        return
    from .pytest_support.bootstrap import build_session, fatal_exit_code
    from .pytest_support.guard import SingleExitMessage

    config.pluginmanager.register(SingleExitMessage(config), "rag_eval_single_exit_message")
    error: RagEvalError | None = None
    try:
        session = build_session(config, paths)
    except RagEvalError as exc:
        error = exc
    if error is not None:
        from .reporting.step_summary import append_fatal_summary

        code = fatal_exit_code(config)
        append_fatal_summary(str(error), code)
        # Raised outside the except block: the exit carries no chained traceback, whose
        # frames' arguments (the raw config, the environment) pytest would render.
        pytest.exit(f"rag-eval: {error}", returncode=code)
    config.stash[SESSION_KEY] = session
    from .engine.engine import Engine

    config.stash[ENGINE_KEY] = Engine(session)
    if hasattr(config, "workerinput"):
        return
    from .pytest_support import notices

    try:
        config.stash[NOTICES_KEY] = notices.issue(
            config, [*session.config_warnings, *session.datasets.warnings]
        )
    except RagEvalError as exc:
        error = exc
    if error is not None:
        pytest.exit(f"rag-eval: {error}", returncode=fatal_exit_code(config))
    if session.settings.dry_run:
        from .pytest_support.dry_run import render_plan

        config.get_terminal_writer().line(render_plan(session))
        pytest.exit("rag-eval: dry run, nothing was called", returncode=0)
    from .pytest_support.aggregation import start_aggregator
    from .pytest_support.termination import SigtermAsInterrupt

    sigterm = config.stash[SIGTERM_KEY] = SigtermAsInterrupt()
    sigterm.install()
    start_aggregator(config, session)
    if config.pluginmanager.hasplugin("xdist"):
        from .pytest_support.xdist import XdistHooks

        config.pluginmanager.register(XdistHooks(session.run), "rag_eval_xdist")


def _wait_for_inline_cases(config: pytest.Config) -> None:
    """A run without a dataset: dormant until a test evaluates a case made in code."""
    from .pytest_support.inline import (
        DORMANT_PLUGIN,
        DormantRun,
        activate,
        dry_run_without_dataset,
    )

    dry = config.getini("rag_dry_run")
    # A value that is not true or false runs the dry run too, which refuses it by name.
    if config.getoption("rag_dry_run", False) or (dry and ini_flag(dry) is not False):
        dry_run_without_dataset(config)
    activation: Callable[[], Engine] = functools.partial(activate, config)
    config.stash[ACTIVATE_KEY] = activation
    if not _is_worker(config):
        config.pluginmanager.register(DormantRun(config), DORMANT_PLUGIN)


@guarded("pytest_unconfigure", stop="at the end")
def pytest_unconfigure(config: pytest.Config) -> None:
    """All processes: close clients and the event loop, and let go of the run's results
    (before pytest's own garbage collection at exit, which then has less to walk)."""
    for name in ("rag_eval_aggregator", "rag_eval_xdist", "rag_eval_dormant"):
        plugin = config.pluginmanager.get_plugin(name)
        if plugin is not None:
            config.pluginmanager.unregister(plugin)
    engine = config.stash.get(ENGINE_KEY, None)
    if engine is not None:
        engine.close(interrupted=config.stash.get(INTERRUPTED_KEY, False))
        del config.stash[ENGINE_KEY]
        del config.stash[SESSION_KEY]
    if AGGREGATOR_KEY in config.stash:
        del config.stash[AGGREGATOR_KEY]
    sigterm = config.stash.get(SIGTERM_KEY, None)
    if sigterm is not None:
        sigterm.restore()
        del config.stash[SIGTERM_KEY]
    if engine is not None:  # what the run let go of is freed by now: the rest goes back
        from .runtime.heap import restore

        restore()


@guarded("pytest_report_header")
def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """The header line: datasets, cases, adapter and judge."""
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        return None
    from .pytest_support.dry_run import header_line

    return [header_line(session), *config.stash.get(NOTICES_KEY, [])]


@guarded("pytest_generate_tests", stop="after collection")
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Workers and plain runs: one test per dataset case for every test taking ``rag_case``."""
    if "rag_case" not in metafunc.fixturenames:
        return
    session = metafunc.config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    metafunc.parametrize(
        "rag_case",
        [
            pytest.param(c.key, id=c.key, marks=[pytest.mark.rag_critical] if c.critical else [])
            for c in session.cases
        ],
        indirect=True,
    )


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Workers and plain runs: the session's collectors get one more per dataset file, last,
    whose items are the zero-code tests when no test takes ``rag_case``."""
    report = yield
    if isinstance(collector, pytest.Session) and report.passed:
        _add_dataset_collectors(collector, report)
    return report


@guarded("pytest_make_collect_report", stop="after collection")
def _add_dataset_collectors(session: pytest.Session, report: pytest.CollectReport) -> None:
    eval_session = session.config.stash.get(SESSION_KEY, None)
    if eval_session is not None:
        from .engine.zero_code import dataset_collectors

        report.result.extend(dataset_collectors(session, eval_session.cases))


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, None, object]:
    """Workers and plain runs with a dataset: the cycle collector paused while pytest
    collects (the test items live to the end of the run; see runtime/heap.py)."""
    if ENGINE_KEY not in session.config.stash:
        return (yield)
    from .runtime.heap import paused_collection

    with paused_collection():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, None, None]:
    """Workers and plain runs. After the other impls (so other reorderings are kept within
    each group): a stable sort that puts critical tests first."""
    exit_if_deferred(config)
    result = yield
    _order_and_plan(config, items)
    return result


@guarded("pytest_collection_modifyitems")
def _order_and_plan(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker(CRITICAL_MARKER) is None)
    engine = config.stash.get(ENGINE_KEY, None)
    if engine is not None and engine.settings.concurrency.prefetch:
        from .engine.progress import terminal_line

        worker = _is_worker(config)
        engine.plan(items, lookahead=worker)
        line = None if worker else terminal_line(config, engine.session.progress)
        if line is not None:
            engine.session.loop.waiter = line.wait
    if engine is not None and items:
        from .runtime.heap import set_aside

        set_aside()


@guarded("pytest_sessionstart")
def pytest_sessionstart(session: pytest.Session) -> None:
    """All processes: pytest's log handlers (created by now) mask secrets and keep the judge
    SDKs' request dumps out."""
    eval_session = session.config.stash.get(SESSION_KEY, None)
    if eval_session is not None:
        from .pytest_support.log_capture import install

        sdk_debug = eval_session.settings.judge.sdk_debug_logs
        install(session.config, eval_session.redactor, sdk_debug=sdk_debug)


@guarded("pytest_collection_finish")
def pytest_collection_finish(session: pytest.Session) -> None:
    """Plain runs (an xdist controller collects nothing): once the kind of suite is known,
    what its judge calls will cost, for a paid judge."""
    eval_session = session.config.stash.get(SESSION_KEY, None)
    if eval_session is None or _is_worker(session.config) or not session.items:
        return
    from .engine.zero_code import zero_code_cases
    from .pytest_support.dry_run import cost_line

    line = cost_line(eval_session, zero_code_cases(session.items, eval_session.datasets))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if line is not None and reporter is not None and session.config.get_verbosity() >= 0:
        reporter.write_line(line)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    """All processes: the test running now, which a case made in code is evaluated by.
    xdist workers: remember the test that runs next, whose case is then evaluated while this
    one runs (a worker learns its tests one at a time)."""
    engine = item.config.stash.get(ENGINE_KEY, None)
    if engine is not None and _is_worker(item.config):
        engine.following = nextitem
    with running(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Workers and plain runs: attach the case payload to the report, which carries it to the
    aggregating process (through xdist's report serialisation when there is one), and the
    scores as user properties (JUnit XML ``<property>`` elements)."""
    _record_properties(item, call)
    report = yield
    _attach_payload(item, call, report)
    return report


@guarded("pytest_runtest_makereport")
def _record_properties(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    if ENGINE_KEY not in item.config.stash or call.when != "call":
        return
    from .engine.case import RECORDER_KEY
    from .engine.inline import inline_properties

    recorder = item.stash.get(RECORDER_KEY, None)
    if recorder is not None:
        item.user_properties.extend(recorder.properties())
    item.user_properties.extend(inline_properties(item))


@guarded("pytest_runtest_makereport")
def _attach_payload(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    if call.excinfo is not None and isinstance(call.excinfo.value, SetupFailed):
        setattr(report, SETUP_ERROR_ATTRIBUTE, str(call.excinfo.value.msg))
    if ENGINE_KEY not in item.config.stash:
        return
    from .engine.case import RECORDER_KEY
    from .engine.inline import INLINE_KEY, inline_finished, inline_payloads

    recorder = item.stash.get(RECORDER_KEY, None)
    carries = report.when == "call" or not report.passed
    if recorder is not None and carries:
        setattr(report, REPORT_ATTRIBUTE, recorder.payload())
    if INLINE_KEY in item.stash and carries:
        setattr(report, INLINE_ATTRIBUTE, inline_payloads(item))
    if call.when == "teardown":  # the reports carry what was recorded
        if recorder is not None:
            del item.stash[RECORDER_KEY]
        inline_finished(item)


@pytest.hookimpl(tryfirst=True)
@guarded("pytest_sessionfinish", stop="at the end")
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """All processes: remember whether Ctrl-C ended the run. Controller and plain runs:
    summarise, write the reports and the history line, and set the exit code (escalating
    only from pytest's own 0 or 1)."""
    session.config.stash[INTERRUPTED_KEY] = exitstatus == pytest.ExitCode.INTERRUPTED
    aggregator = session.config.stash.get(AGGREGATOR_KEY, None)
    if aggregator is None:
        return
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED or bool(
        session.shouldstop or session.shouldfail
    )
    decision = aggregator.finish(
        pytest_status=int(exitstatus), failed_tests=session.testsfailed, interrupted=interrupted
    )
    session.exitstatus = decision.code
    prune_judge_cache(session.config)
    from .runtime.heap import set_aside

    set_aside()  # the report lives until the terminal summary is printed


@guarded("pytest_terminal_summary")
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Controller and plain runs: the summary table, the report paths, the exit reason."""
    aggregator = config.stash.get(AGGREGATOR_KEY, None)
    if aggregator is None:
        return
    if aggregator.report is None and not aggregator.ran_tests:
        terminalreporter.write_line("rag-eval: no test ran: no report or history line written")
        decision = aggregator.decision
        if decision is not None and decision.code != 0:
            terminalreporter.write_line(f"rag-eval: exit {decision.code}: {decision.reason}")
        return
    if aggregator.report is None:
        return
    from .reporting.terminal import summary_lines

    terminalreporter.section("rag-eval")
    for line in summary_lines(aggregator.report, aggregator.written, aggregator.write_errors):
        terminalreporter.line(line)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def rag_case(request: pytest.FixtureRequest) -> Iterator[RagCase]:
    """The dataset case of this test, with the RAG system's response (queried once per run)."""
    engine = request.config.stash.get(ENGINE_KEY, None)
    if engine is None:
        pytest.skip("rag_case needs a dataset: run pytest with --rag-dataset PATH")
    yield from engine.rag_case(request)


@pytest.fixture(scope="session")
def rag_adapter(request: pytest.FixtureRequest) -> Any:
    """The RAG system under test, from ``--rag-adapter``/``--rag-target`` or the config.
    Override this fixture in a conftest to wire your own (any callable or adapter)."""
    session = request.config.stash.get(SESSION_KEY, None)
    if session is None:
        pytest.skip("rag_adapter needs a dataset: run pytest with --rag-dataset PATH")
    from .adapters.factory import adapter_from_settings

    with _setup_errors_fail(request, session):
        return adapter_from_settings(
            session.settings, session.search_paths, session.config_file
        )


@pytest.fixture(scope="session")
def rag_judge(request: pytest.FixtureRequest) -> Any:
    """The judge of the judge-based metrics, from ``--rag-judge`` or config ``judge:``
    (``auto``: Anthropic with ``ANTHROPIC_API_KEY``, else the offline local judge).

    Override it in a conftest to use your own: return a ``Judge``, any ``prompt -> text``
    callable (sync or async; the plugin does the prompting and parsing), or ``None``."""
    engine = request.config.stash.get(ENGINE_KEY, None)
    if engine is None:
        pytest.skip("rag_judge needs a dataset: run pytest with --rag-dataset PATH")
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


# --------------------------------------------------------------------------- helpers


def dataset_paths(config: pytest.Config) -> list[Path]:
    """Datasets from the command line (relative to the invocation dir), else from the ini."""
    cli = config.getoption("rag_dataset", None)
    if cli:
        base = config.invocation_params.dir
        return [Path(p) if Path(p).is_absolute() else base / p for p in cli]
    ini = config.getini("rag_dataset")
    return [Path(p) for p in ini] if ini else []


def _is_worker(config: pytest.Config) -> bool:
    """An xdist worker: it learns which tests it runs one at a time, from the controller."""
    return hasattr(config, "workerinput")
