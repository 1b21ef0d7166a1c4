"""Fixtures of the judge tests: the scripted fake LLM server and a recording sleep."""

from __future__ import annotations

import pytest

from rag_eval_pytest.runtime.retry import RetryPolicy


class RecordingSleep:
    """Stands in for ``asyncio.sleep`` in retry policies: records the waits, waits nothing."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def retry(sleeps: RecordingSleep) -> RetryPolicy:
    return RetryPolicy(max_attempts=3, base_delay=0.5, max_delay=4.0, sleep=sleeps)
