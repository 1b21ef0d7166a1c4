"""Keys an earlier version accepted: ``judge.no_cache`` and ``judge.max_retries`` are
rewritten as the keys that replace them, each with one notice naming the file and the new
key, and a value the old key never accepted is an error naming it."""

from __future__ import annotations

from typing import Any

import pytest

from rag_eval_pytest.config.deprecations import replace_deprecated
from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.runtime.retry import MAX_ATTEMPTS

LABEL = "eval-config.yaml"


def test_settings_without_old_keys_are_left_alone() -> None:
    data: dict[str, Any] = {"judge": {"cache": True, "retry": {"max_attempts": 2}}, "tags": []}
    assert replace_deprecated(data, LABEL) == []
    assert data == {"judge": {"cache": True, "retry": {"max_attempts": 2}}, "tags": []}
    assert replace_deprecated({"judge": None}, LABEL) == []


def test_no_cache_true_turns_the_cache_off_with_a_notice() -> None:
    data: dict[str, Any] = {"judge": {"no_cache": True, "cache": True}}
    notices = replace_deprecated(data, LABEL)
    assert data == {"judge": {"cache": False}}  # no_cache overrode cache
    assert notices == [
        "eval-config.yaml: 'judge.no_cache' is deprecated: use 'judge.cache' "
        "(no_cache: true is cache: false)"
    ]


def test_no_cache_false_leaves_the_cache_as_it_is() -> None:
    data: dict[str, Any] = {"judge": {"no_cache": "false"}}
    assert len(replace_deprecated(data, LABEL)) == 1
    assert data == {"judge": {}}


def test_no_cache_that_is_not_a_boolean_names_the_key_and_value() -> None:
    with pytest.raises(ConfigError) as info:
        replace_deprecated({"judge": {"no_cache": "sometimes"}}, LABEL)
    message = str(info.value)
    assert message.startswith("Invalid configuration eval-config.yaml: key 'judge.no_cache': ")
    assert message.endswith("(got 'sometimes')")


@pytest.mark.parametrize(("retries", "attempts"), [(0, 1), (2, 3), ("2", 3), (" 5 ", 6)])
def test_max_retries_becomes_max_attempts_counting_the_first_try(
    retries: object, attempts: int
) -> None:
    data: dict[str, Any] = {"judge": {"max_retries": retries}}
    notices = replace_deprecated(data, LABEL)
    assert data == {"judge": {"retry": {"max_attempts": attempts}}}
    assert notices == [
        "judge.max_retries in eval-config.yaml is deprecated: use judge.retry.max_attempts, "
        f"which counts the first try (max_retries: {attempts - 1} is max_attempts: {attempts})"
    ]


def test_max_retries_joins_a_retry_section_given_as_null_or_with_other_keys() -> None:
    data: dict[str, Any] = {"judge": {"max_retries": 1, "retry": None}}
    replace_deprecated(data, LABEL)
    assert data["judge"]["retry"] == {"max_attempts": 2}
    data = {"judge": {"max_retries": 1, "retry": {"base_delay": 0.5}}}
    replace_deprecated(data, LABEL)
    assert data["judge"]["retry"] == {"base_delay": 0.5, "max_attempts": 2}


@pytest.mark.parametrize("retries", [-1, MAX_ATTEMPTS, True, 1.5, "many", None])
def test_max_retries_out_of_range_says_the_range_and_the_new_key(retries: object) -> None:
    with pytest.raises(ConfigError) as info:
        replace_deprecated({"judge": {"max_retries": retries}}, LABEL)
    assert str(info.value) == (
        "Invalid configuration eval-config.yaml: key 'judge.max_retries': should be a whole "
        f"number from 0 to {MAX_ATTEMPTS - 1}; it is deprecated: use judge.retry.max_attempts, "
        "which counts the first try"
    )


def test_max_retries_beside_max_attempts_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"both given: keep judge\.retry\.max_attempts"):
        replace_deprecated({"judge": {"max_retries": 1, "retry": {"max_attempts": 2}}}, LABEL)


def test_both_old_keys_give_two_notices() -> None:
    data: dict[str, Any] = {"judge": {"no_cache": True, "max_retries": 0}}
    notices = replace_deprecated(data, LABEL)
    assert [n.split(" is deprecated")[0] for n in notices] == [
        "eval-config.yaml: 'judge.no_cache'",
        "judge.max_retries in eval-config.yaml",
    ]
    assert data == {"judge": {"cache": False, "retry": {"max_attempts": 1}}}
