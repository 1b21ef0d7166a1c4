"""What the schedulers share: the first test starts the work ahead, the first test of each
judge group gives its judge (a failing fixture only means less is prefetched), a metric a
test asks for is learnt for its function's other cases, a case with a recorded answer is
scheduled only for work that waits, and a stop starts nothing more."""

from __future__ import annotations

import pytest

from rag_eval_pytest.engine.ahead.plan import PlannedTest, TestPlan
from rag_eval_pytest.engine.ahead.scheduler import Scheduler, immediate, needs_judge
from rag_eval_pytest.engine.ahead.window import WindowScheduler
from tests.unit.engine.ahead.fakes import Running, Session, planned, recording

Window = recording(WindowScheduler)
FAITH = ("faithfulness", {})
RECALL = ("retrieval_recall", {})


def test_immediate_and_judged_metrics_are_told_apart() -> None:
    assert immediate(RECALL) and not immediate(FAITH)
    assert needs_judge(FAITH) and not needs_judge(RECALL)
    assert not immediate(("no_such_metric", {})) and not needs_judge(("no_such_metric", {}))


def test_the_first_test_counts_the_cases_and_resolves_its_groups_judge() -> None:
    session = Session()
    scheduler = Window(TestPlan(planned(3, requests=[FAITH])), session)
    first = Running("t.py::test_a[c0]", judge="the judge")
    scheduler.before_test(first, None)
    assert session.progress.cases == 3
    assert first.judge_calls == 1
    scheduler.before_test(Running("t.py::test_a[c1]"), None)
    assert first.judge_calls == 1  # once per group


def test_a_group_without_judged_metrics_never_asks_for_its_judge() -> None:
    scheduler = Window(TestPlan(planned(2, requests=[RECALL])), Session())
    test = Running("t.py::test_a[c0]")
    scheduler.before_test(test, None)
    assert test.judge_calls == 0


def test_a_failing_judge_fixture_does_not_stop_the_work_ahead() -> None:
    scheduler = Window(TestPlan(planned(2, requests=[FAITH])), Session())
    failing = Running("t.py::test_a[c0]", judge=pytest.fail.Exception("no API key"))
    scheduler.before_test(failing, None)
    assert failing.judge_calls == 1
    assert scheduler.scheduled == [["t.py::test_a[c0]", "t.py::test_a[c1]"]]


def test_another_groups_first_test_gives_that_groups_judge() -> None:
    tests = planned(2, requests=[FAITH]) + planned(2, "t.py::test_b", requests=[FAITH])
    scheduler = Window(TestPlan(tests), Session(limit=2))
    scheduler.before_test(Running("t.py::test_a[c0]", judge="a"), None)
    b_first = Running("t.py::test_b[c0]", judge="b")
    scheduler.before_test(b_first, None)
    assert b_first.judge_calls == 1
    # Its tests already in the window are scheduled again, now with a judge.
    assert ["t.py::test_b[c0]", "t.py::test_b[c1]"] in scheduler.scheduled


def test_a_learnt_metric_is_planned_for_the_functions_other_cases() -> None:
    plan = TestPlan(planned(3))
    scheduler = Window(plan, Session())
    test = Running("t.py::test_a[c0]", judge="j")
    scheduler.learn(test, [FAITH])  # before the start: nothing is learnt
    assert plan.known["t.py::test_a"] == []
    scheduler.before_test(test, None)
    scheduler.scheduled.clear()
    scheduler.learn(test, [FAITH])
    assert plan.known["t.py::test_a"] == [FAITH]
    assert all(t.requests == [FAITH] for t in plan.tests)
    assert test.judge_calls == 1  # the judge this test used
    assert scheduler.scheduled == [["t.py::test_a[c0]", "t.py::test_a[c1]", "t.py::test_a[c2]"]]
    scheduler.learn(test, [FAITH])  # known already: nothing again
    assert len(scheduler.scheduled) == 1


def test_a_case_whose_tests_are_over_is_not_scheduled_again() -> None:
    plan = TestPlan(planned(2))
    scheduler = Window(plan, Session())
    test = Running("t.py::test_a[c0]", judge="j")
    scheduler.before_test(test, None)
    assert scheduler.finished("c0")
    scheduler.scheduled.clear()
    scheduler.learn(test, [FAITH])
    assert scheduler.scheduled == [["t.py::test_a[c1]"]]


def test_a_recorded_answer_is_scheduled_only_for_metrics_that_wait() -> None:
    tests = [
        PlannedTest("rec", "t.py::test_a", [RECALL], nodeid="t.py::test_a[rec]"),
        PlannedTest("rec2", "t.py::test_a", [RECALL, FAITH], nodeid="t.py::test_a[rec2]"),
        PlannedTest("live", "t.py::test_a", [RECALL], nodeid="t.py::test_a[live]"),
    ]
    scheduler = Window(TestPlan(tests), Session(recorded=frozenset({"rec", "rec2"})))
    scheduler.before_test(Running("t.py::test_a[rec]", judge="j"), None)
    # "rec" has its answer and an immediate metric only: nothing ahead would save a wait.
    assert scheduler.scheduled == [["t.py::test_a[rec2]", "t.py::test_a[live]"]]


def test_a_stop_cancels_once_and_starts_nothing_more() -> None:
    session = Session()
    scheduler = Window(TestPlan(planned(10)), session)
    scheduler.before_test(Running("t.py::test_a[c0]"), None)
    runs = session.loop.runs
    scheduler.stop()
    scheduler.stop()
    assert session.loop.runs == runs + 1  # the pending tasks cancelled, once
    scheduler.before_test(Running("t.py::test_a[c3]"), None)
    scheduler.learn(Running("t.py::test_a[c3]"), [FAITH])
    assert len(scheduler.scheduled) == 1


def test_a_stop_before_the_start_touches_no_loop() -> None:
    session = Session()
    Window(TestPlan(planned(1)), session).stop()
    assert session.loop.runs == 0


def test_the_base_scheduler_leaves_moving_to_its_subclasses() -> None:
    scheduler = recording(Scheduler)(TestPlan(planned(1)), Session())
    with pytest.raises(NotImplementedError):
        scheduler.before_test(Running("t.py::test_a[c0]"), None)
