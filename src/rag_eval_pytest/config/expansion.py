"""``${VAR}`` and ``${VAR:-default}`` in config-file strings, replaced from the environment.

A default may hold references (``${A:-${B:-x}}``); ``$${`` is a literal ``${``, and any other
``${`` that is not a whole reference is an error that names the key.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..redaction import is_credential_name

if TYPE_CHECKING:
    from collections.abc import Mapping

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REFERENCE_HELP = "write ${NAME} or ${NAME:-default}, and $${ for a literal ${"


def interpolate(
    data: Any,
    env: Mapping[str, str],
    label: str,
    secrets: set[str],
    path: str = "",
    _done: dict[int, Any] | None = None,
    *,
    references: dict[str, str] | None = None,
) -> Any:
    """Replace ``${VAR}`` / ``${VAR:-default}`` in every string of ``data``.

    Values taken from variables whose names look like credentials are added to ``secrets``;
    each string that held a reference is added to ``references`` under its key, so that an
    error can say where its value came from. A list or mapping that appears several times (a
    YAML alias) is interpolated once and stays shared, so a few lines of aliases never expand
    into millions of copies.
    """
    done: dict[int, Any] = {} if _done is None else _done
    if not isinstance(data, (dict, list)):
        return _interpolate_value(data, env, label, secrets, path, references)
    if id(data) in done:
        return done[id(data)]
    result: Any = {} if isinstance(data, dict) else []
    done[id(data)] = result
    for key, where, value in _children(data, path):
        _put(
            result, key, interpolate(value, env, label, secrets, where, done, references=references)
        )
    return result


def _children(data: dict[Any, Any] | list[Any], path: str) -> list[tuple[Any, str, Any]]:
    """Each key (or index) of a mapping (or list), with its key's path and its value."""
    if isinstance(data, dict):
        return [(k, f"{path}.{k}" if path else str(k), v) for k, v in data.items()]
    return [(i, f"{path}[{i}]", v) for i, v in enumerate(data)]


def _put(result: dict[Any, Any] | list[Any], key: Any, value: Any) -> None:
    if isinstance(result, list):
        result.append(value)
    else:
        result[key] = value


def _interpolate_value(
    data: Any,
    env: Mapping[str, str],
    label: str,
    secrets: set[str],
    path: str,
    references: dict[str, str] | None,
) -> Any:
    """A string with its references replaced (noted in ``references``); any other value as
    it is."""
    if not isinstance(data, str):
        return data
    if references is not None and "${" in data:
        references[path] = data
    return _Expansion(data, env, label, secrets, path).run()


class _Expansion:
    """The references of one config string, read left to right; a default is read to its
    closing brace, references in it included, and looked up only when it is used."""

    def __init__(
        self, text: str, env: Mapping[str, str], label: str, secrets: set[str], path: str
    ) -> None:
        self.text, self.env, self.label, self.secrets, self.path = text, env, label, secrets, path

    def fail(self, problem: str) -> ConfigError:
        return ConfigError(f"Invalid configuration {self.label}: key {self.path!r}: {problem}")

    def run(self) -> str:
        value, _ = self.expand(0, nested=False, live=True)
        return value

    def expand(self, i: int, *, nested: bool, live: bool) -> tuple[str, int]:
        """The text from ``i`` with its references replaced, and where it ends: at the end of
        the string, or (``nested``, a default) at the brace that closes the reference."""
        text, out = self.text, list[str]()
        while i < len(text):
            if nested and text[i] == "}":
                return "".join(out), i
            piece, i = self._piece(i, live=live)
            out.append(piece)
        if nested:
            raise self.fail(f"a '${{' is never closed by '}}' ({_REFERENCE_HELP})")
        return "".join(out), i

    def _piece(self, i: int, *, live: bool) -> tuple[str, int]:
        """What the text at ``i`` stands for (a literal ``${``, a reference's value, or its
        character), and the index after it."""
        if self.text.startswith("$${", i):
            return "${", i + 3
        if self.text.startswith("${", i):
            return self.reference(i, live=live)
        return self.text[i], i + 1

    def reference(self, start: int, *, live: bool) -> tuple[str, int]:
        """The value of the reference at ``start`` and the index after its closing brace."""
        name, i = self._name(start)
        value = self.env.get(name) if live else ""
        default: str | None = None
        if self.text.startswith(":-", i):
            default, i = self.expand(i + 2, nested=True, live=live and value is None)
        if i >= len(self.text) or self.text[i] != "}":
            raise self.fail(f"the reference to {name} is not closed by '}}' ({_REFERENCE_HELP})")
        return self._resolved(name, value, default, live=live), i + 1

    def _name(self, start: int) -> tuple[str, int]:
        match = _ENV_NAME.match(self.text, start + 2)
        if match is None:
            raise self.fail(f"a '${{' is not followed by a variable name ({_REFERENCE_HELP})")
        return match.group(), match.end()

    def _resolved(self, name: str, value: str | None, default: str | None, *, live: bool) -> str:
        """The variable's value (kept as a secret when its name or key's looks like a
        credential's), else the default; neither is an error."""
        if value is None:
            if default is None:
                raise self.fail(
                    f"environment variable {name} is not set "
                    f"(write ${{{name}:-default}} to give a default)"
                )
            return default
        if live and value and self._credential(name):
            self.secrets.add(value)
        return value

    def _credential(self, name: str) -> bool:
        return is_credential_name(name) or is_credential_name(self.path.rpartition(".")[2])
