"""A key given twice in one JSON object or YAML mapping of a dataset or config file is an
error, not "the last one wins": the earlier value would be dropped without a word.

Hooks for the standard parsers: :func:`unique_keys` is a ``json.loads`` ``object_pairs_hook``,
:func:`unique_keys_yaml_loader` a YAML ``SafeLoader`` whose mappings check their keys. YAML
merge keys (``<<: *base``) may still be overridden by the mapping's own keys;
:func:`yaml_problem` words any YAML parse error for the message naming the file.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml


class DuplicateKeyError(ValueError):
    """A mapping gives the same key twice. The message names the key (and the line in YAML)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads``: the object, or :class:`DuplicateKeyError`."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


@functools.cache
def unique_keys_yaml_loader() -> type[yaml.SafeLoader]:
    """A ``SafeLoader`` that raises :class:`DuplicateKeyError` for a key given twice."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
            seen: set[object] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                try:
                    if key in seen:
                        line = key_node.start_mark.line + 1
                        raise DuplicateKeyError(
                            f"the key {key!r} appears twice in one mapping (line {line})"
                        )
                    seen.add(key)
                except TypeError:  # an unhashable key: SafeLoader reports it
                    continue
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def yaml_problem(exc: yaml.YAMLError) -> str:
    """``invalid YAML at line L, column C: <problem>`` (the place when the parser knows it)."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"invalid YAML{where}: {problem}"
