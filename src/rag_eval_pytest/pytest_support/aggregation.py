"""The aggregating process (a plain run, or the xdist controller): one plugin object whose
methods are the hooks of that role and whose attributes are its state, above all the
:class:`~rag_eval_pytest.reporting.aggregator.Aggregator` that writes the reports.

Imported by the entry module in every run: the heavy modules are imported when a run
evaluates cases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import pytest

from .guard import AGGREGATING_PLUGIN, guarded

if TYPE_CHECKING:
    from ..engine.session import EvalSession
    from ..reporting.aggregator import Aggregator
    from ..reporting.payload import CasePayload
    from .termination import SigtermAsInterrupt

CRITICAL_MARKER = "rag_critical"

# What travels on a test report, from the process that ran the test to this one (xdist
# serialises report attributes): JSON-safe payloads (reporting/payload.py) and a setup error.
REPORT_ATTRIBUTE = "rag_eval"
"""The payload of the test's dataset case."""
INLINE_ATTRIBUTE = "rag_eval_inline"
"""The payloads of the cases the test made in code."""
SETUP_ERROR_ATTRIBUTE = "rag_eval_setup_error"
"""Why the test could not get its judge or RAG system (the run is fatal)."""


class AggregatingProcess:
    """The aggregating process's hooks, and its state: the session, the
    :class:`~rag_eval_pytest.reporting.aggregator.Aggregator`, the notices of the header and
    the SIGTERM handler. pytest keeps registered plugins to the end: the aggregator (every
    case's results) is let go of at ``pytest_unconfigure``."""

    def __init__(
        self, config: pytest.Config, session: EvalSession, notices: list[str] | None = None
    ) -> None:
        from ..reporting.aggregator import Aggregator
        from .bootstrap import output_dir

        self.config = config
        self.session = session
        self.notices = notices or []
        self.sigterm: SigtermAsInterrupt | None = None
        self.aggregator: Aggregator | None = Aggregator(
            settings=session.settings,
            datasets=session.datasets,
            run=session.run,
            redactor=session.redactor,
            output_dir=output_dir(config, session),
            rootdir=config.rootpath,
            version=_package_version(),
            adapter_label=_adapter_label(session),
        )

    @classmethod
    def register(
        cls, config: pytest.Config, session: EvalSession, notices: list[str] | None = None
    ) -> AggregatingProcess:
        process = cls(config, session, notices)
        config.pluginmanager.register(process, AGGREGATING_PLUGIN)
        config.pluginmanager.register(PayloadRelease(process), f"{AGGREGATING_PLUGIN}-release")
        return process

    def handle_sigterm(self) -> None:
        """SIGTERM (a CI runner cancelling the job) ends the run like Ctrl-C: reports kept."""
        from .termination import SigtermAsInterrupt

        self.sigterm = SigtermAsInterrupt()
        self.sigterm.install()

    # ------------------------------------------------------------------ the run

    @guarded("pytest_report_header")
    def pytest_report_header(self) -> list[str]:
        """The header line: datasets, cases, adapter and judge; then the notices."""
        from .dry_run import header_line

        return [header_line(self.session), *self.notices]

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist controller: send the run identity to a starting worker, so all processes
        agree on the run id and start time."""
        import dataclasses

        from .bootstrap import WORKER_RUN_KEY

        node.workerinput[WORKER_RUN_KEY] = dataclasses.asdict(self.session.run)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        if self.aggregator is not None:  # why pytest stopped ("1 error during collection")
            self.aggregator.interruption = str(excinfo.value)
            # Ctrl-C or SIGTERM (not pytest's own stops: collection errors, pytest.exit)
            self.aggregator.signalled = isinstance(
                excinfo.value, KeyboardInterrupt
            ) and not isinstance(excinfo.value, pytest.Session.Interrupted)

    @pytest.hookimpl(tryfirst=True)
    @guarded("pytest_runtest_logreport")
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Take the report's results before the terminal shows its outcome: a Ctrl-C right
        after "PASSED" is on the screen keeps that case in the partial reports."""
        if self.aggregator is not None:
            hand_over(self.aggregator, report)

    # ------------------------------------------------------------------ the end

    @pytest.hookimpl(tryfirst=True)
    @guarded("pytest_sessionfinish", stop="at the end")
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Summarise, write the reports and the history line, and set the exit code
        (escalating only from pytest's own 0 or 1)."""
        if self.aggregator is None:
            return
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED or bool(
            session.shouldstop or session.shouldfail
        )
        decision = self.aggregator.finish(
            pytest_status=int(exitstatus), failed_tests=session.testsfailed, interrupted=interrupted
        )
        session.exitstatus = decision.code
        self.prune_judge_cache()
        from ..runtime.heap import set_aside

        set_aside()  # the report lives until the terminal summary is printed

    def prune_judge_cache(self) -> None:
        """Once per run, at its end, in the process that aggregates it (the workers have
        written their entries by then): remove the judge cache's entries not used for
        ``judge.cache_max_age_days`` and the least recently used past ``judge.cache_max_mb``,
        so a cache saved after every CI run does not only grow."""
        from ..judges.cache import prune_cache
        from ..judges.run_config import cache_for

        judge = self.session.settings.judge
        cache = cache_for(judge, self.session.judge_cache_dir)
        if cache is not None:
            prune_cache(
                cache.directory, max_age_days=judge.cache_max_age_days, max_mb=judge.cache_max_mb
            )

    @guarded("pytest_terminal_summary")
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The summary table, the report paths, the exit reason."""
        aggregator = self.aggregator
        if aggregator is None:
            return
        if aggregator.report is None and not aggregator.ran_tests:
            _say_nothing_ran(terminalreporter, aggregator)
        elif aggregator.report is not None:
            _write_summary(terminalreporter, aggregator)

    @guarded("pytest_unconfigure", stop="at the end")
    def pytest_unconfigure(self) -> None:
        """Let go of the run's results, and give SIGTERM back its handler."""
        self.aggregator = None
        if self.sigterm is not None:
            self.sigterm.restore()
            self.sigterm = None


def _say_nothing_ran(terminalreporter: Any, aggregator: Aggregator) -> None:
    """No report when no test ran; the exit reason when that run still fails."""
    terminalreporter.write_line("rag-eval: no test ran: no report or history line written")
    decision = aggregator.decision
    if decision is not None and decision.code != 0:
        terminalreporter.write_line(f"rag-eval: exit {decision.code}: {decision.reason}")


def _write_summary(terminalreporter: Any, aggregator: Aggregator) -> None:
    """The run's section: its summary table, the report paths and the exit reason."""
    from ..reporting.terminal import summary_lines

    assert aggregator.report is not None
    terminalreporter.section("rag-eval")
    for line in summary_lines(aggregator.report, aggregator.written, aggregator.write_errors):
        terminalreporter.line(line)


def mark_setup_error(call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """A test whose judge or RAG system could not be built carries why, for the aggregating
    process (the run is fatal)."""
    from ..errors import SetupFailed

    if call.excinfo is not None and isinstance(call.excinfo.value, SetupFailed):
        setattr(report, SETUP_ERROR_ATTRIBUTE, str(call.excinfo.value.msg))


class PayloadRelease:
    """Lets go of what pytest would keep of a report to the end of the run and nothing reads,
    once every plugin has seen the report whole: its payloads (the aggregator took them
    first), a passed setup or teardown report that prints nothing from the terminal
    reporter's list of them (:func:`forget_silent_report`), and a worker's failure of the
    plugin's assertion kept as its text (:func:`.failures.compact_sent_failure`)."""

    def __init__(self, process: AggregatingProcess) -> None:
        self.process = process

    @pytest.hookimpl(trylast=True)
    @guarded("pytest_runtest_logreport")
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.process.aggregator is not None:
            for name in (REPORT_ATTRIBUTE, INLINE_ATTRIBUTE):
                if name in report.__dict__:
                    delattr(report, name)
            reporter = self.process.config.pluginmanager.get_plugin("terminalreporter")
            stats = getattr(reporter, "stats", None)  # pytest's, or a stand-in's without
            if isinstance(stats, dict):
                forget_silent_report(stats, report)
            if report.failed:
                from .failures import compact_sent_failure

                compact_sent_failure(self.process.config, report)


def forget_silent_report(stats: dict[str, list[Any]], report: pytest.TestReport) -> None:
    """Take ``report`` back out of the terminal reporter's ``stats`` (it was added last) when
    it is a passed setup or teardown that prints nothing: one without a teardown section
    (captured output or logs), the only part of these reports pytest shows. pytest searches
    that list once per failing test for its teardown's output, so with every such report kept
    a run of many failures spent its summary's time quadratic in the run's tests (minutes at
    tens of thousands), and memory on reports nobody reads."""
    kept = stats.get("")
    if not kept or kept[-1] is not report:
        return
    if report.passed and not any("teardown" in name for name, _ in report.sections):
        kept.pop()


def hand_over(aggregator: Aggregator, report: pytest.TestReport) -> None:
    """Give the aggregator one test report: its outcome and the payloads it carries (the
    dataset case of a test taking ``rag_case``, the cases the test made in code)."""
    setup_error = getattr(report, SETUP_ERROR_ATTRIBUTE, None)
    if isinstance(setup_error, str):
        aggregator.setup_failed(setup_error)
    payloads: list[CasePayload | None] = [*report_payloads(report)] or [None]
    for payload in payloads:
        aggregator.add_report(
            nodeid=report.nodeid,
            when=report.when,
            outcome=report.outcome,
            payload=payload,
            critical_marker=CRITICAL_MARKER in report.keywords,
            message=short_message(report),
        )


def report_payloads(report: pytest.TestReport) -> list[CasePayload]:
    """The case payloads a test report carries."""
    found: list[Any] = [getattr(report, REPORT_ATTRIBUTE, None)]
    found.extend(getattr(report, INLINE_ATTRIBUTE, None) or [])
    if found == [None]:
        return []
    from ..reporting.payload import is_payload

    return [p for p in found if is_payload(p)]


def short_message(report: pytest.TestReport) -> str | None:
    """The one-line reason of a failed or skipped test, for the reports."""
    if report.passed:
        return None
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, lineno, reason)
        return str(longrepr[2]).removeprefix("Skipped: ")
    message = _failure_message(longrepr)
    return message.splitlines()[0][:300] if message else None


def _failure_message(longrepr: Any) -> str | None:
    """The crash's message, else the last line of the failure's text."""
    message = getattr(getattr(longrepr, "reprcrash", None), "message", None)
    if message is None and longrepr:
        return str(longrepr).strip().splitlines()[-1]
    return cast("str | None", message)


def _adapter_label(session: EvalSession) -> str | None:
    settings = session.settings
    if settings.target:
        return f"{settings.adapter or 'callable'} {settings.target}"
    return settings.adapter


def _package_version() -> str:
    """The running release, read only by a run that uses the plugin: a dormant run imports
    nothing more for it."""
    from ..release import package_version

    return package_version()
