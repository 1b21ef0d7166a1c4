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
    if isinstance(data, (dict, list)):
        if id(data) in done:
            return done[id(data)]
        if isinstance(data, dict):
            result: Any = {}
            done[id(data)] = result
            for k, v in data.items():
                result[k] = interpolate(
                    v,
                    env,
                    label,
                    secrets,
                    f"{path}.{k}" if path else str(k),
                    done,
                    references=references,
                )
        else:
            result = []
            done[id(data)] = result
            result.extend(
                interpolate(v, env, label, secrets, f"{path}[{i}]", done, references=references)
                for i, v in enumerate(data)
            )
        return result
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
        text, out = self.text, []
        while i < len(text):
            if text.startswith("$${", i):
                out.append("${")
                i += 3
            elif text.startswith("${", i):
                value, i = self.reference(i, live=live)
                out.append(value)
            elif nested and text[i] == "}":
                return "".join(out), i
            else:
                out.append(text[i])
                i += 1
        if nested:
            raise self.fail(f"a '${{' is never closed by '}}' ({_REFERENCE_HELP})")
        return "".join(out), i

    def reference(self, start: int, *, live: bool) -> tuple[str, int]:
        """The value of the reference at ``start`` and the index after its closing brace."""
        match = _ENV_NAME.match(self.text, start + 2)
        if match is None:
            raise self.fail(f"a '${{' is not followed by a variable name ({_REFERENCE_HELP})")
        name, i = match.group(), match.end()
        value = self.env.get(name) if live else ""
        default: str | None = None
        if self.text.startswith(":-", i):
            default, i = self.expand(i + 2, nested=True, live=live and value is None)
        if i >= len(self.text) or self.text[i] != "}":
            raise self.fail(f"the reference to {name} is not closed by '}}' ({_REFERENCE_HELP})")
        if value is None:
            if default is None:
                raise self.fail(
                    f"environment variable {name} is not set "
                    f"(write ${{{name}:-default}} to give a default)"
                )
            value = default
        elif (
            live
            and value
            and (is_credential_name(name) or is_credential_name(self.path.rpartition(".")[2]))
        ):
            self.secrets.add(value)
        return value, i + 1
