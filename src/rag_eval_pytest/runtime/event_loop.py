"""The plugin's event loop, and the loop the RAG system's async code runs on, each on a daemon
thread of its own.

Tests are synchronous and may run inside someone else's event loop (pytest-asyncio), so the
plugin never calls ``asyncio.run`` from a test: it submits coroutines to its loop
(:class:`LoopThread`, one per process) and waits. One loop per process also lets HTTP clients
reuse their connections across cases.

The RAG system's code is the user's, and an ``async def`` function that makes a blocking call
(``time.sleep``, a sync HTTP client) stops the loop it runs on: no timeout set on that loop can
fire, and nothing else on it runs. So that code runs on a loop of its own,
:class:`GuardedLoop`, watched from the plugin's loop, which stays free: a call that does not
finish within its timeout while it keeps its loop from running (its heartbeat, :data:`TICK`,
stops) ends with :class:`LoopBlocked`; that loop is given up (its daemon thread never holds
the process), and the calls that waited on it start again on a fresh one.

Blocking calls (a sync RAG callable, a sync judge callable, the embedding model) run through
``asyncio.to_thread`` in the loops' default executor, which here is
:class:`DaemonThreadExecutor`: its threads never hold the process at exit, so Ctrl-C during a
RAG call that hangs ends the run at once (the reports of what finished are written first).

A blocking call that outlives its timeout cannot be stopped (Python cannot kill a thread):
:func:`to_thread` records which worker threads run the calls of a task started under
:func:`watch_blocking_calls`, and :meth:`BlockingCalls.abandon` gives such threads up. The
pool starts another thread in place of each, and the end of the run does not wait for them.

The end of a run waits for each loop a bounded time (:data:`CLOSE_WAIT`, less after Ctrl-C
or SIGTERM), and not at all for a loop that is blocked.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine, Iterator

T = TypeVar("T")

TICK = 0.1
"""Seconds between the heartbeats of a loop."""
BLOCKED_AFTER = 0.5
"""A loop whose last heartbeat is older than this is blocked: the code on it is not awaiting."""
RECHECK = 0.25
"""Seconds between the looks of a call that waits behind another call blocking its loop."""
CLOSE_WAIT = 10.0
"""Seconds each step of closing a loop (cancelling, closing clients, stopping) may take."""
BLOCKED_WAIT = 1.0
"""Seconds closing a loop that looks blocked gives it to show otherwise."""


class _Serving:
    """One event loop running on a daemon thread, with a heartbeat other threads can read."""

    def __init__(self, name: str, executor: DaemonThreadExecutor) -> None:
        loop = asyncio.new_event_loop()
        loop.set_default_executor(executor)
        self.loop = loop
        self.ticked = time.monotonic()
        self.tasks: dict[asyncio.Future[Any], _Call] = {}  # the guarded calls running on it
        self.abandoned = False
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.call_soon(self._tick)
            try:
                loop.run_forever()
            finally:
                if self.abandoned:  # it came back after all: nobody else will close it
                    loop.close()

        self.thread = threading.Thread(target=serve, name=name, daemon=True)
        self.thread.start()
        ready.wait()

    def _tick(self) -> None:
        self.ticked = time.monotonic()
        self.loop.call_later(TICK, self._tick)

    def blocked_for(self) -> float:
        """Seconds since the loop last ran its heartbeat when that makes it blocked, else 0."""
        gap = time.monotonic() - self.ticked
        return gap if gap > BLOCKED_AFTER else 0.0

    def running(self) -> _Call | None:
        """The guarded call whose task runs on the loop now (``None``: none, or another task)."""
        try:
            task = asyncio.current_task(self.loop)
        except RuntimeError:
            return None
        return self.tasks.get(task) if task is not None else None

    def abandon(self) -> None:
        """Give the loop up: should the code blocking it return, its tasks are cancelled and
        it stops; its thread is a daemon and nobody waits for it."""
        self.abandoned = True
        with contextlib.suppress(RuntimeError):  # closed meanwhile
            self.loop.call_soon_threadsafe(self._wind_down)

    def _wind_down(self) -> None:
        for task in asyncio.all_tasks(self.loop):
            task.cancel()
        self.loop.call_soon(self.loop.stop)  # after the cancelled tasks' last step

    def stop(self, wait: float, cleanup: Coroutine[Any, Any, Any] | None = None) -> None:
        """Cancel what runs on the loop, run ``cleanup`` (closing clients), stop the loop and
        its thread, each step waiting up to ``wait`` seconds; a loop that does not answer the
        first step (blocked) is given up at once."""
        if not self._cancelled(wait, cleanup):
            return
        if cleanup is not None:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(cleanup, self.loop).result(wait)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=wait)
        if not self.thread.is_alive():
            self.loop.close()

    def _cancelled(self, wait: float, cleanup: Coroutine[Any, Any, Any] | None) -> bool:
        """Cancel what runs on the loop; whether it answered in time. A loop that does not
        (blocked: given less time) is given up, and ``cleanup`` is closed unrun."""
        first = min(wait, BLOCKED_WAIT) if self.blocked_for() else wait
        try:
            asyncio.run_coroutine_threadsafe(_cancel_pending(), self.loop).result(first)
        except concurrent.futures.TimeoutError:
            if cleanup is not None:
                cleanup.close()
            self.abandon()
            return False
        except Exception:  # best effort at the end of a run: go on closing
            pass
        return True


class LoopThread:
    """The plugin's event loop: every adapter and judge call goes through it."""

    def __init__(self, name: str = "rag-eval-loop") -> None:
        self._name = name
        self._serving: _Serving | None = None
        self._lock = threading.Lock()
        self._executor: DaemonThreadExecutor | None = None
        # Called with the future the main thread is about to wait for (the progress line).
        self.waiter: Callable[[concurrent.futures.Future[Any]], None] | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._serving is None:
                self._executor = DaemonThreadExecutor(f"{self._name}-worker")
                self._serving = _Serving(self._name, self._executor)
            return self._serving.loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for its result (re-raising its exception)."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        waiter = self.waiter
        if waiter is not None and threading.current_thread() is threading.main_thread():
            waiter(future)
        return future.result()

    def call_soon(self, callback: Callable[..., object], *args: Any) -> None:
        """Run ``callback(*args)`` on the loop soon, without waiting for it; nothing when the
        loop was never started (no work has been done on it)."""
        with self._lock:
            serving = self._serving
        if serving is not None and not serving.loop.is_closed():
            serving.loop.call_soon_threadsafe(callback, *args)

    def close(
        self,
        cleanup: Coroutine[Any, Any, Any] | None = None,
        *,
        threads_timeout: float = 0,
        wait: float = CLOSE_WAIT,
    ) -> None:
        """Run ``cleanup`` (e.g. closing clients), then stop the loop and its thread (each
        step waiting up to ``wait`` seconds, none for a blocked loop), and wait up to
        ``threads_timeout`` seconds for blocking calls still running in worker threads (a
        model still loading must not be cut off inside native code at exit; after Ctrl-C a
        hung RAG call is not waited for)."""
        with self._lock:
            serving, self._serving = self._serving, None
        if serving is None:
            if cleanup is not None:
                cleanup.close()
            return
        serving.stop(wait, cleanup)
        if threads_timeout > 0 and self._executor is not None:
            self._executor.join(threads_timeout)


class LoopBlocked(Exception):
    """A call on a :class:`GuardedLoop` did not finish within its timeout while it kept its
    loop from running (a blocking call in async code). The loop was given up."""

    def __init__(self, timeout: float | None) -> None:
        super().__init__("blocked the event loop past its timeout")
        self.timeout = timeout


@dataclass(eq=False)
class _Call:
    """One call on a :class:`GuardedLoop`: how to start it (again), its result across the
    loops it runs on, and where it runs now."""

    make: Callable[[], Coroutine[Any, Any, Any]]
    timeout: float | None
    context: contextvars.Context
    done: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)
    started: float = field(default_factory=time.monotonic)
    serving: _Serving | None = None
    task: asyncio.Future[Any] | None = None  # set on the serving loop's thread


class GuardedLoop:
    """A loop of its own for code that may block it (the RAG system's async code), watched
    by the callers on another loop (:meth:`call`). Started when the first call comes; after
    a call blocked it, a fresh one is started for the calls that follow."""

    def __init__(self, name: str = "rag-eval-rag-loop") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._serving: _Serving | None = None
        self._executor: DaemonThreadExecutor | None = None
        self._calls: set[_Call] = set()
        self.given_up = 0
        """Loops given up because a call blocked them."""

    async def call(self, make: Callable[[], Coroutine[Any, Any, T]], timeout: float | None) -> T:
        """``await make()`` on the guarded loop, from the caller's loop. Raises
        ``asyncio.TimeoutError`` when it does not finish within ``timeout`` seconds (it is
        cancelled), and :class:`LoopBlocked` when, by then, it keeps its loop from running: the
        loop is given up. A call that waits behind another one blocking the loop starts again
        on a fresh loop, its timeout counted from then."""
        call = _Call(make, timeout, contextvars.copy_context())
        self._submit(call)
        waiter = asyncio.wrap_future(call.done)
        try:
            while True:
                done, _ = await asyncio.wait({waiter}, timeout=self._until_check(call))
                if done:
                    result: T = waiter.result()
                    return result
                self._check(call)
        finally:
            self._drop(call)

    def _serving_now(self) -> _Serving:
        if self._serving is None:
            if self._executor is None:
                self._executor = DaemonThreadExecutor(f"{self._name}-worker")
            self._serving = _Serving(self._name, self._executor)
        return self._serving

    def _submit(self, call: _Call) -> None:
        with self._lock:
            serving = call.serving = self._serving_now()
            call.started = time.monotonic()
            self._calls.add(call)
        context = call.context.copy()
        serving.loop.call_soon_threadsafe(self._start, call, serving, context=context)

    def _start(self, call: _Call, serving: _Serving) -> None:
        """Start the call's task. Runs on the serving loop."""
        if call.done.done() or call.serving is not serving:
            return
        try:
            task = serving.loop.create_task(call.make())
        except BaseException as exc:  # handed to the caller
            _settle(call.done, exc=exc)
            return
        call.task = task
        serving.tasks[task] = call
        task.add_done_callback(functools.partial(self._finished, call, serving))

    def _finished(self, call: _Call, serving: _Serving, task: asyncio.Future[Any]) -> None:
        """Hand the task's outcome to the caller. Runs on the serving loop."""
        serving.tasks.pop(task, None)
        if call.serving is not serving:  # started again elsewhere: this one is stale
            return
        if task.cancelled():
            call.done.cancel()
        elif task.exception() is not None:
            _settle(call.done, exc=task.exception())
        else:
            _settle(call.done, result=task.result())

    def _until_check(self, call: _Call) -> float | None:
        if call.timeout is None:
            return None
        return max(call.started + call.timeout - time.monotonic(), RECHECK)

    def _check(self, call: _Call) -> None:
        """The call's time is up, or it waits behind another call blocking its loop: raise
        for it, or let it wait on (started again on a fresh loop, or the blocking call's own
        time not up yet)."""
        assert call.timeout is not None
        assert call.serving is not None
        if call.done.done() or time.monotonic() < call.started + call.timeout:
            return  # finished, or started again meanwhile
        self._time_up(call, call.serving, call.timeout)

    def _time_up(self, call: _Call, serving: _Serving, timeout: float) -> None:
        """The call's time on ``serving`` is up: a timeout when the loop runs, else whoever
        blocks it is given up with the loop."""
        blocked = serving.blocked_for()
        if not blocked:
            raise asyncio.TimeoutError
        blocker = serving.running()
        if blocker is None or blocker is call:  # blocked by the call, or by a task it started
            self._give_up(serving, call)
            raise LoopBlocked(timeout)
        if blocked >= timeout:  # another call blocks it as long as this one may take
            self._give_up(serving, blocker)

    def _give_up(self, serving: _Serving, culprit: _Call) -> None:
        """The loop is blocked by ``culprit``: it fails with :class:`LoopBlocked`, the loop
        is given up, and the other calls on it start again on a fresh one."""
        with self._lock:
            if self._serving is serving:
                self._serving = None
                self.given_up += 1
            moved = self._others_on(serving, culprit)
        _settle(culprit.done, exc=LoopBlocked(culprit.timeout))
        serving.abandon()
        for call in moved:
            self._submit(call)

    def _others_on(self, serving: _Serving, culprit: _Call) -> list[_Call]:
        """The calls but ``culprit`` still waiting on ``serving``. Called under the lock."""
        return [
            c
            for c in self._calls
            if c.serving is serving and c is not culprit and not c.done.done()
        ]

    def _drop(self, call: _Call) -> None:
        """The caller no longer waits: cancel what is left of the call."""
        with self._lock:
            self._calls.discard(call)
        call.done.cancel()
        serving, task = call.serving, call.task
        if serving is not None and task is not None and not task.done():
            with contextlib.suppress(RuntimeError):  # its loop is closed
                serving.loop.call_soon_threadsafe(task.cancel)

    def close(self, *, threads_timeout: float = 0, wait: float = CLOSE_WAIT) -> None:
        """Cancel the calls left and stop the loop (each step waiting up to ``wait`` seconds,
        none for a blocked loop); then wait up to ``threads_timeout`` seconds for blocking
        calls still running in worker threads, as :meth:`LoopThread.close`."""
        with self._lock:
            serving, self._serving = self._serving, None
            calls = list(self._calls)
        for call in calls:
            call.done.cancel()
        if serving is not None:
            serving.stop(wait)
        if threads_timeout > 0 and self._executor is not None:
            self._executor.join(threads_timeout)


def _settle(
    future: concurrent.futures.Future[Any],
    result: Any = None,
    exc: BaseException | None = None,
) -> None:
    """Set a future's outcome unless it has one (the caller gave up, or a watcher decided)."""
    with contextlib.suppress(concurrent.futures.InvalidStateError):
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(result)


async def _cancel_pending() -> None:
    """Cancel work nobody waits for any more (prefetching after ``-x``, an interrupted run)."""
    current = asyncio.current_task()
    pending = [task for task in asyncio.all_tasks() if task is not current]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


_ABANDONED: set[threading.Thread] = set()
_ABANDONED_LOCK = threading.Lock()


class BlockingCalls:
    """The worker threads running the blocking calls of one task, while they run."""

    def __init__(self) -> None:
        self._running: set[threading.Thread] = set()

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        me = threading.current_thread()
        with _ABANDONED_LOCK:
            self._running.add(me)
        try:
            return fn(*args)
        finally:
            with _ABANDONED_LOCK:
                self._running.discard(me)
                _ABANDONED.discard(me)  # it returned after all: back in the pool

    def abandon(self) -> int:
        """Give up the calls still running (they timed out); returns how many there were."""
        with _ABANDONED_LOCK:
            _ABANDONED.update(self._running)
            return len(self._running)


_WATCH: contextvars.ContextVar[BlockingCalls | None] = contextvars.ContextVar(
    "rag_eval_blocking_calls", default=None
)


@contextlib.contextmanager
def watch_blocking_calls() -> Iterator[BlockingCalls]:
    """Record the blocking calls that :func:`to_thread` starts in this task."""
    calls = BlockingCalls()
    token = _WATCH.set(calls)
    try:
        yield calls
    finally:
        _WATCH.reset(token)


async def to_thread(fn: Callable[..., T], /, *args: Any) -> T:
    """``asyncio.to_thread``, recorded by :func:`watch_blocking_calls` when one is active."""
    calls = _WATCH.get()
    if calls is None:
        return await asyncio.to_thread(fn, *args)
    return await asyncio.to_thread(calls.run, fn, *args)


def raised_by_user_code(exc: BaseException) -> bool:
    """Whether ``exc``, caught around a call of user code (the RAG system, a custom judge), is
    that code's own: anything but the running task's cancellation (the run stopping, a
    timeout). A ``CancelledError`` the code raised itself while nothing cancelled the task is
    its own (Python 3.10 cannot tell the two apart: there it counts as a cancellation)."""
    if not isinstance(exc, asyncio.CancelledError):
        return True
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is not None and cancelling() == 0


def _abandoned(threads: list[threading.Thread]) -> int:
    with _ABANDONED_LOCK:
        return sum(1 for thread in threads if thread in _ABANDONED)


_WorkItem = tuple[
    "concurrent.futures.Future[Any]", "Callable[..., Any]", tuple[Any, ...], dict[str, Any]
]


class DaemonThreadExecutor(concurrent.futures.ThreadPoolExecutor):
    """A thread pool whose threads are daemons.

    ``concurrent.futures.ThreadPoolExecutor`` joins its threads when the interpreter exits, so
    a blocking call that never returns (a hung RAG system) keeps an interrupted run alive
    after its reports are written. Here idle threads are reused, new ones start up to
    ``max_workers``, and shutting down never waits for a call still running. It subclasses
    ``ThreadPoolExecutor`` only because asyncio accepts no other default executor; ``submit``
    and ``shutdown`` are its own, none of the base class's threads ever start.
    """

    def __init__(self, name: str = "rag-eval-worker", max_workers: int | None = None) -> None:
        super().__init__(max_workers=1)
        self._name = name
        self._pool_size = max_workers or min(32, (os.cpu_count() or 1) + 4)
        self._queue: queue.SimpleQueue[_WorkItem | None] = queue.SimpleQueue()
        self._idle_daemons = threading.Semaphore(0)
        self._daemons: list[threading.Thread] = []
        self._daemon_lock = threading.Lock()
        self._stopping = False

    def submit(
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._daemon_lock:
            if self._stopping:
                raise RuntimeError("cannot schedule new work after shutdown")
            self._queue.put((future, fn, args, kwargs))
            idle = self._idle_daemons.acquire(blocking=False)
            working = len(self._daemons) - _abandoned(self._daemons)
            if not idle and working < self._pool_size:
                thread = threading.Thread(
                    target=self._serve, name=f"{self._name}-{len(self._daemons)}", daemon=True
                )
                thread.start()
                self._daemons.append(thread)
        return future

    def _serve(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args, **kwargs)
                except BaseException as exc:  # handed to whoever awaits the future
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            del item, future, fn, args, kwargs
            self._idle_daemons.release()

    def join(self, timeout: float) -> None:
        """Stop taking work and wait up to ``timeout`` seconds in all for the calls running."""
        self.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + timeout
        for thread in list(self._daemons):
            with _ABANDONED_LOCK:
                if thread in _ABANDONED:  # a call given up after its timeout
                    continue
            thread.join(max(0.0, deadline - time.monotonic()))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._daemon_lock:
            self._stopping = True
            threads = list(self._daemons)
        if cancel_futures:
            self._cancel_queued()
        for _ in threads:
            self._queue.put(None)
        if wait:
            for thread in threads:
                thread.join()

    def _cancel_queued(self) -> None:
        """Cancel the calls no thread has taken yet."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                item[0].cancel()
