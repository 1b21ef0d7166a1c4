"""The entry module: the options and ini keys it declares to pytest, where the datasets come
from, which start a run gets, and how a fixture that cannot build the judge or the RAG system
fails. pytest's parser, config and requests are stand-ins."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rag_eval_pytest import plugin
from rag_eval_pytest.config.options import OPTIONS, REMOVED_INI_KEYS
from rag_eval_pytest.engine.running import RUNNER_PLUGIN
from rag_eval_pytest.errors import ConfigError, SetupFailed
from rag_eval_pytest.pytest_support import startup
from rag_eval_pytest.redaction import Redactor
from tests.unit.pytest_support.fakes import Config

SECRET = "sk-ant-0123456789abcdef"


class Group:
    def __init__(self) -> None:
        self.options: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {}

    def addoption(self, *names: str, **kwargs: Any) -> None:
        assert names[0] not in self.options, f"{names[0]} declared twice"
        self.options[names[0]] = (names, kwargs)


class Parser:
    def __init__(self) -> None:
        self.groups: dict[str, tuple[str, Group]] = {}
        self.ini: dict[str, dict[str, Any]] = {}

    def getgroup(self, name: str, description: str = "") -> Group:
        return self.groups.setdefault(name, (description, Group()))[1]

    def addini(self, name: str, help: str, type: str | None = None, default: Any = None) -> None:
        assert name not in self.ini, f"{name} declared twice"
        self.ini[name] = {"help": help, "type": type, "default": default}


@pytest.fixture(scope="module")
def declared() -> Parser:
    parser = Parser()
    plugin.pytest_addoption(parser)
    return parser


def test_the_options_are_one_group(declared: Parser) -> None:
    assert list(declared.groups) == ["rag-eval"]
    assert declared.groups["rag-eval"][0] == "RAG evaluation (rag-eval-pytest)"


def test_every_option_has_an_ini_key_unset_by_default(declared: Parser) -> None:
    assert list(declared.ini) == [spec.ini_name for spec in OPTIONS] + list(REMOVED_INI_KEYS)
    assert {entry["default"] for entry in declared.ini.values()} == {None}
    # A flag's ini key is text, which the plugin reads itself to name a bad value.
    assert declared.ini["rag_dry_run"]["type"] == "string"
    assert declared.ini["rag_dataset"]["type"] == "paths"
    assert declared.ini["rag_fail_under"]["type"] == "linelist"


def test_each_flag_is_declared_with_its_spellings_and_destination(declared: Parser) -> None:
    options = declared.groups["rag-eval"][1].options
    assert list(options) == [spec.flag for spec in OPTIONS if spec.flag]
    names, dataset = options["--rag-dataset"]
    assert names == ("--rag-dataset",)
    assert dataset == {
        "dest": "rag_dataset",
        "help": dataset["help"],
        "action": "append",
        "metavar": "PATH",
    }
    assert all(names == (flag,) for flag, (names, _) in options.items())
    assert "rag_fatal_exit_code" in declared.ini and not any("fatal" in flag for flag in options)


def test_a_removed_ini_key_is_declared_with_what_replaces_it(declared: Parser) -> None:
    # Declared, so that a value given is read and refused by name, not ignored by pytest.
    assert declared.ini["rag_fail_under_faithfulness"] == {
        "help": "Removed: use rag_fail_under = faithfulness=SCORE",
        "type": "string",
        "default": None,
    }
    assert declared.ini["rag_device"]["help"].startswith(
        "Removed: use judge.local.device in the config file"
    )


def test_a_switch_takes_no_value(declared: Parser) -> None:
    options = declared.groups["rag-eval"][1].options
    for spec in OPTIONS:
        if spec.action == "store_true":
            assert "metavar" not in options[spec.flag][1], spec.flag
        elif spec.flag:
            assert options[spec.flag][1]["metavar"], spec.flag


# ----------------------------------------------------------------- the start


def test_dataset_flags_are_relative_to_the_working_folder(tmp_path: Path) -> None:
    absolute = tmp_path / "elsewhere" / "b.json"
    config = Config(
        tmp_path,
        options={"rag_dataset": ["data/a.json", str(absolute)]},
        ini={"rag_dataset": ["ignored.json"]},
        invocation_dir=tmp_path / "here",
    )
    assert plugin.dataset_paths(config) == [tmp_path / "here" / "data" / "a.json", absolute]


def test_the_ini_datasets_are_used_without_a_flag(tmp_path: Path) -> None:
    from_ini = tmp_path / "a.json"  # pytest makes "paths" ini values absolute
    assert plugin.dataset_paths(Config(tmp_path, ini={"rag_dataset": [from_ini]})) == [from_ini]
    assert plugin.dataset_paths(Config(tmp_path)) == []


@pytest.mark.parametrize(
    ("given", "start"), [({"rag_dataset": ["qa.json"]}, "dataset"), ({}, "dormant")]
)
def test_configure_registers_the_marker_and_starts_the_right_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: dict[str, Any], start: str
) -> None:
    started: list[tuple[str, Any]] = []
    monkeypatch.setattr(startup, "start_dataset_run", lambda c, p: started.append(("dataset", p)))
    monkeypatch.setattr(startup, "start_dormant_run", lambda c: started.append(("dormant", None)))
    config = Config(tmp_path, options=given)
    plugin.pytest_configure(config)
    assert config.ini["markers"] == [
        "rag_critical: a critical RAG check: runs first; its failure exits 2"
    ]
    assert started == [(start, [tmp_path / "qa.json"] if given else None)]


# ----------------------------------------------------------------- the fixtures


def request(tmp_path: Path, **plugins: Any) -> Any:
    return SimpleNamespace(
        config=Config(tmp_path, plugins=plugins), session=SimpleNamespace(shouldfail=False)
    )


def test_a_fixture_without_a_dataset_skips_saying_how_to_give_one(tmp_path: Path) -> None:
    with pytest.raises(pytest.skip.Exception) as skipped:
        plugin._runner(request(tmp_path), "rag_case")
    assert skipped.value.msg == "rag_case needs a dataset: run pytest with --rag-dataset PATH"
    runner = object()
    assert plugin._runner(request(tmp_path, **{RUNNER_PLUGIN: runner}), "rag_judge") is runner


def test_a_judge_that_cannot_be_built_fails_the_test_and_stops_the_run(tmp_path: Path) -> None:
    asking = request(tmp_path)
    session = SimpleNamespace(redactor=Redactor([SECRET]))
    with pytest.raises(SetupFailed) as failed, plugin._setup_errors_fail(asking, session):
        raise ConfigError(f"the key {SECRET} was refused")
    assert failed.value.msg == "the key [REDACTED] was refused"
    assert not failed.value.pytrace
    assert failed.value.__cause__ is None and failed.value.__suppress_context__
    assert asking.session.shouldfail == "rag-eval: the key [REDACTED] was refused"


def test_a_fixtures_other_errors_are_left_to_pytest(tmp_path: Path) -> None:
    asking = request(tmp_path)
    unbuilt = SimpleNamespace(redactor=Redactor())
    with pytest.raises(ZeroDivisionError), plugin._setup_errors_fail(asking, unbuilt):
        raise ZeroDivisionError
    assert asking.session.shouldfail is False
