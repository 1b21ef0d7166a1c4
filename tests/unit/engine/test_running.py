"""The test running now, and its run's engine: a case made in code finds the innermost test
running (a test may run pytest in-process), none outside a test; the engine is the runner's,
or made on first use by the dormant plugin of a run without a dataset, or none when the
plugin is not loaded."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from rag_eval_pytest.engine import running as running_module
from rag_eval_pytest.engine.running import (
    DORMANT_PLUGIN,
    RUNNER_PLUGIN,
    current_item,
    engine_for,
    running,
)
from rag_eval_pytest.errors import ConfigError
from tests.unit.engine.fakes import Plugins

OUTER = cast("pytest.Item", SimpleNamespace(nodeid="outer"))
INNER = cast("pytest.Item", SimpleNamespace(nodeid="inner"))


@pytest.fixture(autouse=True)
def _no_test_running(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests marked running by the outer run (this test itself) are out of sight."""
    monkeypatch.setattr(running_module, "_RUNNING", [])


def config(**plugins: Any) -> Any:
    return SimpleNamespace(pluginmanager=Plugins(plugins))


def test_outside_a_test_nothing_is_running() -> None:
    assert current_item() is None


def test_the_innermost_test_is_the_one_running_until_it_ends() -> None:
    with running(OUTER):
        assert current_item() is OUTER
        with running(INNER):
            assert current_item() is INNER
        assert current_item() is OUTER
    assert current_item() is None


def test_a_test_that_raises_is_no_longer_running() -> None:
    with pytest.raises(RuntimeError), running(OUTER):
        raise RuntimeError("the test failed")
    assert current_item() is None


def test_a_test_ending_out_of_order_takes_only_itself_away() -> None:
    outer, inner = running(OUTER), running(INNER)
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)  # the outer test's protocol ends first
    assert current_item() is INNER
    inner.__exit__(None, None, None)
    assert current_item() is None


class Dormant:
    def __init__(self, made: Any = None, fails: Exception | None = None) -> None:
        self.made, self.fails = made, fails
        self.activated = 0

    def activate(self) -> Any:
        self.activated += 1
        if self.fails is not None:
            raise self.fails
        return self.made


def test_a_process_that_runs_tests_gives_its_engine() -> None:
    engine, dormant = object(), Dormant()
    runner = SimpleNamespace(engine=engine)
    found = engine_for(config(**{RUNNER_PLUGIN: runner, DORMANT_PLUGIN: dormant}))
    assert found is engine
    assert dormant.activated == 0


def test_a_run_without_a_dataset_makes_its_engine_on_first_use() -> None:
    made = object()
    dormant = Dormant(made)
    assert engine_for(config(**{DORMANT_PLUGIN: dormant})) is made
    assert dormant.activated == 1


def test_a_bad_configuration_met_then_is_raised_to_the_case() -> None:
    dormant = Dormant(fails=ConfigError("judge.kind: unknown"))
    with pytest.raises(ConfigError, match=r"judge\.kind: unknown"):
        engine_for(config(**{DORMANT_PLUGIN: dormant}))


def test_without_the_plugin_there_is_no_engine() -> None:
    assert engine_for(config()) is None
