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
    if isinstance(value, (int, float)):
        return number_text(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return repr(value if len(value) <= 80 else value[:80] + "...")
        return value.strip()
    return {dict: "a mapping", list: "a list", type(None): "null"}.get(type(value), "the value")


def _problem(err: Any, *, echo: bool) -> str:
    """What is wrong with the value, in one sentence that shows it unless it is secret."""
    msg = str(err["msg"]).removeprefix("Value error, ")
    template = _PROBLEMS.get(err["type"])
    value = err.get("input")
    if template is not None:
        ctx = {k: _shown(v) for k, v in (err.get("ctx") or {}).items()}
        if "expected" in ctx:  # "'a', 'b' or 'c'" -> "a, b, c"
            ctx["expected"] = ", ".join(re.findall(r"'([^']*)'", str(err["ctx"]["expected"])))
        return template.format(value=_shown(value) if echo else "the value", **ctx)
    if not echo or isinstance(value, (dict, list, type(None))) or _shown(value) in msg:
        return msg
    return f"{msg} (got {value!r})"


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
    # A value of a union (judge.passes: a number or auto) is reported per member; the first
    # member's error is the one meant, at the key itself.
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and _UNION_MEMBER.match(p)))
    # A dict-key validator reports at the dict itself; name the offending key instead.
    key = _loc(tuple(loc))
    source: str | None = None
    for prefix, label in origin.items():
        if (
            key == prefix
            or key.startswith((prefix + ".", prefix + "["))
            or prefix.startswith(key + ".")
        ):
            source = label
            break
    if err["type"] == "extra_forbidden":
        parent = Settings
        for part in loc[:-1]:
            annotation = parent.model_fields[str(part)].annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                parent = annotation  # type: ignore[assignment]
        allowed = ", ".join(parent.model_fields)
        return ConfigError(
            f"Invalid configuration {file_label}: unknown key {key!r} (allowed: {allowed})"
        )
    unechoed = any(key == k or key.startswith((k + ".", k + "[")) for k in _UNECHOED_KEYS)
    secret = isinstance(err.get("input"), str) and err["input"] in secrets
    problem = _problem(err, echo=not (unechoed or secret))
    if source is not None:
        return ConfigError(f"{source}: {problem}")
    written = references.get(key)
    where = f"key {key!r}" + (f" ({written!r} from the environment)" if written else "")
    return ConfigError(f"Invalid configuration {file_label}: {where}: {problem}")
