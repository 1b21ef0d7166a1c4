"""The window of a plain run: as a test starts, the planned tests up to a window ahead of it
(4 per case slot) are scheduled, refilled only once less than half of it is left, each test
once; a test the plan does not know moves nothing."""

from __future__ import annotations

from rag_eval_pytest.engine.ahead.plan import TestPlan
from rag_eval_pytest.engine.ahead.window import AHEAD_PER_SLOT, WindowScheduler
from tests.unit.engine.ahead.fakes import Running, Session, planned, recording

Window = recording(WindowScheduler)


def ids(first: int, end: int) -> list[str]:
    return [f"t.py::test_a[c{n}]" for n in range(first, end)]


def test_the_window_reaches_four_tests_per_slot_and_refills_at_half() -> None:
    assert AHEAD_PER_SLOT == 4
    window = Window(TestPlan(planned(12)), Session(limit=1))  # a window of 4
    window.before_test(Running("t.py::test_a[c0]"), None)
    assert window.scheduled == [ids(0, 5)]  # the running test and the 4 after it
    for n in (1, 2):  # more than half of the window is still ahead
        window.before_test(Running(f"t.py::test_a[c{n}]"), None)
    assert len(window.scheduled) == 1
    window.before_test(Running("t.py::test_a[c3]"), None)
    assert window.scheduled[-1] == ids(5, 8)  # up to 4 past c3, none twice
    for n in range(4, 12):
        window.before_test(Running(f"t.py::test_a[c{n}]"), None)
    scheduled = [nodeid for batch in window.scheduled for nodeid in batch]
    assert scheduled == ids(0, 12)  # every test once, in order


def test_more_slots_reach_further() -> None:
    window = Window(TestPlan(planned(40)), Session(limit=8))
    window.before_test(Running("t.py::test_a[c0]"), None)
    assert window.scheduled == [ids(0, 33)]


def test_a_test_the_plan_does_not_know_moves_nothing() -> None:
    window = Window(TestPlan(planned(3)), Session(limit=1))
    window.before_test(Running("t.py::test_inline"), None)
    assert window.scheduled == []


def test_a_plain_run_counts_each_cases_tests() -> None:
    tests = planned(2) + planned(2, function="t.py::test_b")
    window = Window(TestPlan(tests), Session())
    assert window.finished("c0") is False  # test_b[c0] is still to come
    assert window.finished("c0") is True
    assert window.finished("unknown") is False
