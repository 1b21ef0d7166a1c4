"""The integration lane: pytest runs inside a test (pytester), subprocesses, loopback servers
and the local model. Every test under this folder is marked ``integration``, so
``pytest -m "not integration"`` runs the unit lane alone."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import APP, DEFAULT_CASES, preload_plugin_modules
from tests.servers.fake_llm import FakeLLMServer

# In-process pytester runs drop the modules they imported when they end; loading the
# plugin's modules here first keeps one copy of each class across all inner runs. Done here,
# not in tests/conftest.py: the unit lane does not pay for importing torch and the SDKs.
preload_plugin_modules()

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def write_dataset(pytester: pytest.Pytester) -> Callable[..., Path]:
    """Write a JSON dataset in the pytester directory and return its path."""

    def write(
        cases: list[dict[str, Any]] | None = None,
        name: str = "dataset.json",
        metadata: dict[str, Any] | None = None,
    ) -> Path:
        doc = {
            "metadata": {"name": "t", "created": "2099-01-01"} if metadata is None else metadata,
            "test_cases": DEFAULT_CASES if cases is None else cases,
        }
        path = pytester.path / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        return path

    return write


@pytest.fixture
def rag_app(pytester: pytest.Pytester) -> str:
    """A tiny keyword-retrieval RAG app as ``app:answer``: tc_003's question misses."""
    pytester.makepyfile(app=APP)
    pytester.syspathinsert()
    return "app:answer"


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """The scripted fake LLM server (Messages and Chat Completions APIs) on 127.0.0.1."""
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()
