"""The process that runs tests: one test per dataset case, critical tests first, the work
planned ahead, the running test marked, and each report given the test's results. The engine,
the items and the recorders are stand-ins; tests/integration/plugin runs the real ones."""

from __future__ import annotations

import logging
from collections.abc import Generator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rag_eval_pytest.engine.case import RECORDER_KEY
from rag_eval_pytest.engine.inline import INLINE_KEY
from rag_eval_pytest.engine.running import RUNNER_PLUGIN, current_item
from rag_eval_pytest.errors import SetupFailed
from rag_eval_pytest.pytest_support.aggregation import (
    INLINE_ATTRIBUTE,
    REPORT_ATTRIBUTE,
    SETUP_ERROR_ATTRIBUTE,
)
from rag_eval_pytest.pytest_support.guard import DEFERRED_KEY
from rag_eval_pytest.pytest_support.log_capture import CaptureFilter
from rag_eval_pytest.pytest_support.runner import Runner, WorkerRunner
from rag_eval_pytest.runtime import heap
from tests.unit.pytest_support.fakes import Config, eval_session


class Engine:
    def __init__(self) -> None:
        self.planned: list[tuple[list[Any], bool]] = []
        self.let_go: list[Any] = []
        self.closed: list[bool] = []
        self.following: Any = None

    def plan(self, items: list[Any], *, lookahead: bool) -> None:
        self.planned.append((list(items), lookahead))

    def finished(self, test: Any) -> None:
        self.let_go.append(test)

    def close(self, *, interrupted: bool) -> None:
        self.closed.append(interrupted)


class Recorder:
    """A test's results as it recorded them."""

    def __init__(self, key: str) -> None:
        self.key = key

    def payload(self) -> dict[str, Any]:
        return {"schema": 1, "key": self.key}

    def properties(self) -> list[tuple[str, object]]:
        return [(f"rag_{self.key}", 0.9)]

    def cause_properties(self, status: str) -> list[tuple[str, object]]:
        return [(f"rag_failure_cause_{self.key}", status)]


def item(name: str = "test_a", critical: bool = False, **fields: Any) -> SimpleNamespace:
    return SimpleNamespace(
        name=name,
        stash=pytest.Stash(),
        user_properties=[],
        get_closest_marker=lambda marker: (
            object() if critical and marker == "rag_critical" else None
        ),
        **fields,
    )


def runner(tmp_path: Path, cls: type[Runner] = Runner, **settings: Any) -> Runner:
    cases = ({"id": "a"}, {"id": "b", "critical": True}, {"id": "c"})
    session = eval_session(tmp_path, *cases, **settings)
    return cls(Config(tmp_path), session, Engine())


def drive(wrapper: Generator[Any, Any, Any], sent: Any = None) -> Any:
    """Run a hook wrapper around an inner result ``sent``; what it returns."""
    next(wrapper)
    with pytest.raises(StopIteration) as done:
        wrapper.send(sent)
    return done.value.value


@pytest.fixture(autouse=True)
def heap_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The runner freezes the heap after collection: not the test process's."""
    calls: list[str] = []
    monkeypatch.setattr(heap, "set_aside", lambda: calls.append("set aside"))
    monkeypatch.setattr(heap, "restore", lambda: calls.append("restore"))
    return calls


# ----------------------------------------------------------------- collection


class Metafunc:
    def __init__(self, *fixturenames: str) -> None:
        self.fixturenames = list(fixturenames)
        self.calls: list[tuple[str, list[Any], bool]] = []

    def parametrize(self, argname: str, params: list[Any], indirect: bool) -> None:
        self.calls.append((argname, params, indirect))


def test_a_test_taking_rag_case_gets_one_test_per_case_critical_ones_marked(
    tmp_path: Path,
) -> None:
    metafunc = Metafunc("rag_adapter", "rag_case")
    runner(tmp_path).pytest_generate_tests(metafunc)
    ((argname, params, indirect),) = metafunc.calls
    assert (argname, indirect) == ("rag_case", True)
    assert [(p.id, p.values) for p in params] == [("a", ("a",)), ("b", ("b",)), ("c", ("c",))]
    assert [[m.name for m in p.marks] for p in params] == [[], ["rag_critical"], []]


def test_a_test_without_rag_case_is_left_alone(tmp_path: Path) -> None:
    metafunc = Metafunc("rag_adapter")
    runner(tmp_path).pytest_generate_tests(metafunc)
    assert metafunc.calls == []


def test_critical_tests_run_first_in_their_order_and_the_work_is_planned(
    tmp_path: Path, heap_calls: list[str]
) -> None:
    plain = runner(tmp_path)
    items = [item("a1"), item("c1", True), item("a2"), item("c2", True)]
    assert drive(plain.pytest_collection_modifyitems(items), "inner") == "inner"
    assert [i.name for i in items] == ["c1", "c2", "a1", "a2"]
    assert plain.engine.planned == [(items, False)]
    assert heap_calls == ["set aside"]


def test_a_worker_plans_one_test_ahead(tmp_path: Path) -> None:
    worker = runner(tmp_path, WorkerRunner)
    items = [item()]
    drive(worker.pytest_collection_modifyitems(items))
    assert worker.engine.planned == [(items, True)]


def test_without_prefetch_nothing_is_planned(tmp_path: Path, heap_calls: list[str]) -> None:
    quiet = runner(tmp_path, concurrency={"prefetch": False})
    drive(quiet.pytest_collection_modifyitems([]))
    assert quiet.engine.planned == []
    assert heap_calls == []  # nothing collected: nothing to set aside


def test_a_failure_during_collection_ends_the_run_before_the_items_are_ordered(
    tmp_path: Path,
) -> None:
    failed = runner(tmp_path)
    failed.config.stash[DEFERRED_KEY] = ("rag-eval: internal error in ...", 3)
    with pytest.raises(pytest.exit.Exception) as stopped:
        next(failed.pytest_collection_modifyitems([item()]))
    assert stopped.value.returncode == 3


@pytest.mark.parametrize(
    ("verbose", "cls", "items", "written"),
    [
        (0, Runner, [item(fixturenames=["rag_case"])], True),
        (-1, Runner, [item(fixturenames=["rag_case"])], False),
        (0, Runner, [], False),  # an xdist controller collects nothing
        (0, WorkerRunner, [item(fixturenames=["rag_case"])], False),
    ],
)
def test_the_cost_of_a_paid_judge_is_announced_once_collected(
    tmp_path: Path, verbose: int, cls: type[Runner], items: list[Any], written: bool
) -> None:
    announcing = runner(tmp_path, cls, judge={"kind": "anthropic"})
    announcing.config.option.verbose = verbose
    announcing.pytest_collection_finish(SimpleNamespace(items=items))
    lines = announcing.config.terminal.lines
    assert [line.startswith("rag-eval: judge cost not estimated") for line in lines] == (
        [True] if written else []
    )


# ----------------------------------------------------------------- running


def test_the_log_handlers_mask_secrets_from_the_session_start(tmp_path: Path) -> None:
    handler = logging.Handler()
    started = runner(tmp_path, judge={"sdk_debug_logs": True})
    started.config.pluginmanager.plugins["logging-plugin"] = SimpleNamespace(report_handler=handler)
    started.pytest_sessionstart()
    (installed,) = handler.filters
    assert isinstance(installed, CaptureFilter) and installed.sdk_debug


def test_the_running_test_is_marked_and_a_worker_knows_the_next(tmp_path: Path) -> None:
    worker = runner(tmp_path, WorkerRunner)
    running, following = item("now"), item("next")
    outer = current_item()  # this test, marked by the plugin of the run around it
    wrapper = worker.pytest_runtest_protocol(running, following)
    next(wrapper)
    assert current_item() is running
    assert worker.engine.following is following
    with pytest.raises(StopIteration):
        wrapper.send(None)
    assert current_item() is outer


def test_a_plain_runner_does_not_look_ahead(tmp_path: Path) -> None:
    plain = runner(tmp_path)
    drive(plain.pytest_runtest_protocol(item(), item("next")))
    assert plain.engine.following is None


def report(when: str, outcome: str = "passed") -> pytest.TestReport:
    return pytest.TestReport("t.py::test_a", ("t.py", 0, "test_a"), {}, outcome, None, when)


def call(when: str, exc: BaseException | None = None) -> pytest.CallInfo[None]:
    def run() -> None:
        if exc is not None:
            raise exc

    return pytest.CallInfo.from_call(run, when, reraise=None)


def with_results(made_in_code: int = 1) -> SimpleNamespace:
    test_item = item()
    test_item.stash[RECORDER_KEY] = Recorder("a")
    test_item.stash[INLINE_KEY] = [
        (f"case {n}", SimpleNamespace(recorder=Recorder(f"made{n}"))) for n in range(made_in_code)
    ]
    return test_item


def test_a_call_report_carries_the_payloads_and_the_scores_become_properties(
    tmp_path: Path,
) -> None:
    test_item = with_results(2)
    made = drive(
        runner(tmp_path).pytest_runtest_makereport(test_item, call("call")), report("call")
    )
    assert getattr(made, REPORT_ATTRIBUTE) == {"schema": 1, "key": "a"}
    assert getattr(made, INLINE_ATTRIBUTE) == [
        {"schema": 1, "key": "made0", "inline": True},
        {"schema": 1, "key": "made1", "inline": True},
    ]
    assert test_item.user_properties == [("rag_a", 0.9), ("rag_made0", 0.9), ("rag_made1", 0.9)]


def test_a_passed_setup_carries_nothing(tmp_path: Path) -> None:
    test_item = with_results()
    made = drive(
        runner(tmp_path).pytest_runtest_makereport(test_item, call("setup")), report("setup")
    )
    assert not hasattr(made, REPORT_ATTRIBUTE) and not hasattr(made, INLINE_ATTRIBUTE)
    assert test_item.user_properties == []


def test_a_failed_call_records_its_cause(tmp_path: Path) -> None:
    test_item = with_results()
    failing = runner(tmp_path).pytest_runtest_makereport(test_item, call("call", AssertionError()))
    drive(failing, report("call", "failed"))
    assert test_item.user_properties[-2:] == [
        ("rag_failure_cause_a", "failed"),
        ("rag_failure_cause_made0", "failed"),
    ]


def test_a_setup_error_records_the_properties_the_call_did_not_and_why(tmp_path: Path) -> None:
    test_item = with_results()
    setup = call("setup", SetupFailed("no ANTHROPIC_API_KEY", pytrace=False))
    made = drive(
        runner(tmp_path).pytest_runtest_makereport(test_item, setup), report("setup", "failed")
    )
    assert test_item.user_properties == [
        ("rag_a", 0.9),
        ("rag_failure_cause_a", "error"),
        ("rag_failure_cause_made0", "error"),
    ]
    assert getattr(made, SETUP_ERROR_ATTRIBUTE) == "no ANTHROPIC_API_KEY"
    assert getattr(made, REPORT_ATTRIBUTE)["key"] == "a"


def test_after_teardown_the_test_lets_go_of_its_results(tmp_path: Path) -> None:
    test_item = with_results(2)
    bound = [test for _, test in test_item.stash[INLINE_KEY]]
    ending = runner(tmp_path)
    made = drive(
        ending.pytest_runtest_makereport(test_item, call("teardown")), report("teardown", "failed")
    )
    assert RECORDER_KEY not in test_item.stash and INLINE_KEY not in test_item.stash
    assert ending.engine.let_go == bound
    assert test_item.user_properties == []  # a failed teardown is no cause of the case's
    assert getattr(made, REPORT_ATTRIBUTE)["key"] == "a"  # carried by the failed teardown


# ----------------------------------------------------------------- the end


@pytest.mark.parametrize(("status", "interrupted"), [(0, False), (1, False), (2, True)])
def test_the_end_closes_the_engine_quickly_after_an_interrupt(
    tmp_path: Path, heap_calls: list[str], status: int, interrupted: bool
) -> None:
    ending = runner(tmp_path)
    ending.pytest_sessionfinish(status)
    ending.pytest_unconfigure()
    assert ending.engine.closed == [interrupted]
    assert heap_calls == ["restore"]


def test_register_makes_the_engine_of_the_session(tmp_path: Path) -> None:
    config = Config(tmp_path)
    registered = WorkerRunner.register(config, eval_session(tmp_path))
    assert config.pluginmanager.get_plugin(RUNNER_PLUGIN) is registered
    assert registered.worker and registered.engine.session is registered.session
