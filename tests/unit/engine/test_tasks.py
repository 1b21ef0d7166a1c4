"""The work in flight that a stop cancels: a task is kept until it finishes, and a stop
cancels every pending one and waits for them to end."""

from __future__ import annotations

import asyncio

from rag_eval_pytest.engine.tasks import PendingTasks


def test_tasks_are_kept_until_they_finish() -> None:
    async def scenario() -> tuple[int, int]:
        pending = PendingTasks()
        gate = asyncio.Event()
        waiting = asyncio.ensure_future(gate.wait())
        pending.keep(waiting)
        kept = len(pending)
        gate.set()
        await waiting
        await asyncio.sleep(0)  # the done callback runs on the next turn of the loop
        return kept, len(pending)

    assert asyncio.run(scenario()) == (1, 0)


def test_a_finished_task_is_not_kept() -> None:
    async def scenario() -> int:
        pending = PendingTasks()
        done = asyncio.ensure_future(asyncio.sleep(0))
        await done
        pending.keep(done)
        return len(pending)

    assert asyncio.run(scenario()) == 0


def test_cancel_ends_every_pending_task() -> None:
    async def scenario() -> tuple[bool, bool, int]:
        pending = PendingTasks()
        forever = [asyncio.ensure_future(asyncio.Event().wait()) for _ in range(3)]
        for task in forever:
            pending.keep(task)
        await pending.cancel()
        await asyncio.sleep(0)
        return all(t.cancelled() for t in forever), all(t.done() for t in forever), len(pending)

    assert asyncio.run(scenario()) == (True, True, 0)


def test_cancel_with_nothing_pending_returns() -> None:
    asyncio.run(PendingTasks().cancel())
