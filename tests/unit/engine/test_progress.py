"""The progress line's text and when it appears (the terminal itself: tests/plugin)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

from rag_eval_pytest.engine.progress import ERASE, RESTORE, SAVE, ProgressLine, RunProgress
from rag_eval_pytest.judges.base import Usage


def test_the_line_counts_finished_cases_judge_calls_cache_hits_and_cost() -> None:
    progress = RunProgress(cases=30)
    assert progress.line() == "rag-eval: 0/30 cases evaluated"

    async def work() -> None:
        loop = asyncio.get_running_loop()
        first, second = loop.create_future(), loop.create_future()
        progress.track("c1", first)
        progress.track("c1", second)
        first.set_result(None)
        await asyncio.sleep(0)
        assert progress.line().startswith("rag-eval: 0/30")  # c1 still has work running
        second.set_result(None)
        await asyncio.sleep(0)

    asyncio.run(work())
    progress.add_usage(Usage(judge_calls=47, cache_hits=3, cost_usd=0.0712))
    progress.add_usage(Usage(judge_calls=1))
    assert progress.line() == "rag-eval: 1/30 cases evaluated, 48 judge calls (3 cached), $0.07"


def done_future() -> concurrent.futures.Future[None]:
    future: concurrent.futures.Future[None] = concurrent.futures.Future()
    future.set_result(None)
    return future


def later_future(seconds: float) -> concurrent.futures.Future[None]:
    future: concurrent.futures.Future[None] = concurrent.futures.Future()
    threading.Timer(seconds, future.set_result, args=(None,)).start()
    return future


def test_nothing_is_written_until_the_run_has_waited_long_enough_then_each_wait_shows_it() -> None:
    written: list[str] = []
    line = ProgressLine(
        RunProgress(cases=3), written.append, lambda: 80, after=0.3, flicker=0.05, interval=0.02
    )
    line.wait(done_future())
    line.wait(later_future(0.1))  # 0.1 s waited in all: still quiet
    assert written == []
    line.wait(later_future(0.4))  # crosses 0.3 s: shown, then erased
    assert written[0] == SAVE + "  rag-eval: 0/3 cases evaluated"
    assert written[-1] == RESTORE + ERASE
    written.clear()
    line.wait(done_future())  # a wait that ends at once never flickers
    assert written == []
    line.wait(later_future(0.15))
    assert written[0].startswith(SAVE) and written[-1] == RESTORE + ERASE


def test_the_line_is_cut_to_the_room_left_and_skipped_when_there_is_none() -> None:
    written: list[str] = []
    room = [30]
    line = ProgressLine(
        RunProgress(cases=3), written.append, lambda: room[0], after=0, flicker=0.01
    )
    line.wait(later_future(0.1))
    assert written[0] == SAVE + "  rag-eval: 0/3 cases evalua…"
    assert len(written[0]) - len(SAVE) == 30 - 1
    written.clear()
    room[0] = 10
    line.wait(later_future(0.1))
    assert written == []
