"""Stand-ins for what the schedulers work with: items with node ids, a session whose loop
runs a coroutine at once, and a scheduler that records what it schedules instead of
querying and measuring."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from types import SimpleNamespace
from typing import Any

from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.engine.ahead.plan import PlannedTest, TestPlan
from rag_eval_pytest.engine.ahead.scheduler import Scheduler
from rag_eval_pytest.engine.requests import PlannedMetric
from rag_eval_pytest.engine.tasks import PendingTasks


class Item:
    """What the schedulers read of a pytest item."""

    def __init__(self, nodeid: str, stash: dict[Any, Any] | None = None, parent: Any = None):
        self.nodeid = nodeid
        self.stash = stash or {}
        self.parent = parent


class Loop:
    def __init__(self) -> None:
        self.runs = 0

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        self.runs += 1
        return asyncio.run(coro)


class Session:
    def __init__(self, limit: int = 1, recorded: frozenset[str] = frozenset()) -> None:
        self.settings = Settings(concurrency={"limit": limit})
        self.loop = Loop()
        self.progress = SimpleNamespace(cases=0)
        self.recorded = recorded

    def case(self, key: str) -> Any:
        return SimpleNamespace(case=SimpleNamespace(has_recorded_answer=key in self.recorded))


class Running:
    """A running test: its item, and its fixtures' adapter and judge (counted)."""

    def __init__(self, nodeid: str, judge: Any = None) -> None:
        self.item = Item(nodeid)
        self.judge_calls = 0
        self._judge = judge

    def adapter(self) -> Any:
        return object()

    def judge(self) -> Any:
        self.judge_calls += 1
        if isinstance(self._judge, BaseException):
            raise self._judge
        return self._judge


def planned(
    count: int, function: str = "t.py::test_a", requests: list[PlannedMetric] | None = None
) -> list[PlannedTest]:
    """``count`` tests of one function, one case each (c0, c1, ...)."""
    return [
        PlannedTest(f"c{n}", function, list(requests or []), nodeid=f"{function}[c{n}]")
        for n in range(count)
    ]


def recording(base: type[Scheduler]) -> type[Scheduler]:
    """``base`` that records the node ids it schedules (after its own filtering)."""

    class Recording(base):  # type: ignore[valid-type, misc]
        def __init__(self, plan: TestPlan, session: Session) -> None:
            super().__init__(plan, session, None, None, None, PendingTasks())  # type: ignore[arg-type]
            self.scheduled: list[list[str]] = []

        async def _schedule_on_loop(self, tests: list[PlannedTest]) -> None:
            self.scheduled.append([t.nodeid for t in tests])

    return Recording
