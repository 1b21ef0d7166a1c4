"""The wording of a settings error: one line that names where the value came from (the flag,
the ini key and its file, or the config file and key) and what is wrong with it, said the way
a person typed it, and never repeating a value that may be a credential."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import ConfigError
from .settings import Settings, number_text

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pydantic import ValidationError

# Keys whose values are never repeated in a message: they may hold credentials.
_UNECHOED_KEYS = ("http.endpoint", "http.headers", "http.header_args", "judge.base_url")

_UNION_MEMBER = re.compile(r"^(int|float|str|bool|constrained-\w+|literal\[.*\])$")


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_PROBLEMS = {
    "float_parsing": "{value} is not a number",
    "float_type": "{value} is not a number",
    "int_parsing": "{value} is not a whole number",
    "int_type": "{value} is not a whole number",
    "int_from_float": "{value} is not a whole number",
    "bool_parsing": "{value} is not true or false",
    "bool_type": "{value} is not true or false",
    "greater_than": "{value} must be greater than {gt}",
    "greater_than_equal": "{value} must be {ge} or more",
    "less_than": "{value} must be less than {lt}",
    "less_than_equal": "{value} must be {le} or less",
    "literal_error": "{value} is not one of {expected}",
}
"""Pydantic's error types, said the way the option table's messages say them."""


def _shown(value: Any) -> str:
    """A value in a message, as it was typed: numbers bare, text quoted."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return number_text(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _shown_text(value)
    return {dict: "a mapping", list: "a list", type(None): "null"}.get(type(value), "the value")


def _shown_text(value: str) -> str:
    """Text that reads as a number, bare; other text quoted, and cut when long."""
    try:
        float(value)
    except ValueError:
        return repr(value if len(value) <= 80 else value[:80] + "...")
    return value.strip()


def _problem(err: Any, *, echo: bool) -> str:
    """What is wrong with the value, in one sentence that shows it unless it is secret."""
    msg = str(err["msg"]).removeprefix("Value error, ")
    template = _PROBLEMS.get(err["type"])
    value = err.get("input")
    if template is not None:
        return template.format(value=_shown(value) if echo else "the value", **_context(err))
    if not echo or isinstance(value, (dict, list, type(None))) or _shown(value) in msg:
        return msg
    return f"{msg} (got {value!r})"


def _context(err: Any) -> dict[str, str]:
    """The error's bounds or choices, as a message shows them."""
    ctx = {k: _shown(v) for k, v in (err.get("ctx") or {}).items()}
    if "expected" in ctx:  # "'a', 'b' or 'c'" -> "a, b, c"
        ctx["expected"] = ", ".join(re.findall(r"'([^']*)'", str(err["ctx"]["expected"])))
    return ctx


def explain(
    exc: ValidationError,
    origin: Mapping[str, str],
    file_label: str,
    secrets: set[str],
    references: Mapping[str, str],
) -> ConfigError:
    """One line: the source of the value (the flag, the ini key and its file, or the config
    file and key) and what is wrong with it."""
    err = exc.errors()[0]
    loc = _meant(err["loc"])
    key = _loc(loc)
    if err["type"] == "extra_forbidden":
        return ConfigError(
            f"Invalid configuration {file_label}: unknown key {key!r} (allowed: {_allowed(loc)})"
        )
    problem = _problem(err, echo=_echoed(key, err, secrets))
    source = _source(key, origin)
    if source is not None:
        return ConfigError(f"{source}: {problem}")
    written = references.get(key)
    where = f"key {key!r}" + (f" ({written!r} from the environment)" if written else "")
    return ConfigError(f"Invalid configuration {file_label}: {where}: {problem}")


def _meant(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """The error's place without the members of a union: a value of one (judge.passes: a
    number or auto) is reported per member, and the first member's error is the one meant,
    at the key itself."""
    return tuple(p for p in loc if not (isinstance(p, str) and _UNION_MEMBER.match(p)))


def _source(key: str, origin: Mapping[str, str]) -> str | None:
    """Where the value at ``key`` came from (a flag, an ini key), when not the config file.
    A dict-key validator reports at the dict itself: the key within it is meant."""
    for prefix, label in origin.items():
        if (
            key == prefix
            or key.startswith((prefix + ".", prefix + "["))
            or prefix.startswith(key + ".")
        ):
            return label
    return None


def _allowed(loc: tuple[int | str, ...]) -> str:
    """The keys allowed beside the unknown one at ``loc``."""
    parent = Settings
    for part in loc[:-1]:
        annotation = parent.model_fields[str(part)].annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            parent = annotation  # type: ignore[assignment]
    return ", ".join(parent.model_fields)


def _echoed(key: str, err: Any, secrets: set[str]) -> bool:
    """Whether the message may show the value: not one of a key that may hold credentials,
    nor a secret's value."""
    unechoed = any(key == k or key.startswith((k + ".", k + "[")) for k in _UNECHOED_KEYS)
    secret = isinstance(err.get("input"), str) and err["input"] in secrets
    return not (unechoed or secret)
