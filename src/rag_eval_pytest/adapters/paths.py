"""Response paths: where a value lives in a decoded JSON response.

A path is dotted keys with list steps: ``data.answer``, ``results[0].text``,
``data.documents[*].metadata.source``. ``[*]`` maps the rest of the path over every element,
so the result is a list. A missing step raises :class:`PathError` naming the path up to and
including the step that is missing, so the message points at the exact place.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_STEP = re.compile(r"\[(\*|-?\d+)\]|\.?([^.\[\]]+)")
EACH = "*"


class PathError(LookupError):
    """A path does not match the response. ``where`` is the concrete path that failed."""

    def __init__(self, path: str, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.where = where
        self.reason = reason


@dataclass(frozen=True)
class ResponsePath:
    """A parsed path; steps are keys (str), indexes (int) or :data:`EACH`."""

    text: str
    steps: tuple[str | int, ...]

    @classmethod
    def parse(cls, text: str) -> ResponsePath:
        steps: list[str | int] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            match = _STEP.match(text, pos)
            if match is None or match.end() == pos:
                raise ValueError(f"invalid response path {text!r} at character {pos + 1}")
            steps.append(_step(text, pos, match))
            pos = match.end()
        if not steps:
            raise ValueError("a response path cannot be empty")
        return cls(text=text, steps=tuple(steps))

    def extract(self, data: Any) -> Any:
        """The value at this path (a list when the path has ``[*]``)."""
        return self._walk(data, 0, "")

    def _walk(self, node: Any, i: int, where: str) -> Any:
        if i == len(self.steps):
            return node
        step = self.steps[i]
        if step == EACH:
            items = self._list(node, where)
            return [self._walk(item, i + 1, f"{where}[{n}]") for n, item in enumerate(items)]
        if isinstance(step, int):
            return self._walk_index(node, step, i, where)
        return self._walk_key(node, step, i, where)

    def _list(self, node: Any, where: str) -> list[Any]:
        if not isinstance(node, list):
            raise PathError(self.text, where or "response", f"expected a list, found {_kind(node)}")
        return node

    def _walk_index(self, node: Any, step: int, i: int, where: str) -> Any:
        here = f"{where}[{step}]"
        items = self._list(node, where)
        if not -len(items) <= step < len(items):
            raise PathError(self.text, here, f"missing (the list has {len(items)} items)")
        return self._walk(items[step], i + 1, here)

    def _walk_key(self, node: Any, step: str, i: int, where: str) -> Any:
        here = f"{where}.{step}" if where else step
        if not isinstance(node, Mapping):
            raise PathError(self.text, here, f"missing ({where or 'response'} is {_kind(node)})")
        if step not in node:
            keys = ", ".join(sorted(map(str, node))[:10]) or "none"
            raise PathError(self.text, here, f"missing (keys there: {keys})")
        return self._walk(node[step], i + 1, here)


def _step(text: str, pos: int, match: re.Match[str]) -> str | int:
    """One step of a path: an index, ``[*]``, or a key (after a dot, but for the first)."""
    index, key = match.groups()
    if index is not None:
        return EACH if index == EACH else int(index)
    if pos > 0 and text[pos] != ".":
        raise ValueError(f"invalid response path {text!r} at character {pos + 1}")
    return str(key)


_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "a boolean"),
    ((int, float), "a number"),
    (str, "a string"),
    (list, "a list"),
    (Mapping, "an object"),
)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    for types, name in _KINDS:
        if isinstance(value, types):
            return name
    return type(value).__name__
