"""A run without ``--rag-dataset`` whose tests evaluate cases made in code (``make_case``).

Such a run starts dormant, like any suite that does not use the plugin. When a test first
evaluates a case made in code, :func:`activate` makes the process's session and engine and,
where the reports are written (a plain run, the xdist controller), the aggregator: from then
on the run writes its reports, history line and exit code like a dataset run. Until then
:class:`DormantRun` keeps what the aggregator will need of the earlier tests (those marked
``rag_critical``), and under xdist wakes the controller when a worker's report first carries
a case.

Imported by the entry module in every run: the heavy modules are imported on activation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from ..engine.running import ENGINE_KEY
from ..errors import RagEvalError
from .aggregation import (
    AGGREGATOR_KEY,
    CRITICAL_MARKER,
    SETUP_ERROR_ATTRIBUTE,
    hand_over,
    report_payloads,
    start_aggregator,
)
from .guard import SESSION_KEY, guarded

if TYPE_CHECKING:
    from ..engine.engine import Engine

DORMANT_PLUGIN = "rag_eval_dormant"


def activate(config: pytest.Config) -> Engine:
    """Make the run's session and engine (and, in the aggregating process, its aggregator),
    once. Raises :class:`RagEvalError` for a configuration that is not valid, every time it
    is asked: no test gets a case evaluated under settings that could not be read."""
    engine = config.stash.get(ENGINE_KEY, None)
    if engine is not None:
        return engine
    dormant = config.pluginmanager.get_plugin(DORMANT_PLUGIN)
    if isinstance(dormant, DormantRun) and dormant.activation_error is not None:
        raise RagEvalError(dormant.activation_error)
    from ..engine.engine import Engine
    from .bootstrap import build_session
    from .log_capture import install

    try:
        session = build_session(config, [])
    except RagEvalError as exc:
        if isinstance(dormant, DormantRun):
            dormant.activation_error = str(exc)
        raise
    config.stash[SESSION_KEY] = session
    engine = config.stash[ENGINE_KEY] = Engine(session)
    install(config, session.redactor, sdk_debug=session.settings.judge.sdk_debug_logs)
    for warning in session.config_warnings:
        session.notice(f"rag-eval: {warning}")
    if not hasattr(config, "workerinput"):
        aggregator = start_aggregator(config, session)
        if isinstance(dormant, DormantRun):
            for report in dormant.kept:
                hand_over(aggregator, report)
            dormant.kept.clear()
    return engine


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
    """Plain runs and the xdist controller without a dataset, until a case is evaluated:
    keeps the reports of tests marked ``rag_critical`` for the aggregator to come, activates
    the controller when a worker's report carries a case, and makes a run fatal when the
    settings could not be read for a case made in code."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.kept: list[pytest.TestReport] = []
        self.setup_error: str | None = None
        self.activation_error: str | None = None

    @guarded("pytest_runtest_logreport")
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        config = self.config
        aggregator = config.stash.get(AGGREGATOR_KEY, None)
        if aggregator is not None:  # active: the aggregator's own hooks take the reports
            return
        setup_error = getattr(report, SETUP_ERROR_ATTRIBUTE, None)
        if isinstance(setup_error, str) and self.setup_error is None:
            self.setup_error = setup_error
        if report_payloads(report):  # an xdist worker evaluated a case made in code
            try:
                activate(config)
            except RagEvalError as exc:  # the worker's test failed with the same message
                self.setup_error = self.setup_error or str(exc)
                return
            # Registered during this call, the aggregator's hooks see the next report.
            hand_over(config.stash[AGGREGATOR_KEY], report)
        elif CRITICAL_MARKER in report.keywords:
            self.kept.append(report)

    @guarded("pytest_sessionfinish", stop="at the end")
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A run whose case made in code could not be evaluated because the settings could
        not be read gives no verdict: the fatal code."""
        if self.setup_error is not None and AGGREGATOR_KEY not in self.config.stash:
            from .bootstrap import fatal_exit_code

            session.exitstatus = fatal_exit_code(self.config)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.setup_error is not None and AGGREGATOR_KEY not in self.config.stash:
            from .bootstrap import fatal_exit_code

            code = fatal_exit_code(self.config)
            terminalreporter.write_line(f"rag-eval: exit {code}: {self.setup_error}")
