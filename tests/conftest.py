"""Fixtures of the whole suite: every test runs without the outer run's CI, xdist and secret
environment. The fixtures of the integration lane are in tests/integration/conftest.py."""

from __future__ import annotations

import pytest

# Plugins of this environment's other packages that no inner run uses (see below).
NOT_INSIDE = "-p no:langsmith_plugin -p no:hypothesispytest"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The order in which ``make test`` hands whole files to its xdist workers (it passes
    ``--no-loadscope-reorder``): files marked ``slow`` first, then the files with the most
    tests, as xdist orders them by itself. Left to xdist, the two slow files (the install
    matrix and the CI docs, 2 minutes each for 8 tests) started last and ran alone at the
    end of the run."""
    sizes: dict[object, int] = {}
    for item in items:
        sizes[item.path] = sizes.get(item.path, 0) + 1
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (item.path not in slow_files, -sizes[item.path]))


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
