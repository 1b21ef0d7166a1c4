"""Fixtures of the whole suite: every test runs without the outer run's CI, xdist and secret
environment. The fixtures of the integration lane are in tests/integration/conftest.py."""

from __future__ import annotations

import pytest

# Plugins of this environment's other packages that no inner run uses (see below).
NOT_INSIDE = "-p no:langsmith_plugin -p no:hypothesispytest"


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
def _inner_runs_refuse_pytest_deprecations(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inner pytest runs (pytester's and the subprocesses tests start) turn pytest's removals
    (PytestRemovedIn10Warning) into errors, as the outer run does with its filterwarnings:
    the plugin must not depend on what the next pytest removes. They leave out two plugins
    of this environment's other packages that no test uses inside: langsmith's and
    hypothesis's took 3.5 of the 6 s a pytest subprocess needs to start here."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")  # which clears PYTEST_ADDOPTS as it starts
    monkeypatch.setenv("PYTEST_ADDOPTS", f"-W error::pytest.PytestRemovedIn10Warning {NOT_INSIDE}")
