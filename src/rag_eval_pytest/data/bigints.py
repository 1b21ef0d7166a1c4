"""Integers longer than Python reads (``sys.get_int_max_str_digits()``, 4,300 digits by
default) in a dataset or a configuration: parsed into a placeholder instead of raising deep
inside the JSON or YAML parser, then reported as one message naming the field."""

from __future__ import annotations

import functools
import json
import re
import sys
from typing import Any

from .duplicate_keys import unique_keys, unique_keys_yaml_loader


class TooLongInteger:
    """Where an integer Python refused to read stood, and how long it was."""

    def __init__(self, digits: int, line: int | None = None) -> None:
        self.digits = digits
        self.line = line


def _limit() -> int:
    return sys.get_int_max_str_digits() or 0


_ZEROS = str.maketrans("123456789", "000000000")


def may_hold_one(text: str) -> bool:
    """Cheap test: only a text with a long enough run of digits needs the slow search. An
    ASCII text (most datasets) is searched with every digit made ``0``: a plain substring
    search, ten times faster than the pattern on a file of tens of megabytes."""
    limit = _limit()
    if not limit:
        return False
    if text.isascii():
        return "0" * (limit + 1) in text.translate(_ZEROS)
    return re.search(rf"\d{{{limit + 1}}}", text) is not None


def _parse_int(text: str) -> int | TooLongInteger:
    try:
        return int(text)
    except ValueError:
        return TooLongInteger(len(text.lstrip("+-")))


def json_loads(text: str) -> Any:
    """``json.loads`` that keeps a too-long integer as a :class:`TooLongInteger` (and
    refuses a key given twice, as the plain path does)."""
    return json.loads(text, parse_int=_parse_int, object_pairs_hook=unique_keys)


@functools.cache
def yaml_loader() -> Any:
    """A safe YAML loader that keeps a too-long integer as a :class:`TooLongInteger` (and
    refuses a key given twice, as the plain path does)."""

    class Loader(unique_keys_yaml_loader()):  # type: ignore[misc]
        pass

    def construct_int(loader: Any, node: Any) -> object:
        try:
            return loader.construct_yaml_int(node)
        except ValueError:
            digits = sum(ch.isdigit() for ch in str(node.value))
            return TooLongInteger(digits, node.start_mark.line + 1)

    Loader.add_constructor("tag:yaml.org,2002:int", construct_int)
    return Loader


def find(document: object, line: int | None = None) -> str | None:
    """The message for the first too-long integer in ``document`` (naming its field), or
    ``None``. Each container is visited once, so a YAML alias bomb costs nothing here."""
    seen: set[int] = set()
    stack: list[tuple[str, object]] = [("", document)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, TooLongInteger):
            return _too_long(value, where, line)
        if isinstance(value, (dict, list)) and id(value) not in seen:
            seen.add(id(value))
            stack.extend(reversed(_children(where, value)))
    return None


def _too_long(value: TooLongInteger, where: str, line: int | None) -> str:
    at = value.line or line
    field = f"field {where!r}" if where else "the document"
    return (
        f"{field}{f' (line {at})' if at else ''}: an integer of {value.digits} digits "
        f"is longer than can be read ({_limit()} digits at most)"
    )


def _children(where: str, value: dict[Any, Any] | list[Any]) -> list[tuple[str, object]]:
    """Each value a mapping or list holds, with where it is (``a.b``, ``a[2]``)."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    return [
        (f"{where}[{key}]" if isinstance(value, list) else f"{where}.{key}".lstrip("."), v)
        for key, v in items
    ]


def load_json(text: str, line: int | None = None) -> tuple[Any, str | None]:
    """``text`` read as JSON with each key once, and the message for an integer too long to
    read in it (``None`` when there is none): the slower parse runs only when digits could
    be that long."""
    if not may_hold_one(text):
        return json.loads(text, object_pairs_hook=unique_keys), None
    document = json_loads(text)
    return document, find(document, line)


class Unreadable(ValueError):
    """Why a text could not be read, in words (the caller names the file)."""


def read_yaml(text: str, what: str) -> tuple[Any, str | None]:
    """:func:`load_yaml`, with each reason it cannot be read as one :class:`Unreadable`:
    YAML that is not valid, a key given twice, nesting too deep to be ``what`` (``a
    dataset``)."""
    import yaml

    from .duplicate_keys import DuplicateKeyError, yaml_problem

    try:
        return load_yaml(text)
    except RecursionError:
        raise Unreadable(f"nested too deeply to be {what}") from None
    except DuplicateKeyError as exc:
        raise Unreadable(str(exc)) from None
    except yaml.YAMLError as exc:
        raise Unreadable(yaml_problem(exc)) from None


def load_yaml(text: str) -> tuple[Any, str | None]:
    """``text`` read as YAML (a safe loader, each key once), and the message for an integer
    too long to read in it, as :func:`load_json`."""
    import yaml

    if not may_hold_one(text):
        return yaml.load(text, Loader=unique_keys_yaml_loader()), None
    document = yaml.load(text, Loader=yaml_loader())
    return document, find(document)
