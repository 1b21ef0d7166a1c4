"""Shared fixtures of the test suite."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import APP, DEFAULT_CASES, preload_plugin_modules
from tests.servers.fake_llm import FakeLLMServer

# In-process pytester runs drop the modules they imported when they end; loading the
# plugin's modules here first keeps one copy of each class across all inner runs.
preload_plugin_modules()


@pytest.fixture(autouse=True)
def _isolate_from_outer_xdist(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytester runs must not believe they are xdist workers of the outer run, nor
    behave as on a CI machine when the outer run is on one (pytest prints whole messages in
    its short summary there)."""
    for name in (
        "CI",
        "BUILD_NUMBER",
        "PYTEST_XDIST_WORKER",
        "PYTEST_XDIST_WORKER_COUNT",
        "PYTEST_XDIST_TESTRUNUID",
        "RAG_AUTH_HEADER",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GITHUB_STEP_SUMMARY",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _inner_runs_refuse_pytest_deprecations(request: pytest.FixtureRequest) -> None:
    """Inner pytester runs turn pytest's removals (PytestRemovedIn10Warning) into errors, as
    the outer run does with its filterwarnings: the plugin must not depend on what the next
    pytest removes."""
    if "pytester" not in request.fixturenames:
        return
    request.getfixturevalue("pytester")  # which clears PYTEST_ADDOPTS as it starts
    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-W error::pytest.PytestRemovedIn10Warning")


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
