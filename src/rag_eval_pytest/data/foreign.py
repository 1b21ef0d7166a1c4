"""The dataset formats of DeepEval and RAGAS, field by field, and their conversion to ours.

DeepEval keeps goldens and test cases (``input``, ``actual_output``, ``expected_output``,
``retrieval_context``, ``context``; ``EvaluationDataset.save_as`` writes them as a JSON list
or a CSV file). RAGAS keeps single-turn samples (``user_input``, ``response``,
``retrieved_contexts``, ``reference``, ``reference_contexts``; ``EvaluationDataset.to_jsonl``
and ``to_csv``), and before version 0.2 ``question``, ``answer``, ``contexts``,
``ground_truth`` or ``ground_truths``.

Both keep conversations too: DeepEval's ``ConversationalGolden`` and ``ConversationalTestCase``
hold ``turns``, each a message (``role`` user or assistant, ``content``, the assistant's
``retrieval_context``); RAGAS's ``MultiTurnSample`` holds its messages in ``user_input``
(``type`` human, ai or tool, ``content``). A user's message and the replies after it become
one turn of ours (the replies its recorded answer, the retrieval context or the tools' output
its contexts); a user's message with no reply after it is a turn the RAG system is asked.

:func:`convert_rows` maps each item to a case of ours: the question, the reference answer as
``ground_truth``, a recorded answer with its contexts (the RAG system is then not called), and
what has no field of ours in the case's ``metadata``. Every problem names the item and the
field as the source file spells it. :func:`foreign_format` tells which format a dataset's
field names come from, for the hint that names the converter.
"""

from __future__ import annotations

import ast
import csv
import difflib
import io
import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeGuard

from . import bigints
from .duplicate_keys import DuplicateKeyError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

Format = Literal["deepeval", "ragas"]
FORMATS: tuple[Format, ...] = ("deepeval", "ragas")
NAMES: dict[Format, str] = {"deepeval": "DeepEval", "ragas": "RAGAS"}

# Our field for each of theirs; "metadata" keeps the value under its own name.
_DEEPEVAL: dict[str, str] = {
    "input": "question",
    "expected_output": "ground_truth",
    "actual_output": "answer",
    "retrieval_context": "contexts",
    "context": "metadata",
    "additional_metadata": "metadata",
    "source_file": "metadata",
    "name": "metadata",
    "comments": "metadata",
    "tools_called": "metadata",
    "expected_tools": "metadata",
    "custom_column_key_values": "metadata",
}
_DEEPEVAL_ALIASES = {
    "actualOutput": "actual_output",
    "expectedOutput": "expected_output",
    "retrievalContext": "retrieval_context",
    "additionalMetadata": "additional_metadata",
    "sourceFile": "source_file",
    "toolsCalled": "tools_called",
    "expectedTools": "expected_tools",
}
_RAGAS: dict[str, str] = {
    "user_input": "question",
    "reference": "ground_truth",
    "response": "answer",
    "retrieved_contexts": "contexts",
    "retrieved_context_ids": "sources",
    "reference_context_ids": "expected_contexts",
    "reference_contexts": "metadata",
    "multi_responses": "metadata",
    "rubric": "metadata",
    "rubrics": "metadata",
    # Before RAGAS 0.2.
    "question": "question",
    "answer": "answer",
    "contexts": "contexts",
    "ground_truth": "ground_truth",
    "ground_truths": "ground_truth",
}
FIELDS: dict[Format, dict[str, str]] = {"deepeval": _DEEPEVAL, "ragas": _RAGAS}

# A conversation's own fields, and those of each of its messages.
_DEEPEVAL_CONVERSATION: dict[str, str] = {
    "turns": "turns",
    "scenario": "metadata",
    "expected_outcome": "metadata",
    "user_description": "metadata",
    "persona": "metadata",
    "chatbot_role": "metadata",
    "context": "metadata",
    "name": "metadata",
    "comments": "metadata",
    "tags": "metadata",
    "metadata": "metadata",
    "additional_metadata": "metadata",
    "custom_column_key_values": "metadata",
}
_DEEPEVAL_CONVERSATION_ALIASES = {
    "expectedOutcome": "expected_outcome",
    "userDescription": "user_description",
    "chatbotRole": "chatbot_role",
    "additionalMetadata": "additional_metadata",
    "customColumnKeyValues": "custom_column_key_values",
}
_DEEPEVAL_MESSAGE = frozenset(
    {"role", "content", "retrieval_context", "user_id", "tools_called", "mcp_tools_called"}
    | {"mcp_resources_called", "mcp_prompts_called", "metadata", "additional_metadata"}
)
_DEEPEVAL_MESSAGE_ALIASES = {
    "retrievalContext": "retrieval_context",
    "userId": "user_id",
    "toolsCalled": "tools_called",
    "mcpToolsCalled": "mcp_tools_called",
    "mcpResourcesCalled": "mcp_resources_called",
    "mcpPromptsCalled": "mcp_prompts_called",
    "additionalMetadata": "additional_metadata",
}
_RAGAS_CONVERSATION: dict[str, str] = {
    "user_input": "turns",
    "reference": "metadata",
    "reference_tool_calls": "metadata",
    "reference_topics": "metadata",
    "rubrics": "metadata",
}
_RAGAS_MESSAGE = frozenset({"type", "role", "content", "metadata", "tool_calls"})
_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}
_ROLES["tool"] = "tool"
# How each format names a message's role, and the roles it has.
_ROLE_FIELD: dict[Format, str] = {"deepeval": "role", "ragas": "type"}
_ROLES_ALLOWED: dict[Format, str] = {
    "deepeval": "user or assistant",
    "ragas": "human, ai or tool",
}
# A message's fields that ours reads; its other known fields go to the case's metadata.
_MESSAGE_OURS = frozenset({"role", "type", "content", "retrieval_context"})
_ALIASES: dict[Format, dict[str, str]] = {"deepeval": _DEEPEVAL_ALIASES, "ragas": {}}
_CONVERSATION: dict[Format, dict[str, str]] = {
    "deepeval": _DEEPEVAL_CONVERSATION,
    "ragas": _RAGAS_CONVERSATION,
}
_CONVERSATION_ALIASES: dict[Format, dict[str, str]] = {
    "deepeval": _DEEPEVAL_CONVERSATION_ALIASES,
    "ragas": {},
}
_MESSAGE: dict[Format, frozenset[str]] = {"deepeval": _DEEPEVAL_MESSAGE, "ragas": _RAGAS_MESSAGE}
_MESSAGE_ALIASES: dict[Format, dict[str, str]] = {
    "deepeval": _DEEPEVAL_MESSAGE_ALIASES,
    "ragas": {},
}
# What a conversation expects of its end: no turn's answer, so no turn's ground_truth.
_OUTCOME: dict[Format, str] = {"deepeval": "expected_outcome", "ragas": "reference"}

# Field names that only their format uses: one of them in a dataset of ours names the format.
_DISTINCT: dict[Format, frozenset[str]] = {
    "deepeval": frozenset({"input", "actual_output", "expected_output", "retrieval_context"})
    | frozenset(_DEEPEVAL_ALIASES)
    | frozenset({"scenario", "expected_outcome", "user_description", "chatbot_role"}),
    "ragas": frozenset(
        {"user_input", "response", "retrieved_contexts", "reference", "reference_contexts"}
        | {"ground_truths", "retrieved_context_ids", "reference_context_ids"}
    ),
}


# A format's question fields: a conversational golden's scenario names DeepEval too.
_QUESTION: dict[Format, frozenset[str]] = {
    "deepeval": frozenset({"input", "scenario"}),
    "ragas": frozenset({"user_input"}),
}


def foreign_format(keys: Iterable[str]) -> Format | None:
    """The format whose own field names ``keys`` use most, or ``None``. A format is named
    when its question field or two of its own fields are there: one misspelt field of ours
    that happens to be one of theirs is a typo, not their format."""
    given = set(keys)
    counts = {fmt: len(given & names) for fmt, names in _DISTINCT.items()}
    best = max(FORMATS, key=lambda fmt: counts[fmt])
    if counts[best] >= 2 or _QUESTION[best] & given:
        return best
    return None


def converter_command(fmt: Format, path: object) -> str:
    return f"rag-eval convert --from {fmt} {path} converted.json"


class ConversionError(Exception):
    """Problems of the input file, one line each (item and field named)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Conversion:
    cases: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- reading


def _parse_json(text: str, where: str) -> object:
    """One JSON document; every way it can fail is one :class:`ConversionError`."""
    try:
        document, problem = bigints.load_json(text)
    except DuplicateKeyError as exc:
        raise ConversionError([f"{where}{exc}"]) from None
    except json.JSONDecodeError as exc:
        raise ConversionError(
            [f"{where}invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"]
        ) from None
    except RecursionError:
        raise ConversionError([f"{where}nested too deeply to be a dataset"]) from None
    if problem is not None:
        raise ConversionError([f"{where}{problem}"])
    return document


def _csv_records(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each row of a CSV file but the blank ones, with the line where it starts."""
    reader = csv.reader(io.StringIO(text), strict=True)
    while True:
        line = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            why = "a quote opened in this row is never closed" if "end of data" in str(exc) else exc
            raise ConversionError([f"line {line}: malformed CSV ({why})"]) from None
        if cells:
            yield line, cells


def _csv_rows(text: str) -> list[tuple[str, object]]:
    """The rows of a CSV file as items. A quote left open, text after a closing quote, or a
    row with more cells than the header has columns is refused with the line where its row
    starts: read leniently, the rest of the file would become one cell, or cells would be
    dropped, without a word."""
    records = _csv_records(text)
    first = next(records, None)
    if first is None:
        return []
    header = first[1]
    items: list[tuple[str, object]] = []
    for line, cells in records:
        if len(cells) > len(header):
            raise ConversionError(
                [f"line {line}: malformed CSV ({len(cells)} cells, the header has {len(header)})"]
            )
        # A short row leaves its last columns out. Row 1 is the header: the first item is
        # row 2, as a spreadsheet shows it.
        row = {name: value for name, value in zip(header, cells, strict=False) if value != ""}
        items.append((f"row {len(items) + 2}", row))
    return items


def _jsonl_items(text: str) -> list[tuple[str, object]]:
    return [
        (f"line {lineno}", _parse_json(line, f"line {lineno}: "))
        for lineno, line in enumerate(text.split("\n"), start=1)
        if line.strip()
    ]


def _json_items(text: str) -> list[tuple[str, object]]:
    document = _parse_json(text, "")
    if isinstance(document, dict):
        document = _listed(document)
    if not isinstance(document, list):
        raise ConversionError([f"expected a list of items, found {type(document).__name__}"])
    return [(f"item {index}", raw) for index, raw in enumerate(document)]


def _listed(document: dict[str, Any]) -> object:
    """The list of items a JSON object holds (DeepEval's goldens or test cases, RAGAS's
    samples)."""
    lists = [key for key in ("goldens", "test_cases", "samples") if key in document]
    if not lists or not isinstance(document[lists[0]], list):
        raise ConversionError(
            [
                "expected a list of items (or an object with 'goldens', 'test_cases' or "
                "'samples'), found an object without one"
            ]
        )
    return document[lists[0]]


_READERS: dict[str, Callable[[str], list[tuple[str, object]]]] = {
    "json": _json_items,
    "jsonl": _jsonl_items,
    "csv": _csv_rows,
}


def read_items(name: str, text: str) -> list[tuple[str, object]]:
    """The items of a JSON (a list, or an object holding one), JSONL or CSV file, each with
    where it is (``item 3``, ``line 4``, ``row 2``). Raises :class:`ConversionError`."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    reader = _READERS.get(suffix)
    if reader is None:
        raise ConversionError(
            [
                f"unknown file type {('.' + suffix) if suffix else '(none)'!r} "
                "(use .json, .jsonl or .csv)"
            ]
        )
    return reader(text)


# --------------------------------------------------------------------------- converting


@dataclass
class _Item:
    """One item being converted: its format, where the file has it, whether it is a CSV row
    (whose lists are texts), and the problems and notes of the whole file."""

    fmt: Format
    where: str
    problems: list[str]
    notes: list[str]
    cell: bool

    def problem(self, text: str) -> None:
        self.problems.append(f"{self.where}: {text}")

    def note(self, text: str) -> None:
        self.notes.append(f"{self.where}: {text}")


def _text(it: _Item, name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        it.problem(f"field {name!r} must be text, found {type(value).__name__}")
        return None
    return value


def _texts(it: _Item, name: str, value: object, *, cell: bool) -> list[str] | None:
    if value is None:
        return None
    if cell and isinstance(value, str):
        try:
            value = _cell_texts(value)
        except (ValueError, SyntaxError):
            it.problem(f"field {name!r} is not a readable list")
            return None
    if not _is_texts(value):
        it.problem(f"field {name!r} must be a list of texts")
        return None
    return list(value)


def _cell_texts(text: str) -> object:
    """A list in a CSV cell: a Python list as RAGAS writes it, or ``a|b``."""
    stripped = text.strip()
    if stripped.startswith("["):
        return ast.literal_eval(stripped)
    return [part for part in stripped.split("|") if part.strip()]


def _is_texts(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _hint(key: str, known: list[str]) -> str:
    """The known field ``key`` was probably meant to be, or all of them."""
    close = difflib.get_close_matches(key, known, 1, 0.8)
    return f"did you mean {close[0]!r}?" if close else f"known: {', '.join(known)}"


def _spelt_ours(item: dict[str, Any], aliases: dict[str, str]) -> dict[str, Any]:
    """The item with each field spelt as the format's own table spells it."""
    return {aliases.get(key, key): value for key, value in item.items()}


def _refuse_unknown(it: _Item, item: dict[str, Any], table: dict[str, str], of: str) -> None:
    for key in item:
        if key not in table:
            it.problem(f"unknown field {key!r} for {of} ({_hint(key, list(table))})")


def _theirs(table: dict[str, str], ours: str) -> list[str]:
    """The fields of a format that become ``ours``, in the table's order."""
    return [theirs for theirs, target in table.items() if target == ours]


def _convert_item(it: _Item, raw: object) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        it.problem(f"expected an object, found {type(raw).__name__}")
        return None
    item: dict[str, Any] = {str(k): v for k, v in raw.items()}
    if _is_conversation(it.fmt, item, cell=it.cell):
        return _convert_conversation(it, item)
    return _convert_single(it, item)


def _convert_single(it: _Item, item: dict[str, Any]) -> dict[str, Any] | None:
    """A golden, a test case or a sample as a case of ours."""
    table = FIELDS[it.fmt]
    item = _spelt_ours(item, _ALIASES[it.fmt])
    _refuse_unknown(it, item, table, NAMES[it.fmt])
    ours, metadata = _our_fields(it, item, table)
    if not (ours.get("question") or "").strip():
        _question_problem(it, item, table)
        return None
    _place_contexts(it, item, table, ours, metadata)
    return _case(ours, metadata)


def _our_fields(
    it: _Item, item: dict[str, Any], table: dict[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The item's values in our fields (its sources among them), and those its metadata
    keeps; where two of its fields are one of ours, the later one."""
    ours: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for key, value in item.items():
        target = table.get(key)
        if target is None or value is None:
            continue
        if target == "metadata":
            metadata[key] = value
        else:
            ours[target] = _field_value(it, key, value, target)
    return ours, metadata


def _field_value(it: _Item, key: str, value: object, target: str) -> object:
    if target in ("contexts", "expected_contexts", "sources"):
        return _texts(it, key, value, cell=it.cell)
    if key == "ground_truths":
        truths = _texts(it, key, value, cell=it.cell)
        return "\n".join(truths) if truths else None
    return _text(it, key, value)


def _question_problem(it: _Item, item: dict[str, Any], table: dict[str, str]) -> None:
    """Why an item has no question: no question field, or an empty one (one that is not
    text has its problem already)."""
    asked = _theirs(table, "question")
    named = [key for key in asked if item.get(key) is not None]
    if not named:
        it.problem(f"field {asked[0]!r} is required")
    elif isinstance(item[named[0]], str):
        it.problem(f"field {named[0]!r} must not be empty")


def _place_contexts(
    it: _Item,
    item: dict[str, Any],
    table: dict[str, str],
    ours: dict[str, Any],
    metadata: dict[str, Any],
) -> None:
    """The retrieved contexts (with their sources) go with a recorded answer; without one,
    the metadata keeps them as the file has them, and the RAG system is called."""
    contexts = _with_sources(it, ours.pop("contexts", None), ours.pop("sources", None))
    if contexts is None:
        return
    if ours.get("answer") is not None:
        ours["contexts"] = contexts
        return
    contexts_field = next(key for key in _theirs(table, "contexts") if key in item)
    metadata[contexts_field] = item[contexts_field]
    it.note(
        f"{contexts_field!r} without an answer is kept in the case's "
        "metadata only: the RAG system is called for this case"
    )


def _with_sources(it: _Item, contexts: list[str] | None, sources: list[str] | None) -> Any:
    """The contexts, each with its source where the item has as many sources as contexts."""
    if sources is None or contexts is None:
        return contexts
    if len(sources) == len(contexts):
        return [{"text": t, "source": s} for t, s in zip(contexts, sources, strict=True)]
    it.problem(
        f"field 'retrieved_context_ids' has {len(sources)} ids for "
        f"{len(contexts)} retrieved_contexts"
    )
    return contexts


def _case(ours: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    """Our fields that have a value (an empty reference is no reference), and the metadata."""
    if not (ours.get("ground_truth") or "").strip():
        ours.pop("ground_truth", None)
    case = {key: value for key, value in ours.items() if value is not None}
    if metadata:
        case["metadata"] = metadata
    return case


# --------------------------------------------------------------------------- conversations


def _is_conversation(fmt: Format, item: dict[str, Any], *, cell: bool) -> bool:
    """Whether an item is a conversation: DeepEval's has ``turns`` (or a golden's
    ``scenario``), RAGAS's a list of messages as its ``user_input`` (in a CSV cell, the list
    as text)."""
    if fmt == "deepeval":
        return "turns" in item or "scenario" in item
    value = item.get("user_input")
    if isinstance(value, list):
        return True
    return cell and isinstance(value, str) and isinstance(_cell_list(value), list)


def _cell_list(text: str) -> object:
    """A list written in a CSV cell, as JSON (DeepEval) or as a Python list (RAGAS), or
    ``None`` when the cell is not one."""
    stripped = text.strip()
    if not stripped.startswith("["):
        return None
    try:
        return json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        pass
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


@dataclass
class _Message:
    """One message of a conversation, as ours reads it."""

    at: str  # where the file has it: "turns[2]", "user_input[0]"
    role: str  # "user", "assistant" or "tool"
    content: str
    contexts: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _retrieved(value: str) -> str | dict[str, str]:
    """A DeepEval retrieval context: its text, or its text and source when DeepEval wrote the
    two as one marker (``deepeval_source=<source>,deepeval_context=<text>``)."""
    head, sep, text = value.partition(",deepeval_context=")
    if sep and head.startswith("deepeval_source="):
        return {"text": text, "source": head.removeprefix("deepeval_source=")}
    return value


def _messages(it: _Item, name: str, value: object) -> list[_Message] | None:
    """The messages of a conversation's ``name`` field, each problem naming the message's
    field (``turns[2].role``); ``None`` when there is one."""
    listed = _message_list(it, name, value)
    if listed is None:
        return None
    before = len(it.problems)
    messages: list[_Message] = []
    for index, raw in enumerate(listed):
        message = _message(it, f"{name}[{index}]", raw)
        if message is not None:
            messages.append(message)
    return messages if len(it.problems) == before else None


def _message_list(it: _Item, name: str, value: object) -> list[object] | None:
    if it.cell and isinstance(value, str):
        value = _cell_list(value)
        if value is None:
            it.problem(f"field {name!r} is not a readable list of messages")
            return None
    if not isinstance(value, list):
        it.problem(f"field {name!r} must be a list of messages")
        return None
    if not value:
        it.problem(f"field {name!r} has no messages")
        return None
    return value


def _message(it: _Item, at: str, raw: object) -> _Message | None:
    """The message ``at`` (``turns[2]``), or ``None`` when it has a problem."""
    if not isinstance(raw, dict):
        it.problem(f"field {at!r} must be a message object")
        return None
    message = _spelt_ours({str(k): v for k, v in raw.items()}, _MESSAGE_ALIASES[it.fmt])
    known = _MESSAGE[it.fmt]
    _refuse_unknown_parts(it, at, message, known)
    roles = _role(it, at, message)
    content = None if roles is None else _content(it, at, message, roles[1])
    if roles is None or content is None:
        return None
    contexts = _message_contexts(it, at, message, *roles)
    return _Message(at, roles[1], content, contexts, _extra(message, known))


def _refuse_unknown_parts(
    it: _Item, at: str, message: dict[str, Any], known: frozenset[str]
) -> None:
    for key in message:
        if key not in known:
            it.problem(f"unknown field '{at}.{key}' ({_hint(key, sorted(known))})")


def _role(it: _Item, at: str, message: dict[str, Any]) -> tuple[str, str] | None:
    """The message's role as the file spells it and as ours (``user``, ``assistant`` or
    ``tool``)."""
    role_field = "role" if it.fmt == "deepeval" or "type" not in message else "type"
    role = message.get(role_field)
    if role is None:
        it.problem(f"field '{at}.{_ROLE_FIELD[it.fmt]}' is required")
        return None
    ours = _ROLES.get(role) if isinstance(role, str) else None
    if ours is None:
        it.problem(f"field '{at}.{role_field}' must be {_ROLES_ALLOWED[it.fmt]}, found {role!r}")
        return None
    return role, ours


def _content(it: _Item, at: str, message: dict[str, Any], role: str) -> str | None:
    content = message.get("content")
    if not isinstance(content, str):
        found = "nothing" if content is None else type(content).__name__
        it.problem(f"field '{at}.content' must be text, found {found}")
        return None
    if role == "user" and not content.strip():
        it.problem(f"field '{at}.content' must not be empty")
        return None
    return content


def _message_contexts(
    it: _Item, at: str, message: dict[str, Any], spelt: str, role: str
) -> list[str] | None:
    """The retrieval context of an assistant's message (on another's, a problem)."""
    retrieval = message.get("retrieval_context")
    if retrieval is None:
        return None
    if role != "assistant":
        it.problem(
            f"field '{at}.retrieval_context' is on a {spelt} message: "
            "retrieval context belongs to the assistant's reply"
        )
        return None
    return _texts(it, f"{at}.retrieval_context", retrieval, cell=False)


def _extra(message: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The message's known fields that no field of ours holds, for the case's metadata."""
    return {
        key: value
        for key, value in message.items()
        if key in known and key not in _MESSAGE_OURS and value is not None
    }


@dataclass
class _Exchange:
    """The user's messages in a row, and the replies after them: one turn of ours."""

    questions: list[str] = field(default_factory=list)
    replies: list[_Message] = field(default_factory=list)


def _turns(it: _Item, messages: list[_Message]) -> list[dict[str, Any]]:
    """Our turns: each user's message (several in a row are one question) with the replies
    after it as its recorded answer, the assistant's retrieval context and the tools' output
    as its contexts; a user's message without a reply is a turn the RAG system is asked."""
    exchanges = _exchanges(it, messages)
    if not exchanges:
        it.problem("the conversation has no user message to ask")
    return [_turn(it, number, exchange) for number, exchange in enumerate(exchanges, start=1)]


def _exchanges(it: _Item, messages: list[_Message]) -> list[_Exchange]:
    exchanges: list[_Exchange] = []
    for message in messages:
        if message.role == "user":
            if not exchanges or exchanges[-1].replies:
                exchanges.append(_Exchange())
            exchanges[-1].questions.append(message.content)
        elif exchanges:
            exchanges[-1].replies.append(message)
        else:
            it.note(
                f"{message.at!r} ({message.role}) comes before the user's first "
                "message: left out, as a turn starts with the user's question"
            )
    return exchanges


def _turn(it: _Item, number: int, exchange: _Exchange) -> dict[str, Any]:
    turn: dict[str, Any] = {"question": "\n".join(exchange.questions)}
    if exchange.replies:
        turn["answer"] = _recorded_answer(it, number, exchange.replies)
        contexts = _reply_contexts(exchange.replies)
        if contexts is not None:
            turn["contexts"] = contexts
    return turn


def _recorded_answer(it: _Item, number: int, replies: list[_Message]) -> str:
    """The assistant's text in the replies; none is a problem."""
    answer = "\n".join(m.content for m in replies if m.role == "assistant" and m.content)
    if not answer.strip():
        fields = ", ".join(repr(m.at) for m in replies)
        it.problem(
            f"the reply to turn {number} ({fields}) has no assistant text to record as its answer"
        )
    return answer


def _reply_contexts(replies: list[_Message]) -> list[Any] | None:
    """The tools' output and the assistant's retrieval context, or ``None`` when the replies
    have neither (an empty retrieval context is an empty list)."""
    contexts = [context for message in replies for context in _contexts_of(message)]
    if contexts or any(message.contexts is not None for message in replies):
        return contexts
    return None


def _contexts_of(message: _Message) -> list[Any]:
    told = [message.content] if message.role == "tool" and message.content.strip() else []
    return told + [_retrieved(text) for text in message.contexts or []]


def _convert_conversation(it: _Item, item: dict[str, Any]) -> dict[str, Any] | None:
    table = _CONVERSATION[it.fmt]
    item = _spelt_ours(item, _CONVERSATION_ALIASES[it.fmt])
    before = len(it.problems)
    _refuse_unknown(it, item, table, f"a {NAMES[it.fmt]} conversation")
    messages = _conversation_messages(it, item, _theirs(table, "turns")[0])
    if messages is None:
        return None
    turns = _turns(it, messages)
    if len(it.problems) != before:
        return None
    metadata = _conversation_metadata(item, table, messages)
    return {"turns": turns, "metadata": metadata} if metadata else {"turns": turns}


def _conversation_messages(it: _Item, item: dict[str, Any], name: str) -> list[_Message] | None:
    if item.get(name) is None:
        why = " (a golden with only a scenario is for DeepEval's simulator)"
        it.problem(f"field {name!r} is required{why if it.fmt == 'deepeval' else ''}")
        return None
    return _messages(it, name, item[name])


def _conversation_metadata(
    item: dict[str, Any], table: dict[str, str], messages: list[_Message]
) -> dict[str, Any]:
    """The conversation's fields that none of ours holds, and its messages' own."""
    metadata = {
        key: value
        for key, value in item.items()
        if table.get(key) == "metadata" and value is not None
    }
    return metadata | {message.at: message.extra for message in messages if message.extra}


# --------------------------------------------------------------------------- the file


def _nulls_for_non_finite(case: dict[str, Any]) -> list[tuple[str, str]]:
    """Make every NaN or infinite number of ``case`` null (Python reads ``NaN`` and
    ``Infinity`` in JSON; strict JSON, and so the converted dataset, has neither) and say
    where each was, as the source file names the field, with the number as it was written.
    A loop, not a recursion: the metadata may be nested as deep as the parser allowed."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [("", case)]
    while stack:
        path, node = stack.pop()
        for key, where in _keys(path, node):
            value = node[key]
            if isinstance(value, float) and not math.isfinite(value):
                node[key] = None
                found.append((where.removeprefix(".").removeprefix("metadata."), json.dumps(value)))
            elif isinstance(value, (dict, list)):
                stack.append((where, value))
    return sorted(found)


def _keys(path: str, node: dict[str, Any] | list[Any]) -> list[tuple[Any, str]]:
    """Each key (or index) of ``node``, with where its value is."""
    if isinstance(node, list):
        return [(index, f"{path}[{index}]") for index in range(len(node))]
    return [(key, f"{path}.{key}") for key in node]


def _case_of(it: _Item, raw: object) -> dict[str, Any] | None:
    """The item's case, its non-finite numbers made null, each with a note."""
    case = _convert_item(it, raw)
    if case is not None:
        it.notes.extend(
            f"{it.where}: field {path!r} is {number}, which JSON cannot hold: written as null"
            for path, number in _nulls_for_non_finite(case)
        )
    return case


def convert_rows(
    fmt: Format, items: list[tuple[str, object]], *, cells: bool = False
) -> Conversion:
    """Our cases for the items of a ``fmt`` file. ``cells``: the items are rows of a CSV
    file, whose lists are texts. Raises :class:`ConversionError` listing every problem."""
    if not items:
        raise ConversionError(["the file has no items"])
    problems: list[str] = []
    notes: list[str] = []
    cases = []
    for where, raw in items:
        case = _case_of(_Item(fmt, where, problems, notes, cells), raw)
        if case is not None:
            cases.append(case)
    if problems:
        raise ConversionError(problems)
    return Conversion(cases=cases, notes=notes + _outcome_notes(fmt, cases))


def _outcome_notes(fmt: Format, cases: list[dict[str, Any]]) -> list[str]:
    outcome = _OUTCOME[fmt]
    if any("turns" in case and outcome in case.get("metadata", {}) for case in cases):
        return [
            f"{outcome!r} describes a whole conversation, not one turn's answer: it is kept in "
            "the case's metadata, and the turns have no ground_truth"
        ]
    return []
