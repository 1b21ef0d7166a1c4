"""Turning what a model wrote into a validated output object, or a precise error.

Real judges wrap JSON in prose or code fences, leave trailing commas, capitalise keys, and
write verdicts as ``1``, ``"yes"``, ``"Supported"`` or ``true``. :func:`parse_reply` accepts
those, but only where the output model's types say what a value means (a verdict field, not
an index), and it never takes an answer from text the judge copied out of the untrusted
sections: a candidate JSON object that appears verbatim inside the RAG system's answer or
contexts is ignored, so an answer that says ``{"verdict": "supported"}`` cannot answer for
the judge. What cannot be read is an error with the reason, never a default verdict.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from ..text.escaping import strip_control

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)```", re.DOTALL)
_REFUSAL = re.compile(
    r"\b(?:I\s+(?:can(?:no|')t|am\s+(?:not\s+able|unable)|won't|will\s+not|must\s+decline)"
    r"|I'm\s+(?:sorry|unable|not\s+able)|I\s+apologi[sz]e|as\s+an\s+AI"
    r"|unable\s+to\s+(?:assist|help|comply|evaluate|judge)"
    r"|(?:cannot|can't)\s+(?:assist|help|comply)\s+with)\b",
    re.IGNORECASE,
)

POSITIVE = frozenset(
    {
        "1",
        "true",
        "yes",
        "y",
        "supported",
        "support",
        "faithful",
        "relevant",
        "useful",
        "attributed",
        "correct",
        "entailed",
        "entailment",
        "pass",
    }
)
NEGATIVE = frozenset(
    {
        "0",
        "false",
        "no",
        "n",
        "unsupported",
        "not supported",
        "not_supported",
        "unfaithful",
        "irrelevant",
        "not relevant",
        "not_relevant",
        "not useful",
        "not_useful",
        "useless",
        "not attributed",
        "not_attributed",
        "incorrect",
        "fail",
    }
)
# A negative that says why: the contexts state otherwise. For a three-way verdict it is
# "contradicted"; where only yes / no is asked, it is a no.
CONTRADICTING = frozenset(
    {
        "contradiction",
        "contradicted",
        "contradicts",
        "contradictory",
        "refuted",
        "refutes",
        "conflict",
        "conflicts",
        "conflicting",
    }
)
UNSURE = frozenset(
    {
        "idk",
        "unknown",
        "unsure",
        "unclear",
        "ambiguous",
        "undetermined",
        "uncertain",
        "cannot determine",
        "can't tell",
        "neutral",
        "maybe",
        "partial",
        "not mentioned",
        "not_mentioned",
        "not-mentioned",
        "unmentioned",
        "not in context",
        "not in the context",
        "not in the contexts",
        "no information",
        "not enough information",
        "not enough info",
        "nei",
    }
)


@dataclass(frozen=True)
class ParseResult:
    """``value`` when the reply validated, else ``error`` (meant for the corrective re-ask)."""

    value: BaseModel | None
    error: str = ""


def looks_like_refusal(text: str) -> bool:
    """Whether a reply without any JSON object reads as a refusal to judge."""
    return bool(_REFUSAL.search(text)) and not any(True for _ in _candidates(text))


def parse_reply(
    reply: str | Mapping[str, Any],
    model: type[BaseModel],
    *,
    untrusted: Sequence[str] = (),
) -> ParseResult:
    """Validate ``reply`` (text, or data from a tool call) against ``model``.

    With several valid JSON objects in a text, the last one wins (models tend to think
    first and answer last). ``untrusted`` are the texts the prompt delimited as data.
    """
    if isinstance(reply, Mapping):
        return _validate(_inert(dict(reply)), model)
    if not reply.strip():
        return ParseResult(None, "the reply was empty")
    return _last_valid(reply, model, _squash("\n".join(untrusted)))


def _last_valid(reply: str, model: type[BaseModel], haystack: str) -> ParseResult:
    """The last of the reply's answers that validates, else the first answer's error."""
    results = [_validate(_inert(data), model) for data in _answers(reply, haystack)]
    valid = [result.value for result in results if result.value is not None]
    if valid:
        return ParseResult(valid[-1])
    return _no_valid_answer(results)


def _no_valid_answer(results: list[ParseResult]) -> ParseResult:
    """Why none of the reply's answers (``results``) validated."""
    error = next((result.error for result in results if result.error), "")
    if error:
        return ParseResult(None, error)
    if results:
        return ParseResult(None, "the JSON in the reply does not match the schema")
    return ParseResult(None, "no JSON object was found in the reply")


def _answers(reply: str, haystack: str) -> Iterator[Any]:
    """The data of each JSON object in the reply, but those copied out of the untrusted text
    (``haystack``, without whitespace): never an answer."""
    for snippet in _candidates(reply):
        if haystack and len(snippet) > 2 and _squash(snippet) in haystack:
            continue
        data = _loads(snippet)
        if data is not _MISSING:
            yield data


def _inert(data: Any) -> Any:
    """The reply's data without terminal control sequences in any string (a reason is shown
    on the terminal and stored in the reports)."""
    if isinstance(data, str):
        return strip_control(data)
    if isinstance(data, dict):
        return {key: _inert(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_inert(item) for item in data]
    return data


# --------------------------------------------------------------------------- extraction

_MISSING: Any = object()


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _candidates(text: str) -> Iterator[str]:
    """JSON-looking snippets: fenced blocks first, then every balanced top-level object."""
    seen: set[str] = set()
    for snippet in itertools.chain(_fenced(text), _balanced(text)):
        if snippet not in seen:
            seen.add(snippet)
            yield snippet


def _fenced(text: str) -> Iterator[str]:
    """The code-fenced blocks that hold an object or a list."""
    for match in _FENCE.finditer(text):
        body = match.group(1).strip()
        if body and body[0] in "{[":
            yield body


def _balanced(text: str) -> Iterator[str]:
    """Top-level ``{...}`` (and ``[...]`` starting a line) spans, aware of JSON strings."""
    i, n = 0, len(text)
    while i < n:
        end = _match_end(text, i) if _opens(text, i) else None
        if end is None:
            i += 1
        else:
            yield text[i : end + 1]
            i = end + 1


def _opens(text: str, i: int) -> bool:
    """Whether a span starts at ``i``: a ``{``, or a ``[`` that starts a line or a value."""
    ch = text[i]
    return ch == "{" or (ch == "[" and (i == 0 or text[i - 1] in "\n\r\t :"))


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_DEPTH = {"{": 1, "[": 1, "}": -1, "]": -1}


def _match_end(text: str, start: int) -> int | None:
    """Where the bracket opened at ``start`` closes (brackets inside JSON strings do not
    count); ``None`` when it never does."""
    depth, j = 0, start
    while j < len(text):
        if text[j] == '"':
            string = _JSON_STRING.match(text, j)
            if string is None:
                return None
            j = string.end()
            continue
        depth += _DEPTH.get(text[j], 0)
        if depth == 0 and text[j] in "}]":
            return j
        j += 1
    return None


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SMART_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


def _loads(snippet: str) -> Any:
    """JSON, then repaired JSON (trailing commas, smart quotes), then a Python literal."""
    try:
        return json.loads(snippet)
    except ValueError:
        pass
    repaired = _TRAILING_COMMA.sub(r"\1", snippet.translate(_SMART_QUOTES))
    try:
        return json.loads(repaired)
    except ValueError:
        pass
    try:
        python = re.sub(r"\bnull\b", "None", repaired)
        python = re.sub(r"\bfalse\b", "False", re.sub(r"\btrue\b", "True", python))
        return ast.literal_eval(python)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return _MISSING


# --------------------------------------------------------------------------- normalising


def _validate(data: Any, model: type[BaseModel]) -> ParseResult:
    normalised = _normalise(data, model)
    try:
        return ParseResult(model.model_validate(normalised))
    except ValidationError as exc:
        return ParseResult(None, _describe(exc))


def _describe(exc: ValidationError) -> str:
    problems = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "the object"
        problems.append(f"{where}: {err['msg']}")
    more = f" (and {exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
    return "; ".join(problems) + more


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


Fields = dict[str, FieldInfo]


def _normalise(data: Any, model: type[BaseModel]) -> Any:
    """The reply's data shaped for ``model``: keys matched to its fields whatever their case
    and punctuation, values coerced to the fields' types."""
    fields = model.model_fields
    data = _unwrapped(_as_object(data, fields), fields)
    if not isinstance(data, dict):
        return data
    out, unmatched = _matched(data, fields)
    return _with_spare_list(out, unmatched, fields)


def _is_list(field: FieldInfo) -> bool:
    return get_origin(_unwrap(field.annotation)) is list


def _missing_lists(out: dict[str, Any], fields: Fields) -> list[str]:
    """The list fields ``out`` has no value for."""
    return [name for name in fields if name not in out and _is_list(fields[name])]


def _as_object(data: Any, fields: Fields) -> Any:
    """A bare list, for a model of one list field, as that field's value."""
    if isinstance(data, list) and len(fields) == 1:
        ((name, field),) = fields.items()
        if _is_list(field):
            return {name: data}
    return data


def _unwrapped(data: Any, fields: Fields) -> Any:
    """The object inside ``{"result": {...}}`` around the real one (for a model of several
    fields, none of them named so)."""
    if isinstance(data, dict) and len(data) == 1 and len(fields) > 1:
        ((outer, inner),) = data.items()
        if isinstance(inner, dict) and _key(str(outer)) not in _by_key(fields):
            return inner
    return data


def _by_key(fields: Fields) -> dict[str, str]:
    return {_key(name): name for name in fields}


def _matched(data: dict[Any, Any], fields: Fields) -> tuple[dict[str, Any], dict[str, Any]]:
    """The values of ``data`` whose keys name a field, coerced, by field; and the others."""
    by_key = _by_key(fields)
    out: dict[str, Any] = {}
    unmatched: dict[str, Any] = {}
    for raw_key, value in data.items():
        name = by_key.get(_key(str(raw_key)))
        if name is None:
            unmatched[str(raw_key)] = value
        else:
            out[name] = _coerce(value, fields[name].annotation)
    return out, unmatched


def _with_spare_list(
    out: dict[str, Any], unmatched: dict[str, Any], fields: Fields
) -> dict[str, Any]:
    """One list field missing and one unknown list present (``{"verdicts": [...]}`` for
    ``statements``): unambiguous, so the list is that field's."""
    missing = _missing_lists(out, fields)
    spare = [value for value in unmatched.values() if isinstance(value, list)]
    if len(missing) == 1 and len(spare) == 1:
        out[missing[0]] = _coerce(spare[0], fields[missing[0]].annotation)
    return out


def _unwrap(annotation: Any) -> Any:
    """``X | None`` -> ``X``; ``Annotated`` is already stripped by pydantic."""
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _coerce(value: Any, annotation: Any) -> Any:
    """``value`` as the field's type reads it, where that is unambiguous; else as it is."""
    annotation = _unwrap(annotation)
    origin = get_origin(annotation)
    if annotation is bool:
        return _to_bool(value)
    if origin is Literal:
        return _to_literal(value, get_args(annotation))
    if origin is list and isinstance(value, list):
        return _coerce_items(value, annotation)
    return _coerce_scalar(value, annotation)


def _coerce_items(value: list[Any], annotation: Any) -> list[Any]:
    (item_type,) = get_args(annotation) or (Any,)
    return [_coerce(v, item_type) for v in value]


def _coerce_scalar(value: Any, annotation: Any) -> Any:
    """A nested object normalised for its model; an integer written as a string, read."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _normalise(value, annotation)
    if annotation is int and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return value


def _token(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) and value in (0, 1):
        return str(int(value))
    if isinstance(value, str):
        return re.sub(r"\s+", " ", value.strip().strip(".!").lower())
    return None


def _to_bool(value: Any) -> Any:
    token = _token(value)
    if token in POSITIVE:
        return True
    if token in NEGATIVE or token in CONTRADICTING:
        return False
    return value


def _to_literal(value: Any, options: tuple[Any, ...]) -> Any:
    """The option ``value`` names: the option itself whatever its case, else the only option
    of the group of words ``value`` is in; else ``value`` as it is."""
    token = _token(value)
    if token is None:
        return value
    found = _named_option(token, options)
    if found is _MISSING:
        found = _option_of_group(token, options)
    return value if found is _MISSING else found


def _named_option(token: str, options: tuple[Any, ...]) -> Any:
    for option in options:
        if isinstance(option, str) and option.lower() == token:
            return option
    return _MISSING


# A contradiction is a no where no verdict says contradicted (a two-way question).
_GROUPS = (POSITIVE, CONTRADICTING, NEGATIVE, UNSURE, NEGATIVE | CONTRADICTING)


def _option_of_group(token: str, options: tuple[Any, ...]) -> Any:
    """The only option in the first group of words holding ``token`` that has exactly one."""
    for group in _GROUPS:
        if token in group:
            found = _only_option_in(group, options)
            if found is not _MISSING:
                return found
    return _MISSING


def _only_option_in(group: frozenset[str], options: tuple[Any, ...]) -> Any:
    matching = [o for o in options if isinstance(o, str) and o.lower() in group]
    return matching[0] if len(matching) == 1 else _MISSING


def literal_options(annotation: Any) -> tuple[Any, ...] | None:
    """The options of a ``Literal`` annotation (``None`` otherwise)."""
    annotation = _unwrap(annotation)
    return get_args(annotation) if get_origin(annotation) is Literal else None


def verdict_options(annotation: Any) -> tuple[Any, ...]:
    """Every value a verdict field may hold: ``(False, True)`` for a bool, a Literal's
    options, nothing for any other field."""
    if _unwrap(annotation) is bool:
        return (False, True)
    return literal_options(annotation) or ()


def is_verdict_annotation(annotation: Any) -> bool:
    """Whether a field holds a verdict (a bool or a Literal of words)."""
    annotation = _unwrap(annotation)
    return annotation is bool or get_origin(annotation) is Literal


__all__ = [
    "ParseResult",
    "is_verdict_annotation",
    "literal_options",
    "looks_like_refusal",
    "parse_reply",
    "verdict_options",
]
