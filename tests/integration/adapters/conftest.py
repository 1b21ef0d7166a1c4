"""Fixtures of the adapter tests: the fault-injecting server and a recording sleep."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rag_eval_pytest.adapters.http import HttpAdapter

from .server import FaultServer


@pytest.fixture
def server() -> Iterator[FaultServer]:
    srv = FaultServer().start()
    yield srv
    srv.stop()


class SleepRecorder:
    """An injected ``sleep``: records each backoff wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(round(seconds, 6))


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def make(server: FaultServer, sleeps: SleepRecorder) -> Callable[..., HttpAdapter]:
    """An HttpAdapter on the test server with the recording sleep and no jitter."""

    def make(**kwargs: Any) -> HttpAdapter:
        kwargs.setdefault("answer", "data.answer")
        kwargs.setdefault("contexts", "data.documents[*].text")
        kwargs.setdefault("sources", "data.documents[*].metadata.source")
        kwargs.setdefault("sleep", sleeps)
        kwargs.setdefault("rand", lambda: 0.0)
        kwargs.setdefault("env", {})
        return HttpAdapter(kwargs.pop("endpoint", server.url), **kwargs)

    return make
