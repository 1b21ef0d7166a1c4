"""A small JSON Schema validator for the keywords of the published report and dataset
schemas ($ref to $defs, anyOf, oneOf, not, type (one or a list), const, enum, minimum, maximum,
minLength, properties, required, additionalProperties, items, prefixItems, minItems,
maxItems): their validation tests need no extra library. Annotations (title, description, default)
are ignored; an unknown keyword is an error, so a schema using more is never half-checked."""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}
_ANNOTATIONS = {"title", "description", "default", "$schema", "$defs", "format"}
_KNOWN = _ANNOTATIONS | {
    "$ref",
    "anyOf",
    "oneOf",
    "not",
    "minLength",
    "type",
    "const",
    "enum",
    "minimum",
    "maximum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
}


def _is_type(value: object, name: str | list[str]) -> bool:
    if isinstance(name, list):
        return any(_is_type(value, one) for one in name)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def errors(
    value: object, schema: dict[str, Any], root: dict[str, Any], path: str = "$"
) -> list[str]:
    """Where ``value`` does not match ``schema`` (empty when it does)."""
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"{path}: keywords this validator does not check: {sorted(unknown)}")
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return errors(value, root["$defs"][name], root, path)
    if "anyOf" in schema:
        options = [errors(value, option, root, path) for option in schema["anyOf"]]
        if all(options):
            return [f"{path}: matches no option ({'; '.join(o[0] for o in options)})"]
    if "oneOf" in schema:
        matching = sum(not errors(value, option, root, path) for option in schema["oneOf"])
        if matching != 1:
            return [f"{path}: matches {matching} of the options of oneOf, not exactly one"]
    if "not" in schema and not errors(value, schema["not"], root, path):
        return [f"{path}: matches what it must not"]
    if "type" in schema and not _is_type(value, schema["type"]):
        return [f"{path}: {value!r:.60} is not of type {schema['type']}"]
    if "const" in schema and value != schema["const"]:
        return [f"{path}: {value!r:.60} is not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r:.60} is not one of {schema['enum']}"]
    if _is_type(value, "number"):  # the bounds apply to numbers only
        if "minimum" in schema and not value >= schema["minimum"]:  # type: ignore[operator]
            return [f"{path}: {value!r} is less than {schema['minimum']}"]
        if "maximum" in schema and not value <= schema["maximum"]:  # type: ignore[operator]
            return [f"{path}: {value!r} is greater than {schema['maximum']}"]
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return [f"{path}: shorter than {schema['minLength']} characters"]
    found: list[str] = []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        found += [
            f"{path}: no {name!r}" for name in schema.get("required", []) if name not in value
        ]
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                found += errors(item, properties[name], root, f"{path}.{name}")
            elif extra is False:
                found.append(f"{path}: unexpected {name!r}")
            elif isinstance(extra, dict):
                found += errors(item, extra, root, f"{path}.{name}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            found.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(f"{path}: more than {schema['maxItems']} items")
        prefix = schema.get("prefixItems", [])
        for index, (item, item_schema) in enumerate(zip(value, prefix, strict=False)):
            found += errors(item, item_schema, root, f"{path}[{index}]")
        if "items" in schema:
            for index, item in enumerate(value):
                found += errors(item, schema["items"], root, f"{path}[{index}]")
    return found


def validate(value: object, schema: dict[str, Any]) -> list[str]:
    return errors(value, schema, schema)
