"""The background event loops: the plugin's loop runs coroutines for a synchronous caller
and re-raises their errors; the RAG system's own loop gives up a call that blocks it past
its timeout (and only then) and starts a fresh loop; blocking calls run on daemon threads
that a timed-out task can abandon; and a cancellation is told apart from user code's own
``CancelledError``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from rag_eval_pytest.runtime import event_loop
from rag_eval_pytest.runtime.event_loop import (
    DaemonThreadExecutor,
    GuardedLoop,
    LoopBlocked,
    LoopThread,
    raised_by_user_code,
    to_thread,
    watch_blocking_calls,
)


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call's time is checked every hundredth of a second."""
    monkeypatch.setattr(event_loop, "RECHECK", 0.01)


@pytest.fixture
def watchful(quick: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Heartbeats every hundredth of a second, so a blocked loop shows at once."""
    monkeypatch.setattr(event_loop, "TICK", 0.01)
    monkeypatch.setattr(event_loop, "BLOCKED_AFTER", 0.05)


@pytest.fixture
def loop() -> Iterator[LoopThread]:
    thread = LoopThread("rag-eval-test-loop")
    yield thread
    thread.close(wait=1.0)


def test_the_loop_runs_a_coroutine_on_its_own_thread(loop: LoopThread) -> None:
    async def where() -> str:
        return threading.current_thread().name

    assert loop.run(where()) == "rag-eval-test-loop"


def test_the_loop_re_raises_the_coroutines_error(loop: LoopThread) -> None:
    async def fails() -> None:
        raise KeyError("missing case")

    with pytest.raises(KeyError, match="missing case"):
        loop.run(fails())


def test_a_loop_never_started_starts_no_thread_and_runs_nothing() -> None:
    thread = LoopThread("rag-eval-never-started")
    called: list[int] = []
    thread.call_soon(called.append, 1)
    ran: list[int] = []

    async def cleanup() -> None:
        ran.append(1)

    thread.close(cleanup())
    assert called == [] and ran == []
    assert "rag-eval-never-started" not in {t.name for t in threading.enumerate()}


def test_close_runs_the_cleanup_on_the_loop_and_ends_its_thread() -> None:
    thread = LoopThread("rag-eval-closing")
    names: list[str] = []

    async def cleanup() -> None:
        names.append(threading.current_thread().name)

    thread.run(asyncio.sleep(0))
    thread.close(cleanup(), wait=2.0)
    assert names == ["rag-eval-closing"]
    assert "rag-eval-closing" not in {t.name for t in threading.enumerate()}


def test_call_soon_runs_on_a_started_loop(loop: LoopThread) -> None:
    done = threading.Event()
    loop.run(asyncio.sleep(0))
    loop.call_soon(done.set)
    assert done.wait(5)


def test_a_guarded_call_returns_its_result_from_another_loop() -> None:
    guarded = GuardedLoop("rag-eval-guarded")

    async def answer() -> str:
        return threading.current_thread().name

    try:
        assert asyncio.run(guarded.call(answer, timeout=5)) == "rag-eval-guarded"
    finally:
        guarded.close(wait=1.0)


def test_a_guarded_call_re_raises_and_times_out_without_giving_the_loop_up(quick: None) -> None:
    guarded = GuardedLoop()

    async def broken() -> None:
        raise ValueError("RAG failed")

    async def waits() -> None:
        await asyncio.Event().wait()  # awaits: the loop stays free

    try:
        with pytest.raises(ValueError, match="RAG failed"):
            asyncio.run(guarded.call(broken, timeout=5))
        with pytest.raises(asyncio.TimeoutError):
            asyncio.run(guarded.call(waits, timeout=0.05))
        assert guarded.given_up == 0
    finally:
        guarded.close(wait=1.0)


def test_a_call_that_blocks_its_loop_is_given_up_and_the_next_gets_a_fresh_loop(
    watchful: None,
) -> None:
    guarded = GuardedLoop()
    release = threading.Event()
    threads: list[threading.Thread] = []

    async def blocks() -> None:
        threads.append(threading.current_thread())
        release.wait(10)  # a blocking call in async code: the loop cannot run

    async def fine() -> threading.Thread:
        return threading.current_thread()

    try:
        with pytest.raises(LoopBlocked) as info:
            asyncio.run(guarded.call(blocks, timeout=0.3))
        assert info.value.timeout == 0.3
        assert str(info.value) == "blocked the event loop past its timeout"
        assert guarded.given_up == 1
        fresh = asyncio.run(guarded.call(fine, timeout=5))
        assert fresh is not threads[0]
        assert threads[0].daemon  # the abandoned loop never holds the process
    finally:
        release.set()
        guarded.close(wait=1.0)


def test_the_pool_threads_are_daemons_and_refuse_work_after_shutdown() -> None:
    pool = DaemonThreadExecutor("rag-eval-test-pool", max_workers=2)
    assert pool.submit(lambda: threading.current_thread().daemon).result(5) is True
    failing = pool.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.result(5)
    pool.shutdown(wait=True)
    with pytest.raises(RuntimeError, match="cannot schedule new work after shutdown"):
        pool.submit(print)


def test_a_blocking_call_still_running_can_be_abandoned() -> None:
    started, release = threading.Event(), threading.Event()

    def hangs() -> str:
        started.set()
        release.wait(10)
        return "late"

    async def scenario() -> tuple[int, int, str]:
        with watch_blocking_calls() as calls:
            task = asyncio.ensure_future(to_thread(hangs))
            await asyncio.to_thread(started.wait, 10)
            abandoned = calls.abandon()
            release.set()
            result = await task
            return abandoned, calls.abandon(), result

    # One call was running when abandoned; once it returned, none is left to abandon.
    assert asyncio.run(scenario()) == (1, 0, "late")


def test_to_thread_without_a_watch_runs_the_call() -> None:
    assert asyncio.run(to_thread(sum, [1, 2, 3])) == 6


def test_user_codes_own_errors_are_told_apart_from_a_cancellation() -> None:
    async def scenario() -> tuple[bool, bool, bool]:
        own_error = raised_by_user_code(ValueError("x"))
        own_cancel = raised_by_user_code(asyncio.CancelledError())  # nothing cancelled us
        seen: list[bool] = []

        async def cancelled() -> None:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError as exc:
                seen.append(raised_by_user_code(exc))
                raise

        task = asyncio.ensure_future(cancelled())
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return own_error, own_cancel, seen[0]

    assert asyncio.run(scenario()) == (True, True, False)
