"""A run's start: the roles each process registers, and the runs that end before any test
(bad input, a warning made fatal, a dry run). The config is a stand-in; the session and the
roles are real."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.engine.running import DORMANT_PLUGIN, RUNNER_PLUGIN
from rag_eval_pytest.pytest_support.aggregation import AggregatingProcess
from rag_eval_pytest.pytest_support.guard import AGGREGATING_PLUGIN, SingleExitMessage
from rag_eval_pytest.pytest_support.inline import DormantRun
from rag_eval_pytest.pytest_support.runner import Runner, WorkerRunner
from rag_eval_pytest.pytest_support.startup import start_dataset_run, start_dormant_run
from tests.unit.pytest_support.fakes import Config, write_dataset

NO_TRUTH = ({"id": "a"}, {"id": "b", "ground_truth": None})


@pytest.fixture
def started() -> Iterator[list[Config]]:
    """The configs of the runs started: their SIGTERM handlers are given back after."""
    configs: list[Config] = []
    yield configs
    for config in configs:
        process = config.pluginmanager.get_plugin(AGGREGATING_PLUGIN)
        if process is not None:
            process.pytest_unconfigure()


def start(started: list[Config], tmp_path: Path, *cases: Any, **given: Any) -> Config:
    config = Config(tmp_path, **given)
    started.append(config)
    start_dataset_run(config, [write_dataset(tmp_path, *(cases or ({"id": "a"},)))])
    return config


def test_a_plain_run_registers_the_runner_and_the_aggregating_process(
    started: list[Config], tmp_path: Path
) -> None:
    config = start(started, tmp_path, *NO_TRUTH)
    plugins = config.pluginmanager
    assert isinstance(plugins.get_plugin("rag_eval_single_exit_message"), SingleExitMessage)
    assert type(plugins.get_plugin(RUNNER_PLUGIN)) is Runner
    process = plugins.get_plugin(AGGREGATING_PLUGIN)
    assert isinstance(process, AggregatingProcess)
    assert process.sigterm is not None  # SIGTERM ends the run as Ctrl-C does
    # The datasets' warnings were issued, as pytest warnings, once.
    assert [str(w.message) for w in config.recorded] == process.session.datasets.warnings
    assert any("have no 'ground_truth'" in str(w.message) for w in config.recorded)


def test_a_worker_registers_its_runner_alone_and_issues_no_warning(
    started: list[Config], tmp_path: Path
) -> None:
    config = start(started, tmp_path, *NO_TRUTH, workerinput={})
    plugins = config.pluginmanager
    assert type(plugins.get_plugin(RUNNER_PLUGIN)) is WorkerRunner
    assert plugins.get_plugin(AGGREGATING_PLUGIN) is None
    assert config.recorded == []


def test_bad_input_ends_the_run_before_collection_and_says_why_on_the_ci_page(
    started: list[Config], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(page))
    config = Config(tmp_path, ini={"rag_fatal_exit_code": "9"})
    missing = tmp_path / "missing.json"
    with pytest.raises(pytest.exit.Exception) as stopped:
        start_dataset_run(config, [missing])
    assert stopped.value.returncode == 9
    assert stopped.value.msg == f"rag-eval: Dataset {missing}: file not found"
    assert stopped.value.__cause__ is None and stopped.value.__context__ is None
    assert page.read_text(encoding="utf-8") == (
        f"## RAG evaluation FAILED: exit 9, fatal\n\nDataset {missing}: file not found\n"
    )
    assert config.pluginmanager.get_plugin(RUNNER_PLUGIN) is None


def test_a_warning_made_fatal_ends_the_run_before_the_reports_are_set_up(
    started: list[Config], tmp_path: Path
) -> None:
    strict = {"filterwarnings": ["error::rag_eval_pytest.RagEvalWarning"]}
    with pytest.raises(pytest.exit.Exception) as stopped:
        start(started, tmp_path, *NO_TRUTH, ini=strict)
    assert stopped.value.returncode == 3
    assert stopped.value.msg.startswith(f"rag-eval: {tmp_path / 'qa.json'}: 2 of 2 cases have")
    assert stopped.value.msg.endswith(
        "(a warnings filter makes RagEvalWarning an error; "
        "'ignore::rag_eval_pytest.RagEvalWarning' silences it)"
    )
    assert started[0].pluginmanager.get_plugin(AGGREGATING_PLUGIN) is None


def test_a_dry_run_prints_the_plan_and_exits_0(started: list[Config], tmp_path: Path) -> None:
    with pytest.raises(pytest.exit.Exception) as stopped:
        start(started, tmp_path, options={"rag_dry_run": True})
    assert (stopped.value.msg, stopped.value.returncode) == (
        "rag-eval: dry run, nothing was called",
        0,
    )
    (plan,) = started[0].terminal.lines
    assert plan.startswith("rag-eval dry run: dataset and configuration are valid")
    assert started[0].pluginmanager.get_plugin(AGGREGATING_PLUGIN) is None


@pytest.mark.parametrize("dry", [None, "", "false", "no"])
def test_without_a_dataset_the_run_is_dormant(tmp_path: Path, dry: str | None) -> None:
    config = Config(tmp_path, ini={"rag_dry_run": dry})
    start_dormant_run(config)
    assert isinstance(config.pluginmanager.get_plugin(DORMANT_PLUGIN), DormantRun)
    assert config.pluginmanager.get_plugin(RUNNER_PLUGIN) is None


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ({"options": {"rag_dry_run": True}}, 0),
        ({"ini": {"rag_dry_run": "yes"}}, 0),
        ({"ini": {"rag_dry_run": "maybe"}}, 3),  # refused by name, not ignored
    ],
)
def test_a_dry_run_without_a_dataset_ends_before_any_test(
    tmp_path: Path, given: dict[str, Any], code: int
) -> None:
    config = Config(tmp_path, **given)
    with pytest.raises(pytest.exit.Exception) as stopped:
        start_dormant_run(config)
    assert stopped.value.returncode == code
    if code:
        assert "rag_dry_run" in stopped.value.msg
    assert config.pluginmanager.get_plugin(DORMANT_PLUGIN) is None


def test_a_removed_ini_key_ends_a_run_without_a_dataset_naming_its_replacement(
    tmp_path: Path,
) -> None:
    config = Config(tmp_path, ini={"rag_flaky_window": "3", "rag_fatal_exit_code": "9"})
    with pytest.raises(pytest.exit.Exception) as stopped:
        start_dormant_run(config)
    assert stopped.value.returncode == 9
    assert stopped.value.msg == (
        "rag-eval: rag_flaky_window in the ini file: this key was removed: use "
        "regression.flaky_window in the config file (eval-config.yaml, or [tool.rag_eval] in "
        "pyproject.toml)"
    )
    assert config.pluginmanager.get_plugin(DORMANT_PLUGIN) is None
