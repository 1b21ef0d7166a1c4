"""The wording of a settings error: one line naming where the value came from (the flag, or
the config file and key, or the environment variable behind it), what is wrong said the way a
person typed it, and never the value of a key that may hold a credential."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from pydantic import ValidationError

from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.config.wording import explain
from rag_eval_pytest.errors import ConfigError

FILE = "eval-config.yaml"


def message(
    data: dict[str, Any],
    origin: Mapping[str, str] | None = None,
    secrets: set[str] | None = None,
    references: Mapping[str, str] | None = None,
) -> str:
    with pytest.raises(ValidationError) as info:
        Settings.model_validate(data)
    error = explain(info.value, origin or {}, FILE, secrets or set(), references or {})
    assert isinstance(error, ConfigError)
    return str(error)


def test_a_config_file_value_names_the_file_and_key() -> None:
    assert message({"slow_threshold": 0}) == (
        "Invalid configuration eval-config.yaml: key 'slow_threshold': 0 must be greater than 0"
    )


def test_a_flag_value_names_the_flag_only() -> None:
    origin = {"slow_threshold": "--rag-slow-threshold"}
    assert message({"slow_threshold": -2.5}, origin) == (
        "--rag-slow-threshold: -2.5 must be greater than 0"
    )


def test_a_flag_for_a_section_names_the_keys_inside_it() -> None:
    origin = {"thresholds": "--rag-fail-under"}
    assert message({"thresholds": {"composite": 2}}, origin).startswith("--rag-fail-under: ")


def test_an_environment_reference_is_named_beside_the_key() -> None:
    text = message({"slow_threshold": "soon"}, references={"slow_threshold": "${SLOW}"})
    assert text == (
        "Invalid configuration eval-config.yaml: key 'slow_threshold' "
        "('${SLOW}' from the environment): 'soon' is not a number"
    )


def test_a_union_value_is_reported_at_its_key() -> None:
    text = message({"judge": {"passes": "many"}})
    assert text == (
        "Invalid configuration eval-config.yaml: key 'judge.passes': 'many' is not a whole number"
    )


def test_choices_are_listed_plainly_and_booleans_said_in_words() -> None:
    assert message({"not_judged": "ignore"}).endswith(
        "key 'not_judged': 'ignore' is not one of skip, fail"
    )
    assert message({"dry_run": "perhaps"}).endswith("key 'dry_run': 'perhaps' is not true or false")


def test_a_long_value_is_cut_at_80_characters() -> None:
    text = message({"not_judged": "x" * 200})
    assert f"'{'x' * 80}...' is not one of" in text
    assert "x" * 81 not in text


def test_an_unknown_key_lists_the_keys_its_section_allows() -> None:
    text = message({"judge": {"knd": "local"}})
    assert text.startswith("Invalid configuration eval-config.yaml: unknown key 'judge.knd' ")
    allowed = text.split("(allowed: ")[1].rstrip(")").split(", ")
    assert "kind" in allowed and "passes" in allowed
    assert "adapter" not in allowed  # a top-level key, not one of judge's
    top = message({"adaptor": "http"})
    assert "unknown key 'adaptor'" in top and "adapter" in top


def test_an_endpoint_is_never_repeated() -> None:
    text = message({"http": {"endpoint": "https://user:hunter2@example.com:99999/ask?k=v"}})
    assert "hunter2" not in text and "example.com" not in text
    assert text.endswith("key 'http.endpoint': the URL's port is not a number from 1 to 65535")


def test_a_value_known_to_be_secret_is_not_repeated() -> None:
    text = message({"not_judged": "s3cr3t-token"}, secrets={"s3cr3t-token"})
    assert "s3cr3t" not in text
    assert text.endswith("key 'not_judged': the value is not one of skip, fail")
