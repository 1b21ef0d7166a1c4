"""Keys an earlier version accepted, rewritten as the keys that replace them, each with the
notice the run gives."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..errors import ConfigError
from ..runtime.retry import MAX_ATTEMPTS


def replace_deprecated(data: dict[str, Any], label: str) -> list[str]:
    """Rewrite keys an earlier version accepted as the keys that replace them; one notice
    per key rewritten."""
    return _replace_no_cache(data, label) + _replace_max_retries(data, label)


def _replace_no_cache(data: dict[str, Any], label: str) -> list[str]:
    judge = data.get("judge")
    if not isinstance(judge, dict) or "no_cache" not in judge:
        return []
    value = judge.pop("no_cache")
    try:
        cache_off = TypeAdapter(bool).validate_python(value)
    except ValidationError as exc:
        msg = exc.errors()[0]["msg"]
        raise ConfigError(
            f"Invalid configuration {label}: key 'judge.no_cache': {msg} (got {value!r})"
        ) from None
    if cache_off:  # it overrode judge.cache
        judge["cache"] = False
    return [
        f"{label}: 'judge.no_cache' is deprecated: use 'judge.cache' "
        "(no_cache: true is cache: false)"
    ]


def _replace_max_retries(data: dict[str, Any], label: str) -> list[str]:
    judge = data.get("judge")
    if not isinstance(judge, dict) or "max_retries" not in judge:
        return []
    retries = _whole(judge.pop("max_retries"))
    retry = judge.setdefault("retry", {})
    if retry is None:
        retry = judge["retry"] = {}
    _check_max_retries(retries, retry, label)
    if isinstance(retry, dict):  # anything else: the validation names judge.retry
        retry["max_attempts"] = retries + 1
    return [
        f"judge.max_retries in {label} is deprecated: use judge.retry.max_attempts, which "
        f"counts the first try (max_retries: {retries} is max_attempts: {retries + 1})"
    ]


def _whole(value: Any) -> Any:
    """A whole number written as text (from ``${VAR}``) as the number."""
    return int(value) if isinstance(value, str) and value.strip().isdigit() else value


def _check_max_retries(retries: Any, retry: Any, label: str) -> None:
    if type(retries) is not int or not 0 <= retries < MAX_ATTEMPTS:
        raise ConfigError(
            f"Invalid configuration {label}: key 'judge.max_retries': should be a whole "
            f"number from 0 to {MAX_ATTEMPTS - 1}; it is deprecated: use "
            "judge.retry.max_attempts, which counts the first try"
        )
    if isinstance(retry, dict) and "max_attempts" in retry:
        raise ConfigError(
            f"Invalid configuration {label}: judge.max_retries and judge.retry.max_attempts "
            "are both given: keep judge.retry.max_attempts (max_retries is deprecated)"
        )
