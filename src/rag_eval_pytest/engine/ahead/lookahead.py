"""An xdist worker learns its tests one at a time: as a test starts, its case and the next
test's (pytest's ``nextitem``) are scheduled, so each worker keeps two cases in flight and
xdist supplies the parallelism across workers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .scheduler import Scheduler

if TYPE_CHECKING:
    import pytest

    from ..case import CaseTest


class LookaheadScheduler(Scheduler):
    """One test ahead. A worker runs only some of the tests it collected, so it does not
    count a case's tests: its memos stay for the run."""

    def _move(self, test: CaseTest, following: pytest.Item | None) -> None:
        nodeids = [test.item.nodeid, *([following.nodeid] if following is not None else [])]
        new = [n for n in nodeids if n not in self.ahead]
        self.ahead.update(new)
        self._schedule([self.plan.by_node[n] for n in new if n in self.plan.by_node])
