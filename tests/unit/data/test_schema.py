"""The published dataset schema (docs/dataset.schema.json) is the one generated from the case
model, and it says what the plugin reads: every shipped example validates and loads; the
mistakes it can express (both 'question' and 'turns', no turn, an unknown field, a context of
the wrong type) are refused by both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.data.dataset import load_dataset
from rag_eval_pytest.data.schema import dataset_schema
from rag_eval_pytest.errors import DatasetError
from rag_eval_pytest.reporting.schema import schema_text
from tests.json_schema import validate

ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = ROOT / "docs" / "dataset.schema.json"
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def test_the_published_schema_is_the_one_generated_from_the_case_model() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == schema_text("dataset"), (
        "docs/dataset.schema.json is out of date: regenerate it with "
        "python -m rag_eval_pytest.reporting.schema dataset > docs/dataset.schema.json"
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_shipped_example_dataset_validates_and_loads(path: Path) -> None:
    assert validate(json.loads(path.read_text(encoding="utf-8")), dataset_schema()) == []
    assert load_dataset(path).cases


VALID: dict[str, Any] = {
    "one question, every field": {
        "id": "refund",
        "question": "What is the refund window?",
        "ground_truth": "30 days.",
        "expected_contexts": ["refunds.md"],
        "answer": "30 days.",
        "contexts": ["Refunds within 30 days.", {"text": "More.", "source": "refunds.md"}],
        "critical": True,
        "tags": ["billing"],
        "metadata": {"owner": "support"},
        "labels": {"faithfulness": "pass"},
    },
    "graded expected contexts": {"question": "Q?", "expected_contexts": {"a.md": 2, "b.md": 0}},
    "graded entries": {"question": "Q?", "expected_contexts": [{"id": "a.md", "grade": 2}]},
    "a conversation": {
        "id": "chat",
        "turns": [
            {"question": "Do you ship abroad?", "answer": "Yes.", "contexts": ["We do."]},
            {"question": "And to Canada?"},
        ],
    },
}
INVALID: dict[str, Any] = {
    "both question and turns": {"question": "Q?", "turns": [{"question": "Q?"}]},
    "no question and no turns": {"id": "x"},
    "no turn": {"turns": []},
    "an unknown field": {"question": "Q?", "expected_answer": "A."},
    "a context that is a number": {"question": "Q?", "contexts": [3]},
    "an unknown field in a turn": {"turns": [{"question": "Q?", "reply": "A."}]},
    "a turn's field on the conversation": {"turns": [{"question": "Q?"}], "answer": "A."},
    "critical as text": {"question": "Q?", "critical": "yes"},
}


def load(tmp_path: Path, case: dict[str, Any]) -> None:
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps({"test_cases": [case]}), encoding="utf-8")
    load_dataset(path)


@pytest.mark.parametrize("case", VALID.values(), ids=list(VALID))
def test_what_the_schema_accepts_the_plugin_reads(case: dict[str, Any], tmp_path: Path) -> None:
    assert validate({"test_cases": [case]}, dataset_schema()) == []
    assert validate([case], dataset_schema()) == []  # a bare list of cases
    load(tmp_path, case)


@pytest.mark.parametrize("case", INVALID.values(), ids=list(INVALID))
def test_what_the_schema_refuses_the_plugin_refuses(case: dict[str, Any], tmp_path: Path) -> None:
    assert validate({"test_cases": [case]}, dataset_schema()) != []
    with pytest.raises(DatasetError):
        load(tmp_path, case)


def test_a_file_without_cases_is_refused() -> None:
    assert validate({"test_cases": []}, dataset_schema()) != []
    assert validate({"metadata": {"name": "n"}}, dataset_schema()) != []
    assert validate({"test_cases": [{"question": "Q?"}], "cases": []}, dataset_schema()) != []
