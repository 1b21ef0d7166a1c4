"""The process that runs tests (a plain run, or each xdist worker): one plugin object whose
methods are the hooks of that role and whose attributes are its state (the session and the
engine), registered by the entry module once the session exists.

:class:`Runner` serves a plain run (and the xdist controller, where it collects nothing
and stays idle); :class:`WorkerRunner` an xdist worker, which learns its tests one at a time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from ..engine.running import RUNNER_PLUGIN, running
from .aggregation import (
    CRITICAL_MARKER,
    INLINE_ATTRIBUTE,
    REPORT_ATTRIBUTE,
    mark_setup_error,
)
from .guard import exit_if_deferred, guarded

if TYPE_CHECKING:
    from collections.abc import Generator
    from pathlib import Path

    from ..engine.engine import Engine
    from ..engine.session import EvalSession


class Runner:
    """Collects one test per case, orders critical cases first, plans the work ahead, marks
    the running test, and attaches each test's results to its report."""

    worker = False

    def __init__(self, config: pytest.Config, session: EvalSession, engine: Engine) -> None:
        self.config = config
        self.session = session
        self.engine = engine
        self.interrupted = False
        self.folders: dict[Path, pytest.Collector] = {}
        """pytest's collector of each folder it collected: the zero-code tests of a dataset
        file belong to its folder's."""

    @classmethod
    def register(cls, config: pytest.Config, session: EvalSession) -> Runner:
        from ..engine.engine import Engine

        runner = cls(config, session, Engine(session))
        config.pluginmanager.register(runner, RUNNER_PLUGIN)
        return runner

    # ------------------------------------------------------------------ collection

    @guarded("pytest_generate_tests", stop="after collection")
    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """One test per dataset case for every test taking ``rag_case``."""
        if "rag_case" not in metafunc.fixturenames:
            return
        marks = [pytest.mark.rag_critical]
        cases = self.session.cases
        params = [pytest.param(c.key, id=c.key, marks=marks if c.critical else []) for c in cases]
        metafunc.parametrize("rag_case", params, indirect=True)

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        """The session's collectors get one more, last, whose items are the zero-code tests
        when no test takes ``rag_case``; each folder's collector is kept for them."""
        report = yield
        if isinstance(collector, pytest.Directory):
            self.folders[collector.path] = collector
        if isinstance(collector, pytest.Session) and report.passed:
            self._add_dataset_collectors(collector, report)
        return report

    @guarded("pytest_make_collect_report", stop="after collection")
    def _add_dataset_collectors(
        self, session: pytest.Session, report: pytest.CollectReport
    ) -> None:
        from ..engine.zero_code import dataset_collectors

        report.result.extend(dataset_collectors(session, self.session.cases, self.folders))

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self) -> Generator[None, None, object]:
        """The cycle collector paused while pytest collects (the test items live to the end
        of the run; see runtime/heap.py)."""
        from ..runtime.heap import paused_collection

        with paused_collection():
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> Generator[None]:
        """After the other impls (so other reorderings are kept within each group): a stable
        sort that puts critical tests first, then the plan of the work ahead."""
        exit_if_deferred(self.config)
        result = yield
        self._order_and_plan(items)
        return result

    @guarded("pytest_collection_modifyitems")
    def _order_and_plan(self, items: list[pytest.Item]) -> None:
        items.sort(key=lambda item: item.get_closest_marker(CRITICAL_MARKER) is None)
        if self.session.settings.concurrency.prefetch:
            self.engine.plan(items, lookahead=self.worker)
            self._show_progress()
        if items:
            from ..runtime.heap import set_aside

            set_aside()

    def _show_progress(self) -> None:
        from ..engine.progress import terminal_line

        line = terminal_line(self.config, self.session.progress)
        if line is not None:
            self.session.loop.waiter = line.wait

    @guarded("pytest_collection_finish")
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Once the kind of suite is known, what its judge calls will cost, for a paid judge
        (an xdist controller collects nothing)."""
        if not session.items:
            return
        self._warn_of_unseen_fixtures(session)
        from ..engine.zero_code import zero_code_cases
        from .dry_run import cost_line

        eval_session = self.session
        line = cost_line(eval_session, zero_code_cases(session.items, eval_session.datasets))
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if line is not None and reporter is not None and self.config.get_verbosity() >= 0:
            reporter.write_line(line)

    def _warn_of_unseen_fixtures(self, session: pytest.Session) -> None:
        """A ``rag_adapter`` or ``rag_judge`` of a conftest the zero-code tests cannot see,
        named in a warning (a filter that makes warnings errors prints it instead)."""
        from ..engine.zero_code import unseen_fixtures
        from .notices import issue

        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        for line in issue(self.config, unseen_fixtures(self.config, session.items)):
            if reporter is not None:
                reporter.write_line(line)

    # ------------------------------------------------------------------ running

    @guarded("pytest_sessionstart")
    def pytest_sessionstart(self) -> None:
        """pytest's log handlers (created by now) mask secrets and keep the judge SDKs'
        request dumps out."""
        from .log_capture import install

        sdk_debug = self.session.settings.judge.sdk_debug_logs
        install(self.config, self.session.redactor, sdk_debug=sdk_debug)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None]:
        """The test running now, which a case made in code is evaluated by."""
        self._before_protocol(nextitem)
        with running(item):
            return (yield)

    def _before_protocol(self, nextitem: pytest.Item | None) -> None:
        pass

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Attach the case payload to the report, which carries it to the aggregating process
        (through xdist's report serialisation when there is one), and the scores as user
        properties (JUnit XML ``<property>`` elements)."""
        self._record_properties(item, call)
        self._trim_traceback(item, call)
        report = yield
        self._skip_not_judged(item, report)
        self._record_cause(item, report)
        self._attach_payload(item, call, report)
        self._compact_failure(call, report)
        return report

    @guarded("pytest_runtest_makereport")
    def _record_properties(self, item: pytest.Item, call: pytest.CallInfo[None]) -> None:
        if call.when != "call":
            return
        from ..engine.case import RECORDER_KEY
        from ..engine.inline import inline_properties

        recorder = item.stash.get(RECORDER_KEY, None)
        if recorder is not None:
            item.user_properties.extend(recorder.properties())
        item.user_properties.extend(inline_properties(item))

    @guarded("pytest_runtest_makereport")
    def _skip_not_judged(self, item: pytest.Item, report: pytest.TestReport) -> None:
        from ..engine.unjudged import skip_unless_failed

        skip_unless_failed(item, report)

    @guarded("pytest_runtest_makereport")
    def _record_cause(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """A failing test's cause (``rag_failure_cause``), decided here, from the test's own
        results: the teardown's report, whose properties JUnit XML writes, carries it."""
        if not report.failed or report.when == "teardown":
            return
        from ..engine.case import RECORDER_KEY
        from ..engine.inline import inline_cause_properties

        status = "error" if report.when == "setup" else "failed"
        recorder = item.stash.get(RECORDER_KEY, None)
        if recorder is not None:
            if status == "error":  # the call, which records the case's properties, never ran
                item.user_properties.extend(recorder.properties())
            item.user_properties.extend(recorder.cause_properties(status))
        item.user_properties.extend(inline_cause_properties(item, status))

    @guarded("pytest_runtest_makereport")
    def _trim_traceback(self, item: pytest.Item, call: pytest.CallInfo[None]) -> None:
        from .failures import trim_traceback

        trim_traceback(item, call)

    @guarded("pytest_runtest_makereport")
    def _compact_failure(self, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
        """A failure of the plugin's assertion kept to the end of the run as its text, in a
        plain run; a worker's report says it is one, and is compacted where it arrives."""
        from .failures import compact_failure, mark_failure

        if self.worker:
            mark_failure(call, report)
        else:
            compact_failure(self.config, call, report)

    @guarded("pytest_runtest_makereport")
    def _attach_payload(
        self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
    ) -> None:
        mark_setup_error(call, report)
        if report.when == "call" or not report.passed:
            _carry_payloads(item, report)
        if call.when == "teardown":  # the reports carry what was recorded
            self._finish_item(item)

    def _finish_item(self, item: pytest.Item) -> None:
        """Let go of the test's recorder and of its cases made in code."""
        from ..engine.case import RECORDER_KEY
        from ..engine.inline import inline_finished

        if item.stash.get(RECORDER_KEY, None) is not None:
            del item.stash[RECORDER_KEY]
        inline_finished(item, self.engine)

    # ------------------------------------------------------------------ the end

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        self.interrupted = exitstatus == pytest.ExitCode.INTERRUPTED

    @guarded("pytest_unconfigure", stop="at the end")
    def pytest_unconfigure(self) -> None:
        """Close clients and the event loops, and let go of the run's memos (before pytest's
        own garbage collection at exit, which then has less to walk)."""
        self.engine.close(interrupted=self.interrupted)
        from ..runtime.heap import restore

        restore()  # what the run let go of is freed by now: the rest goes back


class WorkerRunner(Runner):
    """An xdist worker: it learns its tests one at a time from the controller, so it looks
    one test ahead (pytest's ``nextitem``) and draws no progress line."""

    worker = True

    def _before_protocol(self, nextitem: pytest.Item | None) -> None:
        self.engine.following = nextitem

    def _show_progress(self) -> None:
        pass

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # The controller says what the run costs; the first worker warns of what the tests
        # cannot see (each worker collects the same tests), through the controller.
        workerinput = getattr(self.config, "workerinput", {})
        if session.items and workerinput.get("workerid") == "gw0":
            self._warn_of_unseen_fixtures(session)


def _carry_payloads(item: pytest.Item, report: pytest.TestReport) -> None:
    """The payloads of the test's dataset case and of the cases it made in code, on its
    report."""
    from ..engine.case import RECORDER_KEY
    from ..engine.inline import INLINE_KEY, inline_payloads

    recorder = item.stash.get(RECORDER_KEY, None)
    if recorder is not None:
        setattr(report, REPORT_ATTRIBUTE, recorder.payload())
    if INLINE_KEY in item.stash:
        setattr(report, INLINE_ATTRIBUTE, inline_payloads(item))
