"""The aggregating process: what it takes from each test report, how it reads pytest's
stops, the exit status it sets, and what it writes at the end. The aggregator behind it is a
recorder; tests/integration/plugin runs the whole process."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rag_eval_pytest.errors import SetupFailed
from rag_eval_pytest.judges import cache as judge_cache
from rag_eval_pytest.pytest_support.aggregation import (
    INLINE_ATTRIBUTE,
    REPORT_ATTRIBUTE,
    SETUP_ERROR_ATTRIBUTE,
    AggregatingProcess,
    PayloadRelease,
    forget_silent_report,
    hand_over,
    mark_setup_error,
    report_payloads,
    short_message,
)
from rag_eval_pytest.pytest_support.bootstrap import WORKER_RUN_KEY
from rag_eval_pytest.pytest_support.guard import AGGREGATING_PLUGIN
from rag_eval_pytest.reporting import terminal
from rag_eval_pytest.reporting.payload import PAYLOAD_SCHEMA
from rag_eval_pytest.reporting.verdict import ExitDecision
from rag_eval_pytest.runtime import heap
from tests.unit.pytest_support.fakes import RUN, Config, eval_session


def payload(key: str, **fields: Any) -> dict[str, Any]:
    return {"schema": PAYLOAD_SCHEMA, "key": key, **fields}


def report(
    outcome: str = "passed",
    when: str = "call",
    longrepr: Any = None,
    keywords: dict[str, Any] | None = None,
    **attributes: Any,
) -> pytest.TestReport:
    made = pytest.TestReport(
        nodeid="test_rag.py::test_case[a]",
        location=("test_rag.py", 3, "test_case[a]"),
        keywords=keywords or {"test_case[a]": 1},
        outcome=outcome,
        longrepr=longrepr,
        when=when,
    )
    for name, value in attributes.items():
        setattr(made, name, value)
    return made


class Aggregator:
    """Records what the process hands it, and decides a given exit code."""

    def __init__(self, code: int = 0, *, ran_tests: bool = True) -> None:
        self.added: list[dict[str, Any]] = []
        self.setup_errors: list[str] = []
        self.finished: dict[str, Any] | None = None
        self.decision = ExitDecision(code, "the reason" if code else "passed")
        self.report: Any = None
        self.ran_tests = ran_tests
        self.written: list[str] = []
        self.write_errors: list[str] = []
        self.interruption = ""
        self.signalled = False

    def add_report(self, **fields: Any) -> None:
        self.added.append(fields)

    def setup_failed(self, message: str) -> None:
        self.setup_errors.append(message)

    def finish(self, **fields: Any) -> ExitDecision:
        self.finished = fields
        return self.decision


def process(tmp_path: Path, **settings: Any) -> AggregatingProcess:
    config = Config(tmp_path, invocation_dir=tmp_path / "here")
    return AggregatingProcess(config, eval_session(tmp_path, **settings), ["a notice"])


# ----------------------------------------------------------------- the test reports


def test_a_failures_message_is_its_crash_line_cut_short() -> None:
    crash = SimpleNamespace(reprcrash=SimpleNamespace(message="AssertionError: " + "x" * 400))
    assert short_message(report("failed", longrepr=crash)) == ("AssertionError: " + "x" * 400)[:300]
    multi = SimpleNamespace(reprcrash=SimpleNamespace(message="first line\nsecond line"))
    assert short_message(report("failed", longrepr=multi)) == "first line"


def test_a_skips_message_is_its_reason() -> None:
    skipped = report("skipped", longrepr=("test_rag.py", 3, "Skipped: no dataset given"))
    assert short_message(skipped) == "no dataset given"


def test_a_plain_failure_text_gives_its_last_line() -> None:
    assert short_message(report("failed", longrepr="trace\n\nE   ValueError: bad\n")) == (
        "E   ValueError: bad"
    )
    assert short_message(report("failed", longrepr=None)) is None
    assert short_message(report("passed", longrepr="ignored")) is None


def test_a_reports_payloads_are_its_case_then_its_cases_made_in_code() -> None:
    carrying = report(
        **{
            REPORT_ATTRIBUTE: payload("a"),
            INLINE_ATTRIBUTE: [payload("inline-1"), {"not": "a payload"}, payload("inline-2")],
        }
    )
    assert [p["key"] for p in report_payloads(carrying)] == ["a", "inline-1", "inline-2"]
    assert report_payloads(report()) == []
    assert report_payloads(report(**{REPORT_ATTRIBUTE: {"key": "a", "schema": 0}})) == []


def test_a_setup_failure_is_marked_on_the_report_and_other_failures_are_not() -> None:
    def call_raising(exc: BaseException) -> pytest.CallInfo[None]:
        def raise_it() -> None:
            raise exc

        return pytest.CallInfo.from_call(raise_it, "setup", reraise=None)

    failed = report("failed", "setup")
    mark_setup_error(call_raising(SetupFailed("no ANTHROPIC_API_KEY", pytrace=False)), failed)
    assert getattr(failed, SETUP_ERROR_ATTRIBUTE) == "no ANTHROPIC_API_KEY"
    other = report("failed", "setup")
    mark_setup_error(call_raising(ValueError("a bug in a fixture")), other)
    passed = report("passed", "setup")
    mark_setup_error(pytest.CallInfo.from_call(lambda: None, "setup"), passed)
    assert not hasattr(other, SETUP_ERROR_ATTRIBUTE)
    assert not hasattr(passed, SETUP_ERROR_ATTRIBUTE)


def test_each_payload_is_handed_over_with_the_tests_outcome() -> None:
    aggregator = Aggregator()
    crash = SimpleNamespace(reprcrash=SimpleNamespace(message="faithfulness 0.40 < 0.70"))
    failed = report(
        "failed",
        longrepr=crash,
        keywords={"rag_critical": 1},
        **{REPORT_ATTRIBUTE: payload("a"), INLINE_ATTRIBUTE: [payload("made")]},
    )
    hand_over(aggregator, failed)
    assert aggregator.added == [
        {
            "nodeid": "test_rag.py::test_case[a]",
            "when": "call",
            "outcome": "failed",
            "payload": payload(key),
            "critical_marker": True,
            "message": "faithfulness 0.40 < 0.70",
        }
        for key in ("a", "made")
    ]


def test_a_report_without_payloads_is_handed_over_once_and_a_setup_error_first() -> None:
    aggregator = Aggregator()
    hand_over(aggregator, report("failed", "setup", **{SETUP_ERROR_ATTRIBUTE: "no key"}))
    assert aggregator.setup_errors == ["no key"]
    assert [(a["payload"], a["critical_marker"]) for a in aggregator.added] == [(None, False)]


# ----------------------------------------------------------------- the process


def test_the_reports_go_below_the_invocation_folder_unless_absolute(tmp_path: Path) -> None:
    assert process(tmp_path).aggregator.output_dir == tmp_path / "here" / "results"
    elsewhere = tmp_path / "elsewhere"
    absolute = process(tmp_path, output={"directory": str(elsewhere)})
    assert absolute.aggregator.output_dir == elsewhere


@pytest.mark.parametrize(
    ("settings", "label"),
    [
        ({}, None),
        ({"adapter": "http"}, "http"),
        ({"target": "my_rag:answer"}, "callable my_rag:answer"),
        ({"adapter": "langchain", "target": "chain:build"}, "langchain chain:build"),
    ],
)
def test_the_adapter_is_named_as_configured(
    tmp_path: Path, settings: dict[str, Any], label: str | None
) -> None:
    assert process(tmp_path, **settings).aggregator.adapter_label == label


def test_registered_under_its_name_with_the_header_then_the_notices(tmp_path: Path) -> None:
    config = Config(tmp_path)
    registered = AggregatingProcess.register(config, eval_session(tmp_path), ["notice 1"])
    assert config.pluginmanager.get_plugin(AGGREGATING_PLUGIN) is registered
    header = registered.pytest_report_header()
    assert header[0].startswith("rag-eval: dataset qa.json (2 cases, 0 critical)")
    assert header[1:] == ["notice 1"]


def test_a_starting_worker_gets_the_runs_identity(tmp_path: Path) -> None:
    node = SimpleNamespace(workerinput={})
    process(tmp_path).pytest_configure_node(node)
    assert node.workerinput[WORKER_RUN_KEY] == {
        "run_id": RUN.run_id,
        "started_at": RUN.started_at,
    }


def interrupt(target: AggregatingProcess, exc: BaseException) -> None:
    try:
        raise exc
    except BaseException:
        target.pytest_keyboard_interrupt(pytest.ExceptionInfo.from_current())


@pytest.mark.parametrize(
    ("exc", "signalled"),
    [
        (KeyboardInterrupt("SIGTERM: the run was terminated"), True),
        (pytest.Session.Interrupted("1 error during collection"), False),
        (pytest.exit.Exception("stopped by a test"), False),
    ],
)
def test_only_ctrl_c_or_sigterm_count_as_signalled(
    tmp_path: Path, exc: BaseException, signalled: bool
) -> None:
    target = process(tmp_path)
    interrupt(target, exc)
    assert target.aggregator.signalled is signalled
    assert target.aggregator.interruption == str(exc)


def test_a_handed_over_report_lets_go_of_its_payloads(tmp_path: Path) -> None:
    target = process(tmp_path)
    target.aggregator = recorder = Aggregator()
    carrying = report(**{REPORT_ATTRIBUTE: payload("a"), INLINE_ATTRIBUTE: [payload("b")]})
    target.pytest_runtest_logreport(carrying)  # first: before the terminal shows the outcome
    assert [a["payload"]["key"] for a in recorder.added] == ["a", "b"]
    assert hasattr(carrying, REPORT_ATTRIBUTE)  # the other plugins see the report whole
    PayloadRelease(target).pytest_runtest_logreport(carrying)  # last
    assert not hasattr(carrying, REPORT_ATTRIBUTE) and not hasattr(carrying, INLINE_ATTRIBUTE)


def test_the_terminal_reporter_forgets_passed_setups_and_teardowns_that_print_nothing() -> None:
    """pytest searches its list of passed setups and teardowns once per failing test, for the
    teardown's output: only those with a teardown section stay in it."""
    setup, teardown = report(when="setup"), report(when="teardown")
    printing = report(when="teardown")
    printing.sections = [("Captured stdout call", "x"), ("Captured stdout teardown", "bye")]
    only_call_output = report(when="teardown")
    only_call_output.sections = [("Captured stdout call", "x")]
    stats: dict[str, list[Any]] = {}
    for made in (setup, teardown, printing, only_call_output):
        stats.setdefault("", []).append(made)
        forget_silent_report(stats, made)
    assert stats[""] == [printing]
    failed = report("failed", when="teardown")
    stats["error"] = [failed]
    forget_silent_report(stats, failed)  # another list: kept
    earlier = report(when="setup")
    stats[""] = [earlier, printing]
    forget_silent_report(stats, earlier)  # not the last one added: some other plugin's doing
    assert stats == {"": [earlier, printing], "error": [failed]}


def test_the_release_reaches_the_terminal_reporters_list(tmp_path: Path) -> None:
    target = process(tmp_path)
    target.aggregator = Aggregator()
    setup = report(when="setup")
    target.config.terminal.stats[""] = [setup]
    PayloadRelease(target).pytest_runtest_logreport(setup)
    assert target.config.terminal.stats == {"": []}


@pytest.fixture
def pruned(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, dict[str, Any]]]:
    calls: list[tuple[Path, dict[str, Any]]] = []
    monkeypatch.setattr(judge_cache, "prune_cache", lambda d, **kw: calls.append((d, kw)))
    monkeypatch.setattr(heap, "set_aside", lambda: None)
    return calls


def finished_session(exitstatus: int = 1, **stops: Any) -> SimpleNamespace:
    return SimpleNamespace(
        exitstatus=exitstatus,
        testsfailed=2,
        **{"shouldstop": False, "shouldfail": False, **stops},
    )


@pytest.mark.parametrize(
    ("status", "stops", "interrupted"),
    [
        (1, {}, False),
        (pytest.ExitCode.INTERRUPTED, {}, True),
        (1, {"shouldfail": "stopping after 1 failures"}, True),
        (1, {"shouldstop": "-x"}, True),
    ],
)
def test_the_end_sets_the_decided_exit_status(
    tmp_path: Path,
    pruned: list[Any],
    status: int,
    stops: dict[str, Any],
    interrupted: bool,
) -> None:
    target = process(tmp_path)
    target.aggregator = recorder = Aggregator(code=2)
    session = finished_session(status, **stops)
    target.pytest_sessionfinish(session, status)
    assert session.exitstatus == 2
    assert recorder.finished == {
        "pytest_status": int(status),
        "failed_tests": 2,
        "interrupted": interrupted,
    }


def test_the_end_prunes_the_judge_cache_it_keeps(tmp_path: Path, pruned: list[Any]) -> None:
    judge = {"cache_dir": str(tmp_path / "cache"), "cache_max_age_days": 10, "cache_max_mb": 5}
    target = process(tmp_path, judge=judge)
    target.aggregator = Aggregator()
    target.pytest_sessionfinish(finished_session(), 0)
    assert pruned == [(tmp_path / "cache", {"max_age_days": 10, "max_mb": 5})]


def test_without_a_cache_nothing_is_pruned(tmp_path: Path, pruned: list[Any]) -> None:
    target = process(tmp_path, judge={"cache": False})
    target.aggregator = Aggregator()
    target.pytest_sessionfinish(finished_session(), 0)
    assert pruned == []


def test_after_unconfigure_the_end_does_nothing(tmp_path: Path, pruned: list[Any]) -> None:
    target = process(tmp_path)
    restored: list[bool] = []
    target.sigterm = SimpleNamespace(restore=lambda: restored.append(True))
    target.pytest_unconfigure()
    assert target.aggregator is None and target.sigterm is None and restored == [True]
    session = finished_session(1)
    target.pytest_sessionfinish(session, 1)
    assert session.exitstatus == 1
    target.pytest_terminal_summary(Config(tmp_path).terminal)
    target.pytest_runtest_logreport(report(**{REPORT_ATTRIBUTE: payload("a")}))


@pytest.mark.parametrize(("code", "exit_line"), [(0, []), (3, ["rag-eval: exit 3: the reason"])])
def test_a_run_where_no_test_ran_says_so(tmp_path: Path, code: int, exit_line: list[str]) -> None:
    target = process(tmp_path)
    target.aggregator = Aggregator(code, ran_tests=False)
    reporter = Config(tmp_path).terminal
    target.pytest_terminal_summary(reporter)
    assert reporter.lines == [
        "rag-eval: no test ran: no report or history line written",
        *exit_line,
    ]


def test_the_summary_is_a_section_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(terminal, "summary_lines", lambda r, w, e: [f"{r}: {w} {e}"])
    target = process(tmp_path)
    target.aggregator = recorder = Aggregator()
    recorder.report, recorder.written = "the report", ["results/eval_report.md"]
    reporter = Config(tmp_path).terminal
    target.pytest_terminal_summary(reporter)
    assert reporter.sections == ["rag-eval"]
    assert reporter.lines == ["the report: ['results/eval_report.md'] []"]


def test_a_run_that_ran_tests_but_wrote_no_report_prints_nothing(tmp_path: Path) -> None:
    target = process(tmp_path)
    target.aggregator = Aggregator(3)
    reporter = Config(tmp_path).terminal
    target.pytest_terminal_summary(reporter)
    assert reporter.lines == [] and reporter.sections == []
