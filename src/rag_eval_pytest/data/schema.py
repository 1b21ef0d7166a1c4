"""The JSON schema of a dataset file, generated from the case model, for editors and for
checks outside the plugin (``docs/dataset.schema.json``).

A JSON or YAML dataset is ``{"metadata": {...}, "test_cases": [...]}`` or a bare list of cases
(a JSONL file is one case per line: each line is a ``test_cases`` item). The schema states
what the models accept, written as a reader writes it: a context as a string or ``{text,
source}``, ``expected_contexts`` as names or graded (``{"doc": 2}``, ``[{"id", "grade"}]``), a
case with either ``question`` or ``turns`` (a conversation), never both. The plugin's own
checks go further (a blank question, two grades for one document, a turn without a
question): a file the schema accepts can still be refused, with one message naming the case
and the field.
"""

from __future__ import annotations

from typing import Any

from .dataset import TURN_FIELDS, Case, DatasetMetadata, Turn

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_TEXT = {"type": "string", "minLength": 1}
_CONTEXT = {
    "anyOf": [
        {"type": "string"},
        {
            "type": "object",
            "properties": {"text": {"type": "string"}, "source": {"type": ["string", "null"]}},
            "required": ["text"],
            "additionalProperties": False,
        },
    ]
}
_GRADE = {"type": "integer", "minimum": 0}
_EXPECTED = {
    "description": "The documents a good retrieval returns: names, or graded (0 = not "
    "relevant) as {name: grade} or [{id, grade}].",
    "anyOf": [
        {"type": "null"},
        {
            "type": "array",
            "items": {
                "anyOf": [
                    {"type": "string"},
                    {
                        "type": "object",
                        "properties": {"id": {"type": "string"}, "grade": _GRADE},
                        "required": ["id"],
                        "additionalProperties": False,
                    },
                ]
            },
        },
        {"type": "object", "additionalProperties": _GRADE},
    ],
}


def _question_fields(properties: dict[str, Any]) -> None:
    """The fields of one question as a dataset writes them (the models' own schemas show
    them after coercion: contexts as objects, expected contexts as names)."""
    properties["question"] = {**_TEXT, "description": "What the user asks."}
    properties["contexts"] = {
        "anyOf": [{"type": "null"}, {"type": "array", "items": _CONTEXT}],
        "description": "Recorded retrieved passages (with a recorded answer the RAG system is "
        "not called).",
    }
    properties["expected_contexts"] = _EXPECTED


def _model(model: type[Any]) -> dict[str, Any]:
    schema: dict[str, Any] = model.model_json_schema(mode="validation")
    schema.pop("$defs", None)
    schema.pop("title", None)
    return schema


def dataset_schema() -> dict[str, Any]:
    """The schema of a JSON or YAML dataset this version reads."""
    cases = {"type": "array", "items": _case_schema(), "minItems": 1}
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "A rag-eval-pytest dataset (JSON or YAML; a JSONL line is one case)",
        "anyOf": [
            {
                "type": "object",
                "properties": {"metadata": _metadata_schema(), "test_cases": cases},
                "required": ["test_cases"],
                "additionalProperties": False,
            },
            cases,
        ],
    }


def _case_schema() -> dict[str, Any]:
    """A case: one question, or a conversation whose case holds none of a question's
    fields."""
    case = _model(Case)
    _question_fields(case["properties"])
    case["properties"]["turns"] = {
        "type": "array",
        "items": _turn_schema(),
        "minItems": 1,
        "description": "A conversation's turns, in order, instead of 'question'.",
    }
    case["properties"]["critical"] = {"type": "boolean", "default": False}
    case["properties"]["labels"] = {
        "anyOf": [
            {"type": "null"},
            {"type": "object", "additionalProperties": {"enum": ["pass", "fail"]}},
        ],
        "description": "A person's verdict per metric, for rag-eval calibrate.",
    }
    case.pop("required", None)
    absent: dict[str, Any] = {name: {"not": {}} for name in sorted(TURN_FIELDS)}
    case["oneOf"] = [
        {"required": ["question"], "properties": {"turns": {"not": {}}}},
        {"required": ["turns"], "properties": absent},
    ]
    case["additionalProperties"] = False
    return case


def _turn_schema() -> dict[str, Any]:
    turn = _model(Turn)
    _question_fields(turn["properties"])
    turn["additionalProperties"] = False
    return turn


def _metadata_schema() -> dict[str, Any]:
    metadata = _model(DatasetMetadata)
    metadata["additionalProperties"] = True
    metadata["properties"]["version"] = {"type": ["string", "number", "null"]}
    return metadata
