"""An xdist worker looks one test ahead: the running test and the next one pytest gives it
are scheduled, each once; it never counts a case's tests (it runs only some of them)."""

from __future__ import annotations

from rag_eval_pytest.engine.ahead.lookahead import LookaheadScheduler
from rag_eval_pytest.engine.ahead.plan import TestPlan
from tests.unit.engine.ahead.fakes import Item, Running, Session, planned, recording

Lookahead = recording(LookaheadScheduler)


def test_the_running_test_and_the_next_are_scheduled_once() -> None:
    worker = Lookahead(TestPlan(planned(4)), Session())
    worker.before_test(Running("t.py::test_a[c0]"), Item("t.py::test_a[c1]"))  # type: ignore[arg-type]
    worker.before_test(Running("t.py::test_a[c1]"), Item("t.py::test_a[c2]"))  # type: ignore[arg-type]
    worker.before_test(Running("t.py::test_a[c2]"), None)
    assert worker.scheduled == [
        ["t.py::test_a[c0]", "t.py::test_a[c1]"],
        ["t.py::test_a[c2]"],
    ]


def test_a_following_item_outside_the_plan_is_skipped() -> None:
    worker = Lookahead(TestPlan(planned(1)), Session())
    worker.before_test(Running("t.py::test_a[c0]"), Item("t.py::test_unrelated"))  # type: ignore[arg-type]
    assert worker.scheduled == [["t.py::test_a[c0]"]]


def test_a_worker_keeps_its_memos_for_the_run() -> None:
    worker = Lookahead(TestPlan(planned(1)), Session())
    assert worker.unfinished == {}
    assert worker.finished("c0") is False
    assert worker.finished("c0") is False
