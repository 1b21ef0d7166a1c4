"""A plain run knows its tests in advance: it works a window of them ahead of the running
one, refilled as the tests go, and counts each case's tests to let its memos go."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .scheduler import Scheduler

if TYPE_CHECKING:
    import pytest

    from ..case import CaseTest

AHEAD_PER_SLOT = 4
"""How far ahead of the running test the window reaches: tests per case slot
(``concurrency.limit``; 32 tests with the default 8)."""


class WindowScheduler(Scheduler):
    """The window of a plain run: far enough ahead to keep the RAG system and the judge
    busy, near enough that the results waiting for their tests stay few whatever the
    dataset's size."""

    counts_cases = True
    _cursor = 0  # the planned tests before it are scheduled

    def _move(self, test: CaseTest, following: pytest.Item | None) -> None:
        """Schedule the planned tests up to the window ahead of the running test, once less
        than half of the window is left (so a thread switch is paid every few tests)."""
        position = self.plan.position.get(test.item.nodeid)
        if position is None:  # a test the plan does not know: a case made in code
            return
        window = AHEAD_PER_SLOT * self.session.settings.concurrency.limit
        if self._cursor > position + window // 2:
            return
        tests = self.plan.tests
        end = min(len(tests), position + 1 + window)
        new = tests[self._cursor : end]
        self._cursor = max(self._cursor, end)
        self.ahead.update(t.nodeid for t in new)
        self._schedule(new)
