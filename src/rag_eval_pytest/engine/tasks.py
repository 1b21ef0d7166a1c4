"""The work in flight of one process: what a stop (``-x``, ``--maxfail``) cancels."""

from __future__ import annotations

import asyncio
from typing import Any


class PendingTasks:
    """The tasks started ahead of the tests that have not finished. Call on the loop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Future[Any]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def keep(self, task: asyncio.Future[Any]) -> None:
        """Remember ``task`` until it finishes, to cancel it on a stop."""
        if not task.done():
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def cancel(self) -> None:
        """Cancel every pending task and wait for them to end."""
        pending = [t for t in self._tasks if not t.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
