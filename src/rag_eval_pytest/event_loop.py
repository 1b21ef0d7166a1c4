"""One event loop per process, on a daemon thread, for every adapter and judge call.

Tests are synchronous and may run inside someone else's event loop (pytest-asyncio), so the
plugin never calls ``asyncio.run`` from a test: it submits coroutines to this loop and waits.
One loop per process also lets HTTP clients reuse their connections across cases.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Coroutine

T = TypeVar("T")


class LoopThread:
    def __init__(self, name: str = "rag-eval-loop") -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
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
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self, cleanup: Coroutine[Any, Any, Any] | None = None) -> None:
        """Run ``cleanup`` (e.g. closing clients), then stop the loop and its thread."""
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
        if not thread.is_alive():
            loop.close()


async def _cancel_pending() -> None:
    """Cancel work nobody waits for any more (prefetching after ``-x``, an interrupted run)."""
    current = asyncio.current_task()
    pending = [task for task in asyncio.all_tasks() if task is not current]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
