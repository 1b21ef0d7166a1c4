"""A run without a dataset: dormant until a test evaluates a case made in code, then a
dataset run's roles, once; what it keeps of the tests before that, and the fatal end of a run
whose settings could not be read. The config is a stand-in; the session, the runner and the
aggregator are real (nothing is queried or judged)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.engine.running import RUNNER_PLUGIN, current_item
from rag_eval_pytest.errors import RagEvalError, SetupFailed
from rag_eval_pytest.pytest_support import bootstrap
from rag_eval_pytest.pytest_support.aggregation import (
    REPORT_ATTRIBUTE,
    SETUP_ERROR_ATTRIBUTE,
    AggregatingProcess,
)
from rag_eval_pytest.pytest_support.guard import AGGREGATING_PLUGIN
from rag_eval_pytest.pytest_support.inline import DormantRun, dry_run_without_dataset
from rag_eval_pytest.pytest_support.runner import Runner, WorkerRunner
from rag_eval_pytest.reporting.payload import case_payload
from tests.unit.pytest_support.fakes import Config, eval_session

BAD_PASSES = {"rag_judge_passes": "many"}


def report(
    name: str, outcome: str = "passed", critical: bool = False, **attributes: Any
) -> pytest.TestReport:
    keywords = {name: 1, **({"rag_critical": 1} if critical else {})}
    made = pytest.TestReport(f"t.py::{name}", ("t.py", 0, name), keywords, outcome, None, "call")
    for key, value in attributes.items():
        setattr(made, key, value)
    return made


def carrying_a_case(tmp_path: Path) -> pytest.TestReport:
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    loaded = eval_session(folder).cases[0]
    payload = dict(case_payload(loaded, None, []), inline=True)
    return report("test_made", **{REPORT_ATTRIBUTE: payload})


def dormant(tmp_path: Path, **given: Any) -> DormantRun:
    return DormantRun.register(Config(tmp_path, **given))


def test_activation_makes_the_runs_roles_once(tmp_path: Path) -> None:
    run = dormant(tmp_path)
    engine = run.activate()
    plugins = run.config.pluginmanager
    assert isinstance(plugins.get_plugin(RUNNER_PLUGIN), Runner)
    assert isinstance(plugins.get_plugin(AGGREGATING_PLUGIN), AggregatingProcess)
    assert engine is plugins.get_plugin(RUNNER_PLUGIN).engine
    assert run.activate() is engine
    assert engine.session.cases == []


def test_on_a_worker_activation_makes_the_worker_runner_alone(tmp_path: Path) -> None:
    run = dormant(tmp_path, workerinput={})
    run.activate()
    plugins = run.config.pluginmanager
    assert isinstance(plugins.get_plugin(RUNNER_PLUGIN), WorkerRunner)
    assert plugins.get_plugin(AGGREGATING_PLUGIN) is None


def test_activation_tells_of_deprecated_settings_on_the_terminal(tmp_path: Path) -> None:
    (tmp_path / "eval-config.yaml").write_text("judge:\n  no_cache: true\n", encoding="utf-8")
    run = dormant(tmp_path)
    run.activate()
    (line,) = run.config.terminal.lines
    assert line.startswith("rag-eval: ")
    assert "'judge.no_cache' is deprecated: use 'judge.cache'" in line


def test_settings_that_cannot_be_read_fail_every_activation_without_reading_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = dormant(tmp_path, ini=BAD_PASSES)
    with pytest.raises(RagEvalError, match="rag_judge_passes") as first:
        run.activate()
    monkeypatch.setattr(bootstrap, "build_session", lambda *a: pytest.fail("read again"))
    with pytest.raises(RagEvalError) as second:
        run.activate()
    assert str(second.value) == str(first.value)
    assert run.runner is None and run.aggregating is None


def test_critical_tests_before_the_first_case_reach_the_aggregator(tmp_path: Path) -> None:
    run = dormant(tmp_path)
    run.pytest_runtest_logreport(report("test_plain"))
    run.pytest_runtest_logreport(report("test_vital", "failed", critical=True))
    assert [r.nodeid for r in run.kept] == ["t.py::test_vital"]
    run.pytest_runtest_logreport(carrying_a_case(tmp_path))  # a worker evaluated a case
    assert run.kept == []
    aggregator = run.aggregating.aggregator
    assert list(aggregator.collector.critical_tests) == ["t.py::test_vital"]
    assert list(aggregator.collector.cases) == ["a"]


def test_a_worker_or_an_active_run_leaves_the_reports_to_the_aggregator(tmp_path: Path) -> None:
    worker = dormant(tmp_path, workerinput={})
    worker.pytest_runtest_logreport(report("test_vital", critical=True))
    worker.pytest_runtest_logreport(carrying_a_case(tmp_path))
    assert worker.kept == [] and worker.runner is None
    active = dormant(tmp_path)
    active.activate()
    active.pytest_runtest_logreport(report("test_vital", critical=True))
    assert active.kept == []


def test_a_workers_case_under_unreadable_settings_makes_the_run_fatal(tmp_path: Path) -> None:
    run = dormant(tmp_path, ini={**BAD_PASSES, "rag_fatal_exit_code": "9"})
    run.pytest_runtest_logreport(carrying_a_case(tmp_path))
    assert run.setup_error is not None and "rag_judge_passes" in run.setup_error
    session = pytest.Session.__new__(pytest.Session)
    session.exitstatus = 0
    run.pytest_sessionfinish(session)
    assert session.exitstatus == 9
    run.pytest_terminal_summary(run.config.terminal)
    assert run.config.terminal.lines == [f"rag-eval: exit 9: {run.setup_error}"]


def test_the_first_setup_error_a_test_reports_is_the_one_given(tmp_path: Path) -> None:
    run = dormant(tmp_path)
    for message in ("first", "second"):
        run.pytest_runtest_logreport(
            report("test_made", "failed", **{SETUP_ERROR_ATTRIBUTE: message})
        )
    assert run.setup_error == "first"


def test_a_run_whose_cases_were_evaluated_keeps_its_exit_status(tmp_path: Path) -> None:
    run = dormant(tmp_path)
    run.activate()
    run.setup_error = "a test could not get its judge"
    session = pytest.Session.__new__(pytest.Session)
    session.exitstatus = 1
    run.pytest_sessionfinish(session)
    run.pytest_terminal_summary(run.config.terminal)
    assert session.exitstatus == 1 and run.config.terminal.lines == []


def test_while_dormant_the_running_test_is_marked_and_a_setup_error_carried(
    tmp_path: Path,
) -> None:
    run = dormant(tmp_path)
    item = object()
    protocol = run.pytest_runtest_protocol(item)
    next(protocol)
    assert current_item() is item
    with pytest.raises(StopIteration):
        protocol.send(None)
    assert current_item() is not item

    def fails() -> None:
        raise SetupFailed("judge.passes: bad value", pytrace=False)

    makereport = run.pytest_runtest_makereport(pytest.CallInfo.from_call(fails, "call"))
    next(makereport)
    failed = report("test_made", "failed")
    with pytest.raises(StopIteration):
        makereport.send(failed)
    assert getattr(failed, SETUP_ERROR_ATTRIBUTE) == "judge.passes: bad value"


def test_once_active_the_runner_marks_the_running_test(tmp_path: Path) -> None:
    run = dormant(tmp_path)
    run.activate()
    outer = current_item()
    protocol = run.pytest_runtest_protocol(object())
    next(protocol)
    assert current_item() is outer


def test_a_dry_run_without_a_dataset_checks_the_settings_and_plans_nothing(
    tmp_path: Path,
) -> None:
    with pytest.raises(pytest.exit.Exception) as valid:
        dry_run_without_dataset(Config(tmp_path))
    assert valid.value.returncode == 0
    assert "no dataset given (--rag-dataset), so there is nothing to plan" in valid.value.msg
    with pytest.raises(pytest.exit.Exception) as invalid:
        dry_run_without_dataset(Config(tmp_path, ini=BAD_PASSES))
    assert invalid.value.returncode == 3
    assert invalid.value.msg.startswith("rag-eval: ") and "rag_judge_passes" in invalid.value.msg
