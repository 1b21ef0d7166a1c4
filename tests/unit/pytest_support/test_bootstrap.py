"""From pytest's config to a session: which value wins and under which name an error will
cite it, the fatal exit code, the run's identity (a worker's comes from the controller), and
where information lines and the judge cache go. The config is a stand-in."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rag_eval_pytest.config.resolution import Override
from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.pytest_support.bootstrap import (
    WORKER_RUN_KEY,
    build_session,
    fatal_exit_code,
    gather_overrides,
    judge_cache_dir,
    new_run_info,
    resolve_config,
    terminal_notice,
)
from rag_eval_pytest.reporting.payload import RunInfo
from tests.unit.pytest_support.fakes import Config, write_dataset


@pytest.fixture
def here(tmp_path: Path) -> Path:
    """Where pytest was started: below the rootdir, beside the ini file's folder."""
    (tmp_path / "here").mkdir()
    (tmp_path / "cfg").mkdir()
    return tmp_path / "here"


def config(here: Path, **given: Any) -> Config:
    return Config(
        here.parent, invocation_dir=here, inipath=here.parent / "cfg" / "tox.ini", **given
    )


# ----------------------------------------------------------------- overrides


def test_a_flag_wins_over_the_ini_key_and_a_path_is_relative_to_where_it_was_given(
    here: Path,
) -> None:
    flag = config(here, options={"rag_output_dir": "out"}, ini={"rag_output_dir": "reports"})
    assert gather_overrides(flag) == [
        Override("output.directory", str(here / "out"), "--rag-output-dir")
    ]
    ini = config(here, ini={"rag_output_dir": "reports"})
    assert gather_overrides(ini) == [
        Override(
            "output.directory",
            str(here.parent / "cfg" / "reports"),
            f"rag_output_dir in {here.parent / 'cfg' / 'tox.ini'}",  # not below: in full
        )
    ]


def test_an_ini_key_is_named_by_its_file_relative_to_the_working_folder(tmp_path: Path) -> None:
    made = Config(tmp_path, ini={"rag_judge": "local"}, inipath=tmp_path / "sub" / "pytest.ini")
    assert gather_overrides(made) == [
        Override("judge.kind", "local", f"rag_judge in {Path('sub', 'pytest.ini')}")
    ]
    without_file = Config(tmp_path, ini={"rag_judge": "local"})
    assert gather_overrides(without_file)[0].source == "rag_judge in the ini file"


def test_an_ini_key_given_with_dash_o_is_named_so(here: Path) -> None:
    made = config(here, ini={"rag_judge": "openai"}, options={"override_ini": ["rag_judge=openai"]})
    assert gather_overrides(made) == [Override("judge.kind", "openai", "-o rag_judge")]


@pytest.mark.parametrize(
    ("text", "value"), [("yes", True), ("OFF", False), ("1", True), ("maybe", "maybe")]
)
def test_a_flags_ini_key_is_read_as_pytest_reads_one(here: Path, text: str, value: Any) -> None:
    made = config(here, ini={"rag_report_only": text})
    assert [(o.path, o.value) for o in gather_overrides(made)] == [("report_only", value)]


def test_a_flag_that_turns_a_setting_off(here: Path) -> None:
    assert gather_overrides(config(here, options={"rag_no_cache": True})) == [
        Override("judge.cache", False, "--rag-no-cache")
    ]
    assert gather_overrides(config(here, ini={"rag_no_cache": "false"})) == []
    assert gather_overrides(config(here, ini={"rag_no_cache": "nope"}))[0].value == "nope"


def test_repeated_list_values_are_split_into_items(here: Path) -> None:
    made = config(here, options={"rag_tags": ["billing,ui", " account , "]})
    assert gather_overrides(made) == [Override("tags", ["billing", "ui", "account"], "--rag-tags")]


def test_keyed_values_go_to_their_entries_named_as_typed(here: Path) -> None:
    made = config(
        here, options={"rag_fail_under": ["faithfulness=0.8", "0.7", "answer-relevance = 0.6"]}
    )
    assert gather_overrides(made) == [
        Override("thresholds.faithfulness", "0.8", "--rag-fail-under faithfulness"),
        Override("thresholds.composite", "0.7", "--rag-fail-under"),
        Override("thresholds.answer_relevance", "0.6", "--rag-fail-under answer-relevance"),
    ]


@pytest.mark.parametrize(
    ("ini", "instead"),
    [
        ({"rag_fail_under_answer_relevance": "0.5"}, "rag_fail_under = answer_relevance=SCORE"),
        (
            {"rag_regression_min_drop": "0.1", "rag_judge_passes": "2"},
            "regression.min_drop in the config file (eval-config.yaml, or [tool.rag_eval] in "
            "pyproject.toml)",
        ),
    ],
)
def test_a_removed_ini_key_is_refused_naming_what_replaces_it(
    here: Path, ini: dict[str, str], instead: str
) -> None:
    made = config(here, ini=ini)
    with pytest.raises(ConfigError) as refused:
        gather_overrides(made)
    name = next(iter(ini))
    assert str(refused.value) == f"{name} in {made.inipath}: this key was removed: use {instead}"


# ----------------------------------------------------------------- the fatal code


@pytest.mark.parametrize(
    ("ini", "code"),
    [
        ({}, 3),
        ({"rag_fatal_exit_code": "9"}, 9),
        ({"rag_fatal_exit_code": "nine"}, 3),
        ({"rag_fatal_exit_code": "300"}, 3),
        ({"rag_fatal_exit_code": "1"}, 3),
        ({"rag_critical_exit_code": "3"}, 4),
        ({"rag_critical_exit_code": "3", "rag_fatal_exit_code": "3"}, 4),
        ({"rag_critical_exit_code": "7", "rag_fatal_exit_code": "7"}, 3),
        ({"rag_critical_exit_code": "bad", "rag_fatal_exit_code": "2"}, 2),
    ],
)
def test_the_fatal_code_is_readable_before_the_config_and_never_the_critical_one(
    tmp_path: Path, ini: dict[str, str], code: int
) -> None:
    assert fatal_exit_code(Config(tmp_path, ini=ini)) == code


# ----------------------------------------------------------------- config and session


def test_the_config_option_is_relative_to_the_working_folder(here: Path) -> None:
    (here / "eval.yaml").write_text("tags: [billing]\n", encoding="utf-8")
    resolved = resolve_config(config(here, options={"rag_config": "eval.yaml"}))
    assert resolved.file.path == here / "eval.yaml"
    assert resolved.settings.tags == ["billing"]


def test_the_config_ini_key_is_relative_to_the_ini_file(here: Path) -> None:
    (here.parent / "cfg" / "eval.yaml").write_text("tags: [ui]\n", encoding="utf-8")
    resolved = resolve_config(config(here, ini={"rag_config": "eval.yaml"}))
    assert resolved.settings.tags == ["ui"]


def test_a_missing_config_file_is_a_config_error(here: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        resolve_config(config(here, options={"rag_config": "eval.yaml"}))
    assert str(raised.value) == f"Configuration file {here / 'eval.yaml'} not found"


def test_a_run_id_is_its_start_in_utc_and_a_random_suffix() -> None:
    first, second = new_run_info(), new_run_info()
    assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{6}", first.run_id)
    started = dt.datetime.fromisoformat(first.started_at.replace("Z", "+00:00"))
    assert first.run_id.startswith(f"{started:%Y%m%dT%H%M%SZ}")
    assert first.run_id != second.run_id


def test_a_session_holds_the_selected_cases_and_a_new_run(here: Path) -> None:
    path = write_dataset(here, {"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"})
    session = build_session(config(here, options={"rag_shard": "2/2"}), [path])
    assert [c.key for c in session.cases] == ["b", "d"]
    assert session.datasets.total_cases == 4
    assert session.search_paths == [here.parent, here]
    assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{6}", session.run.run_id)


def test_a_worker_takes_the_run_identity_the_controller_sent(here: Path) -> None:
    path = write_dataset(here, {"id": "a"})
    sent = {"run_id": "20260101T000000Z-123456", "started_at": "2026-01-01T00:00:00Z"}
    session = build_session(config(here, workerinput={WORKER_RUN_KEY: sent}), [path])
    assert session.run == RunInfo(**sent)


def test_cases_without_ground_truth_give_one_warning_for_the_run(here: Path) -> None:
    path = write_dataset(here, {"id": "a"}, {"id": "b", "ground_truth": None})
    session = build_session(config(here), [path])
    (warning,) = [w for w in session.datasets.warnings if "ground_truth" in w]
    assert warning.startswith("1 of 2 cases have no 'ground_truth'")
    assert warning.endswith(": b")


def test_a_bad_auth_header_variable_fails_at_the_start_of_an_http_run(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_dataset(here, {"id": "a"})
    monkeypatch.setenv("RAG_AUTH_HEADER", "no colon here")
    assert [c.key for c in build_session(config(here), [path]).cases] == ["a"]  # not used
    with pytest.raises(ConfigError, match="RAG_AUTH_HEADER"):
        build_session(config(here, options={"rag_adapter": "http"}), [path])


def test_the_judge_cache_lives_in_pytests_cache_unless_it_is_off(tmp_path: Path) -> None:
    made = Config(tmp_path)
    assert judge_cache_dir(made) is None  # -p no:cacheprovider
    made.cache = SimpleNamespace(mkdir=lambda name: tmp_path / ".pytest_cache" / "d" / name)
    assert judge_cache_dir(made) == tmp_path / ".pytest_cache" / "d" / "rag_eval_judge"


# ----------------------------------------------------------------- information lines


class Capture:
    """pytest's capture manager: whether output is let through now."""

    def __init__(self) -> None:
        self.open = False
        self.seen: list[tuple[str, bool]] = []

    @contextlib.contextmanager
    def global_and_fixture_disabled(self) -> Iterator[None]:
        self.open = True
        try:
            yield
        finally:
            self.open = False


def test_a_notice_is_written_past_the_capture_of_a_running_test(tmp_path: Path) -> None:
    made = Config(tmp_path)
    capture = Capture()
    made.pluginmanager.plugins["capturemanager"] = capture
    written = made.terminal.write_line

    def write_line(line: str, **markup: Any) -> None:
        capture.seen.append((line, capture.open))
        written(line)

    made.terminal.write_line = write_line
    terminal_notice(made)("rag-eval: using the local judge")
    assert capture.seen == [("rag-eval: using the local judge", True)]


@pytest.mark.parametrize(
    "quiet",
    [
        {"verbose": -2},
        {"workerinput": {}},
        {"plugins": {"terminalreporter": None}},
    ],
)
def test_a_notice_is_quiet_under_qq_on_workers_and_without_a_terminal(
    tmp_path: Path, quiet: dict[str, Any]
) -> None:
    made = Config(tmp_path, **quiet)
    terminal_notice(made)("rag-eval: using the local judge")
    assert made.terminal.lines == []


def test_a_notice_under_q_is_still_written(tmp_path: Path) -> None:
    made = Config(tmp_path, verbose=-1)
    terminal_notice(made)("rag-eval: using the local judge")
    assert made.terminal.lines == ["rag-eval: using the local judge"]
