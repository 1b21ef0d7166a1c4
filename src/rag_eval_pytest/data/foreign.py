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
from typing import TYPE_CHECKING, Any, Literal

from . import bigints
from .duplicate_keys import DuplicateKeyError

if TYPE_CHECKING:
    from collections.abc import Iterable

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


def _csv_rows(text: str) -> list[tuple[str, object]]:
    """The rows of a CSV file as items. A quote left open, text after a closing quote, or a
    row with more cells than the header has columns is refused with the line where its row
    starts: read leniently, the rest of the file would become one cell, or cells would be
    dropped, without a word."""
    reader = csv.reader(io.StringIO(text), strict=True)
    items: list[tuple[str, object]] = []
    header: list[str] | None = None
    while True:
        line = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            why = "a quote opened in this row is never closed" if "end of data" in str(exc) else exc
            raise ConversionError([f"line {line}: malformed CSV ({why})"]) from None
        if not cells:  # a blank line
            continue
        if header is None:
            header = cells
            continue
        if len(cells) > len(header):
            raise ConversionError(
                [f"line {line}: malformed CSV ({len(cells)} cells, the header has {len(header)})"]
            )
        # A short row leaves its last columns out. Row 1 is the header: the first item is
        # row 2, as a spreadsheet shows it.
        row = {name: value for name, value in zip(header, cells, strict=False) if value != ""}
        items.append((f"row {len(items) + 2}", row))
    return items


def read_items(name: str, text: str) -> list[tuple[str, object]]:
    """The items of a JSON (a list, or an object holding one), JSONL or CSV file, each with
    where it is (``item 3``, ``line 4``, ``row 2``). Raises :class:`ConversionError`."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix == "jsonl":
        items: list[tuple[str, object]] = []
        for lineno, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                items.append((f"line {lineno}", _parse_json(line, f"line {lineno}: ")))
        return items
    if suffix == "csv":
        return _csv_rows(text)
    if suffix != "json":
        raise ConversionError(
            [
                f"unknown file type {('.' + suffix) if suffix else '(none)'!r} "
                "(use .json, .jsonl or .csv)"
            ]
        )
    document = _parse_json(text, "")
    if isinstance(document, dict):
        lists = [key for key in ("goldens", "test_cases", "samples") if key in document]
        if not lists or not isinstance(document[lists[0]], list):
            raise ConversionError(
                [
                    "expected a list of items (or an object with 'goldens', 'test_cases' or "
                    "'samples'), found an object without one"
                ]
            )
        document = document[lists[0]]
    if not isinstance(document, list):
        raise ConversionError([f"expected a list of items, found {type(document).__name__}"])
    return [(f"item {index}", raw) for index, raw in enumerate(document)]


# --------------------------------------------------------------------------- converting


def _text(where: str, name: str, value: object, problems: list[str]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        problems.append(f"{where}: field {name!r} must be text, found {type(value).__name__}")
        return None
    return value


def _texts(
    where: str, name: str, value: object, problems: list[str], *, cell: bool = False
) -> list[str] | None:
    if value is None:
        return None
    if cell and isinstance(value, str):  # a Python list as RAGAS writes it, or "a|b"
        stripped = value.strip()
        if stripped.startswith("["):
            try:
                value = ast.literal_eval(stripped)
            except (ValueError, SyntaxError):
                problems.append(f"{where}: field {name!r} is not a readable list")
                return None
        else:
            value = [part for part in stripped.split("|") if part.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{where}: field {name!r} must be a list of texts")
        return None
    return list(value)


def _convert_item(
    fmt: Format, where: str, raw: object, problems: list[str], notes: list[str], *, cell: bool
) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        problems.append(f"{where}: expected an object, found {type(raw).__name__}")
        return None
    item: dict[str, Any] = {str(k): v for k, v in raw.items()}
    if _is_conversation(fmt, item, cell=cell):
        return _convert_conversation(fmt, where, item, problems, notes, cell=cell)
    if fmt == "deepeval":
        item = {_DEEPEVAL_ALIASES.get(k, k): v for k, v in item.items()}
    table = FIELDS[fmt]
    unknown = [k for k in item if k not in table]
    for key in unknown:
        close = difflib.get_close_matches(key, table, 1, 0.8)
        hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(table)}"
        problems.append(f"{where}: unknown field {key!r} for {NAMES[fmt]} ({hint})")
    ours: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    sources: list[str] | None = None
    for key, value in item.items():
        target = table.get(key)
        if target is None or value is None:
            continue
        if target == "metadata":
            metadata[key] = value
        elif target in ("contexts", "expected_contexts"):
            ours[target] = _texts(where, key, value, problems, cell=cell)
        elif target == "sources":
            sources = _texts(where, key, value, problems, cell=cell)
        elif key == "ground_truths":
            truths = _texts(where, key, value, problems, cell=cell)
            ours[target] = "\n".join(truths) if truths else None
        else:
            ours[target] = _text(where, key, value, problems)
    if not (ours.get("ground_truth") or "").strip():  # an empty reference is no reference
        ours.pop("ground_truth", None)
    question_field = next(k for k, v in table.items() if v == "question")
    if not (ours.get("question") or "").strip():
        named = [k for k, v in table.items() if v == "question" and item.get(k) is not None]
        if not named:
            problems.append(f"{where}: field {question_field!r} is required")
        elif isinstance(item[named[0]], str):
            problems.append(f"{where}: field {named[0]!r} must not be empty")
        return None
    contexts = ours.pop("contexts", None)
    if sources is not None and contexts is not None:
        if len(sources) == len(contexts):
            contexts = [{"text": t, "source": s} for t, s in zip(contexts, sources, strict=True)]
        else:
            problems.append(
                f"{where}: field 'retrieved_context_ids' has {len(sources)} ids for "
                f"{len(contexts)} retrieved_contexts"
            )
    if ours.get("answer") is not None:
        if contexts is not None:
            ours["contexts"] = contexts
    elif contexts is not None:
        contexts_field = next(k for k, v in table.items() if v == "contexts" and k in item)
        metadata[contexts_field] = item[contexts_field]
        notes.append(
            f"{where}: {contexts_field!r} without an answer is kept in the case's "
            "metadata only: the RAG system is called for this case"
        )
    case = {k: v for k, v in ours.items() if v is not None}
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


def _messages(
    fmt: Format, where: str, name: str, value: object, problems: list[str], *, cell: bool
) -> list[_Message] | None:
    """The messages of a conversation's ``name`` field, each problem naming the message's
    field (``turns[2].role``)."""
    if cell and isinstance(value, str):
        value = _cell_list(value)
        if value is None:
            problems.append(f"{where}: field {name!r} is not a readable list of messages")
            return None
    if not isinstance(value, list):
        problems.append(f"{where}: field {name!r} must be a list of messages")
        return None
    if not value:
        problems.append(f"{where}: field {name!r} has no messages")
        return None
    known = _DEEPEVAL_MESSAGE if fmt == "deepeval" else _RAGAS_MESSAGE
    messages: list[_Message] = []
    before = len(problems)
    for index, raw in enumerate(value):
        at = f"{name}[{index}]"
        if not isinstance(raw, dict):
            problems.append(f"{where}: field {at!r} must be a message object")
            continue
        message = {str(k): v for k, v in raw.items()}
        if fmt == "deepeval":
            message = {_DEEPEVAL_MESSAGE_ALIASES.get(k, k): v for k, v in message.items()}
        for key in message:
            if key not in known:
                close = difflib.get_close_matches(key, known, 1, 0.8)
                hint = (
                    f"did you mean {close[0]!r}?" if close else f"known: {', '.join(sorted(known))}"
                )
                problems.append(f"{where}: unknown field '{at}.{key}' ({hint})")
        role_field = "role" if fmt == "deepeval" or "type" not in message else "type"
        role = message.get(role_field)
        if role is None:
            spelt = "role" if fmt == "deepeval" else "type"
            problems.append(f"{where}: field '{at}.{spelt}' is required")
            continue
        ours = _ROLES.get(role) if isinstance(role, str) else None
        if ours is None:
            allowed = "user or assistant" if fmt == "deepeval" else "human, ai or tool"
            problems.append(f"{where}: field '{at}.{role_field}' must be {allowed}, found {role!r}")
            continue
        content = message.get("content")
        if not isinstance(content, str):
            found = "nothing" if content is None else type(content).__name__
            problems.append(f"{where}: field '{at}.content' must be text, found {found}")
            continue
        if ours == "user" and not content.strip():
            problems.append(f"{where}: field '{at}.content' must not be empty")
            continue
        contexts: list[str] | None = None
        retrieval = message.get("retrieval_context")
        if retrieval is not None:
            if ours != "assistant":
                problems.append(
                    f"{where}: field '{at}.retrieval_context' is on a {role} message: "
                    "retrieval context belongs to the assistant's reply"
                )
                continue
            contexts = _texts(where, f"{at}.retrieval_context", retrieval, problems)
        extra = {
            k: v
            for k, v in message.items()
            if k in known
            and k not in ("role", "type", "content", "retrieval_context")
            and v is not None
        }
        messages.append(_Message(at, ours, content, contexts, extra))
    return messages if len(problems) == before else None


def _turns(
    where: str, messages: list[_Message], problems: list[str], notes: list[str]
) -> list[dict[str, Any]]:
    """Our turns: each user's message (several in a row are one question) with the replies
    after it as its recorded answer, the assistant's retrieval context and the tools' output
    as its contexts; a user's message without a reply is a turn the RAG system is asked."""
    turns: list[dict[str, Any]] = []
    questions: list[str] = []
    replies: list[_Message] = []

    def close() -> None:
        turn: dict[str, Any] = {"question": "\n".join(questions)}
        if replies:
            answer = "\n".join(m.content for m in replies if m.role == "assistant" and m.content)
            if not answer.strip():
                fields = ", ".join(repr(m.at) for m in replies)
                problems.append(
                    f"{where}: the reply to turn {len(turns) + 1} ({fields}) has no assistant "
                    "text to record as its answer"
                )
            turn["answer"] = answer
            contexts: list[Any] = []
            for m in replies:
                if m.role == "tool" and m.content.strip():
                    contexts.append(m.content)
                contexts += [_retrieved(text) for text in m.contexts or []]
            if contexts or any(m.contexts is not None for m in replies):
                turn["contexts"] = contexts
        turns.append(turn)

    for message in messages:
        if message.role == "user":
            if replies:
                close()
                questions, replies = [], []
            questions.append(message.content)
        elif questions:
            replies.append(message)
        else:
            notes.append(
                f"{where}: {message.at!r} ({message.role}) comes before the user's first "
                "message: left out, as a turn starts with the user's question"
            )
    if questions:
        close()
    elif not turns:
        problems.append(f"{where}: the conversation has no user message to ask")
    return turns


def _convert_conversation(
    fmt: Format,
    where: str,
    item: dict[str, Any],
    problems: list[str],
    notes: list[str],
    *,
    cell: bool,
) -> dict[str, Any] | None:
    if fmt == "deepeval":
        item = {_DEEPEVAL_CONVERSATION_ALIASES.get(k, k): v for k, v in item.items()}
        table = _DEEPEVAL_CONVERSATION
    else:
        table = _RAGAS_CONVERSATION
    turns_field = next(k for k, v in table.items() if v == "turns")
    before = len(problems)
    for key in item:
        if key not in table:
            close = difflib.get_close_matches(key, table, 1, 0.8)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(table)}"
            problems.append(
                f"{where}: unknown field {key!r} for a {NAMES[fmt]} conversation ({hint})"
            )
    if item.get(turns_field) is None:
        why = (
            " (a golden with only a scenario is for DeepEval's simulator)"
            if (fmt == "deepeval")
            else ""
        )
        problems.append(f"{where}: field {turns_field!r} is required{why}")
        return None
    messages = _messages(fmt, where, turns_field, item[turns_field], problems, cell=cell)
    if messages is None:
        return None
    turns = _turns(where, messages, problems, notes)
    if len(problems) != before:
        return None
    metadata: dict[str, Any] = {
        key: value
        for key, value in item.items()
        if table.get(key) == "metadata" and value is not None
    }
    metadata |= {m.at: m.extra for m in messages if m.extra}
    case: dict[str, Any] = {"turns": turns}
    if metadata:
        case["metadata"] = metadata
    return case


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
        keys = range(len(node)) if isinstance(node, list) else list(node)
        for key in keys:
            value = node[key]
            where = f"{path}[{key}]" if isinstance(node, list) else f"{path}.{key}"
            if isinstance(value, float) and not math.isfinite(value):
                node[key] = None
                found.append((where.removeprefix(".").removeprefix("metadata."), json.dumps(value)))
            elif isinstance(value, (dict, list)):
                stack.append((where, value))
    return sorted(found)


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
        case = _convert_item(fmt, where, raw, problems, notes, cell=cells)
        if case is not None:
            notes.extend(
                f"{where}: field {path!r} is {number}, which JSON cannot hold: written as null"
                for path, number in _nulls_for_non_finite(case)
            )
            cases.append(case)
    if problems:
        raise ConversionError(problems)
    outcome = _OUTCOME[fmt]
    if any("turns" in case and outcome in case.get("metadata", {}) for case in cases):
        notes.append(
            f"{outcome!r} describes a whole conversation, not one turn's answer: it is kept in "
            "the case's metadata, and the turns have no ground_truth"
        )
    return Conversion(cases=cases, notes=notes)
