"""One event loop per process, on a daemon thread, for every adapter and judge call.

Tests are synchronous and may run inside someone else's event loop (pytest-asyncio), so the
plugin never calls ``asyncio.run`` from a test: it submits coroutines to this loop and waits.
One loop per process also lets HTTP clients reuse their connections across cases.

Blocking calls (a sync RAG callable, a sync judge callable, the embedding model) run through
``asyncio.to_thread`` in the loop's default executor, which here is
:class:`DaemonThreadExecutor`: its threads never hold the process at exit, so Ctrl-C during a
RAG call that hangs ends the run at once (the reports of what finished are written first).

A blocking call that outlives its timeout cannot be stopped (Python cannot kill a thread):
:func:`to_thread` records which worker threads run the calls of a task started under
:func:`watch_blocking_calls`, and :meth:`BlockingCalls.abandon` gives such threads up. The
pool starts another thread in place of each, and the end of the run does not wait for them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import os
import queue
import threading
import time
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine, Iterator

T = TypeVar("T")


class LoopThread:
    def __init__(self, name: str = "rag-eval-loop") -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._executor: DaemonThreadExecutor | None = None
        # Called with the future the main thread is about to wait for (the progress line).
        self.waiter: Callable[[concurrent.futures.Future[Any]], None] | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._executor = DaemonThreadExecutor(f"{self._name}-worker")
                loop.set_default_executor(self._executor)
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                thread = threading.Thread(target=serve, name=self._name, daemon=True)
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop

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
            loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(callback, *args)

    def close(
        self, cleanup: Coroutine[Any, Any, Any] | None = None, *, threads_timeout: float = 0
    ) -> None:
        """Run ``cleanup`` (e.g. closing clients), then stop the loop and its thread, and wait
        up to ``threads_timeout`` seconds for blocking calls still running in worker threads
        (a model still loading must not be cut off inside native code at exit; after Ctrl-C
        a hung RAG call is not waited for)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            if cleanup is not None:
                cleanup.close()
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(_cancel_pending(), loop).result(timeout=10)
        if cleanup is not None:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(cleanup, loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        if threads_timeout > 0 and self._executor is not None:
            self._executor.join(threads_timeout)
        if not thread.is_alive():
            loop.close()


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
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in threads:
            self._queue.put(None)
        if wait:
            for thread in threads:
                thread.join()
