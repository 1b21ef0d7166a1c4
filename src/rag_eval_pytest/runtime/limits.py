"""Bounded, adaptive concurrency for network calls (the RAG system, the judge).

:class:`AdaptiveLimiter` is a semaphore whose size backs off when the server pushes back:
a throttle signal (429, overload, a timeout) halves the limit, and every ``limit`` successes
in a row add one slot back, up to the configured maximum (additive increase, multiplicative
decrease). Waiters are served in arrival order, so work scheduled first (critical cases)
starts first.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import AsyncIterator


class AdaptiveLimiter:
    def __init__(self, maximum: int) -> None:
        if maximum < 1:
            raise ValueError("a concurrency limit must be at least 1")
        self.maximum = maximum
        self.limit = maximum
        self.in_flight = 0
        self.peak = 0
        self._successes = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self.responded = asyncio.Event()  # the server has answered once (or pushed back)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the ``limit`` slots for the duration of the block."""
        await self._acquire()
        try:
            yield
        finally:
            self._release()

    async def _acquire(self) -> None:
        if self.in_flight < self.limit and not self._waiters:
            self._take()
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # the slot was handed over as we were cancelled
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            raise

    def _take(self) -> None:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def _release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._take()
                waiter.set_result(None)

    def throttled(self) -> None:
        """The server pushed back: halve the limit (at least 1)."""
        self.responded.set()
        self.limit = max(1, self.limit // 2)
        self._successes = 0

    def succeeded(self) -> None:
        """A call went through: after ``limit`` successes in a row, one more slot."""
        self.responded.set()
        self._successes += 1
        if self.limit < self.maximum and self._successes >= self.limit:
            self.limit += 1
            self._successes = 0
            self._wake()
