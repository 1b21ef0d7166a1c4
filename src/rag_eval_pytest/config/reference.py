"""The configuration reference, generated from the settings model
(:class:`~rag_eval_pytest.config.settings.Settings`) so that the documentation cannot drift
from the code.

``python -m rag_eval_pytest.config.reference > docs/configuration-reference.md``
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from .settings import Settings

if typing.TYPE_CHECKING:
    from pydantic.fields import FieldInfo

HEADER = """# Configuration reference

Generated from the settings model by `python -m rag_eval_pytest.config.reference`; do not
edit by hand (a test checks that this file is current).

Keys go in `eval-config.yaml` (or `[tool.rag_eval]` in `pyproject.toml`). Dotted keys are
nested sections: `output.directory` is

```yaml
output:
  directory: results
```

| key | type | default | meaning |
|---|---|---|---|
"""


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return " \\| ".join(json.dumps(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(_type_name(a) for a in args)
    if origin is typing.Annotated:
        return _type_name(args[0])
    return _collection_name(annotation, origin, args)


def _collection_name(annotation: Any, origin: Any, args: tuple[Any, ...]) -> str:
    if origin in (list, tuple, set):
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict:
        return f"map of {_type_name(args[0])} to {_type_name(args[1])}" if args else "map"
    if annotation is type(None):
        return "null"
    return getattr(annotation, "__name__", str(annotation))


def _default(info: FieldInfo) -> str:
    if info.default is not PydanticUndefined:
        value = info.default
    elif info.default_factory is not None:
        value = info.default_factory()  # type: ignore[call-arg]
    else:
        return "(required)"
    if isinstance(value, BaseModel):
        return "(section)"
    return f"`{json.dumps(value)}`"


def _section(annotation: Any) -> type[BaseModel] | None:
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _map_of_sections(annotation: Any) -> type[BaseModel] | None:
    """``dict[str, Model]``: a map whose values are sections (``judge.prices.<model>``)."""
    if typing.get_origin(annotation) is dict:
        return _section(typing.get_args(annotation)[1])
    return None


def rows(
    model: type[BaseModel], prefix: str = "", outer: tuple[type[BaseModel], ...] = ()
) -> list[str]:
    out = []
    for name, info in model.model_fields.items():
        out += _field_rows(model, name, info, prefix, outer)
    return out


def _field_rows(
    model: type[BaseModel],
    name: str,
    info: FieldInfo,
    prefix: str,
    outer: tuple[type[BaseModel], ...],
) -> list[str]:
    """A field's row, and a section's rows after it."""
    key = f"{prefix}{name}"
    inner = _section(info.annotation)
    if inner is not None and (inner is model or inner in outer):
        # A section that holds itself (a cascade's judge.then): named once, not unrolled.
        same = prefix.rstrip(".") or name
        return [f"| `{key}` | section, as `{same}` | | {_described(info.description)} |"]
    entries = _map_of_sections(info.annotation)
    if entries is not None:
        description = _described(info.description)
        return [
            f"| `{key}` | map of name to section | {_default(info)} | {description} |",
            *rows(entries, f"{key}.<name>.", (*outer, model)),
        ]
    return _plain_rows(model, key, info, outer)


def _plain_rows(
    model: type[BaseModel], key: str, info: FieldInfo, outer: tuple[type[BaseModel], ...]
) -> list[str]:
    """A value's row, or a section's (described by its docstring when the field is not)."""
    section = _section(info.annotation)
    description = _described(info.description or (section.__doc__ or "" if section else ""))
    if section is not None:
        return [
            f"| `{key}` | section | | {description} |",
            *rows(section, f"{key}.", (*outer, model)),
        ]
    return [f"| `{key}` | {_type_name(info.annotation)} | {_default(info)} | {description} |"]


def _described(text: str | None) -> str:
    """A description on one line of a table."""
    return " ".join((text or "").split()).replace("|", "\\|")


def render() -> str:
    return HEADER + "\n".join(rows(Settings)) + "\n"


if __name__ == "__main__":
    print(render(), end="")
