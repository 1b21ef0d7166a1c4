"""What the engine asks of the work ahead, whichever way it is scheduled: every scheduler
answers the protocol's calls with its parameters; with nothing ahead (prefetch off, or
before the tests are planned) a test is never asked for its judge or RAG system ahead of
its own use, and no case's tests are counted, so a case's response stays for the run."""

from __future__ import annotations

import inspect

import pytest

from rag_eval_pytest.engine.ahead import LookaheadScheduler, WindowScheduler
from rag_eval_pytest.engine.ahead.protocol import AheadScheduler, NoAhead
from rag_eval_pytest.engine.ahead.scheduler import Scheduler
from tests.unit.engine.ahead.fakes import Running
from tests.unit.engine.fakes import TestItem, engine_over, loaded, rag_system, take_case

CALLS = ("before_test", "learn", "finished", "stop")


@pytest.mark.parametrize("scheduler", [NoAhead, Scheduler, WindowScheduler, LookaheadScheduler])
def test_every_scheduler_answers_the_protocols_calls(scheduler: type) -> None:
    for name in CALLS:
        ours = inspect.signature(getattr(scheduler, name)).parameters
        theirs = inspect.signature(getattr(AheadScheduler, name)).parameters
        assert list(ours) == list(theirs), name


def test_nothing_ahead_asks_a_test_for_nothing_and_counts_no_case() -> None:
    ahead = NoAhead()
    test = Running("t.py::test_a[c0]", judge="the judge")
    ahead.before_test(test, None)  # type: ignore[arg-type]
    ahead.learn(test, [("faithfulness", {})])  # type: ignore[arg-type]
    assert test.judge_calls == 0
    # However many of its tests end, none is its last: nothing counts them.
    assert [ahead.finished("c0") for _ in range(3)] == [False, False, False]
    ahead.stop()
    ahead.before_test(test, None)  # type: ignore[arg-type]  # after a stop, still nothing


def test_with_nothing_ahead_a_cases_response_stays_for_its_later_tests() -> None:
    refund = loaded("refund", question="Refunds?")
    rag = rag_system({"Refunds?": ("Within 30 days.", [])})
    with engine_over(refund) as engine:
        assert isinstance(engine.ahead, NoAhead)  # until the tests are planned
        for test in ("test_a", "test_b"):
            _, end = take_case(
                engine, TestItem(f"t.py::{test}[refund]", case="refund", rag_adapter=rag)
            )
            end()
        assert engine.queries.asked("refund")
        assert len(rag.asked) == 1  # type: ignore[attr-defined]
