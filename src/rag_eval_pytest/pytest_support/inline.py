"""A run without ``--rag-dataset`` whose tests evaluate cases made in code (``make_case``).

Such a run starts dormant, like any suite that does not use the plugin: one plugin object,
:class:`DormantRun`, is registered. When a test first evaluates a case made in code,
:meth:`DormantRun.activate` makes the process's session and registers the role objects of a
dataset run (the :class:`~.runner.Runner`, and where the reports are written, a plain run or
the xdist controller, the :class:`~.aggregation.AggregatingProcess`): from then on the run
writes its reports, history line and exit code like a dataset run. Until then the dormant
run marks the running test, keeps what the aggregator will need of the earlier tests (those
marked ``rag_critical``), and under xdist wakes the controller when a worker's report first
carries a case.

Imported when a run starts without a dataset: the heavy modules are imported on activation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from ..engine.running import DORMANT_PLUGIN, running
from ..errors import RagEvalError
from .aggregation import (
    CRITICAL_MARKER,
    SETUP_ERROR_ATTRIBUTE,
    AggregatingProcess,
    hand_over,
    mark_setup_error,
    report_payloads,
)
from .guard import guarded

if TYPE_CHECKING:
    from collections.abc import Generator

    from ..engine.engine import Engine
    from ..engine.session import EvalSession
    from ..reporting.aggregator import Aggregator
    from .runner import Runner


def dry_run_without_dataset(config: pytest.Config) -> None:
    """``--rag-dry-run`` without a dataset: check the configuration, say what can be known
    before the tests run (nothing: cases made in code exist only then), and run nothing."""
    from .bootstrap import fatal_exit_code, resolve_config

    try:
        resolve_config(config)
    except RagEvalError as exc:
        error = str(exc)
    else:
        pytest.exit(
            "rag-eval dry run: configuration is valid; no dataset given (--rag-dataset), so "
            "there is nothing to plan: cases made in code (make_case) exist only when their "
            "tests run. Nothing was called.",
            returncode=0,
        )
    pytest.exit(f"rag-eval: {error}", returncode=fatal_exit_code(config))


class DormantRun:
    """Every process of a run without a dataset, until a case is evaluated: makes the run's
    session and role objects on first use; in the aggregating process, keeps the reports of
    tests marked ``rag_critical`` for the aggregator to come, activates the controller when
    a worker's report carries a case, and makes a run fatal when the settings could not be
    read for a case made in code."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.worker = hasattr(config, "workerinput")
        self.runner: Runner | None = None
        self.aggregating: AggregatingProcess | None = None
        self.kept: list[pytest.TestReport] = []
        self.setup_error: str | None = None
        self.activation_error: str | None = None

    @classmethod
    def register(cls, config: pytest.Config) -> DormantRun:
        dormant = cls(config)
        config.pluginmanager.register(dormant, DORMANT_PLUGIN)
        return dormant

    def activate(self) -> Engine:
        """Make the run's session and role objects, once. Raises :class:`RagEvalError` for
        a configuration that is not valid, every time it is asked: no test gets a case
        evaluated under settings that could not be read."""
        if self.runner is not None:
            return self.runner.engine
        if self.activation_error is not None:
            raise RagEvalError(self.activation_error)
        from .runner import Runner, WorkerRunner

        session = self._build_session()
        self.runner = (WorkerRunner if self.worker else Runner).register(self.config, session)
        if not self.worker:
            self._start_aggregating(session)
        return self.runner.engine

    def _build_session(self) -> EvalSession:
        """The process's session, its logs captured and its configuration's notices said;
        the error of settings that could not be read is kept for the next test to ask."""
        from .bootstrap import build_session
        from .log_capture import install

        try:
            session = build_session(self.config, [])
        except RagEvalError as exc:
            self.activation_error = str(exc)
            raise
        install(self.config, session.redactor, sdk_debug=session.settings.judge.sdk_debug_logs)
        for warning in session.config_warnings:
            session.notice(f"rag-eval: {warning}")
        return session

    def _start_aggregating(self, session: EvalSession) -> None:
        """The aggregating role, handed the reports kept while the run was dormant."""
        self.aggregating = AggregatingProcess.register(self.config, session)
        assert self.aggregating.aggregator is not None
        for report in self.kept:
            hand_over(self.aggregating.aggregator, report)
        self.kept.clear()

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None]:
        """The test running now, until the runner marks it itself."""
        if self.runner is not None:
            return (yield)
        with running(item):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """A test whose case could not be evaluated (the settings could not be read) carries
        why, until the runner attaches the reports' payloads itself."""
        report = yield
        if self.runner is None:
            mark_setup_error(call, report)
        return report

    @guarded("pytest_runtest_logreport")
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.worker or self.aggregating is not None:  # the aggregator takes the reports
            return
        self._keep_setup_error(report)
        if report_payloads(report):  # an xdist worker evaluated a case made in code
            self._wake_for(report)
        elif CRITICAL_MARKER in report.keywords:
            self.kept.append(report)

    def _keep_setup_error(self, report: pytest.TestReport) -> None:
        """The first test's reason its case made in code could not be evaluated."""
        setup_error = getattr(report, SETUP_ERROR_ATTRIBUTE, None)
        if isinstance(setup_error, str) and self.setup_error is None:
            self.setup_error = setup_error

    def _wake_for(self, report: pytest.TestReport) -> None:
        """The controller activated by a worker's report that carries a case, and the report
        handed to its aggregator."""
        try:
            self.activate()
        except RagEvalError as exc:  # the worker's test failed with the same message
            self.setup_error = self.setup_error or str(exc)
            return
        # Registered during this call, the aggregator's hooks see the next report.
        aggregator = self._aggregator()
        if aggregator is not None:
            hand_over(aggregator, report)

    @guarded("pytest_sessionfinish", stop="at the end")
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A run whose case made in code could not be evaluated because the settings could
        not be read gives no verdict: the fatal code."""
        if self._unevaluated():
            from .bootstrap import fatal_exit_code

            session.exitstatus = fatal_exit_code(self.config)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self._unevaluated():
            from .bootstrap import fatal_exit_code

            code = fatal_exit_code(self.config)
            terminalreporter.write_line(f"rag-eval: exit {code}: {self.setup_error}")

    def _aggregator(self) -> Aggregator | None:
        return self.aggregating.aggregator if self.aggregating is not None else None

    def _unevaluated(self) -> bool:
        return not self.worker and self.setup_error is not None and self.aggregating is None
