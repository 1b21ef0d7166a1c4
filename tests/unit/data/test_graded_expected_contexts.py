"""Graded ``expected_contexts`` in dataset files: the forms, and the errors for bad grades."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from rag_eval_pytest.data.dataset import load_dataset
from rag_eval_pytest.errors import DatasetError

NOW = dt.datetime(2026, 11, 22, tzinfo=dt.timezone.utc)


def load(tmp_path: Path, *expected: object, suffix: str = ".json") -> Path:
    cases = [
        {"id": f"tc_{i}", "question": "q?", "ground_truth": "g", "expected_contexts": e}
        for i, e in enumerate(expected, start=1)
    ]
    path = tmp_path / f"d{suffix}"
    path.write_text(json.dumps({"test_cases": cases}), encoding="utf-8")
    return path


def test_plain_list_keeps_binary_relevance(tmp_path: Path) -> None:
    (case,) = load_dataset(load(tmp_path, ["a.md", "b.md"]), now=NOW).cases
    assert case.expected_contexts == ["a.md", "b.md"]
    assert case.expected_grades is None


def test_mapping_and_entries_give_grades(tmp_path: Path) -> None:
    mapping, entries = load_dataset(
        load(tmp_path, {"a.md": 3, "b.md": 0, "c.md": 1}, ["a.md", {"id": "c.md", "grade": 2}]),
        now=NOW,
    ).cases
    # Grade 0 is "judged not relevant": kept as a grade, not expected by precision or recall.
    assert mapping.expected_contexts == ["a.md", "c.md"]
    assert mapping.expected_grades == {"a.md": 3, "b.md": 0, "c.md": 1}
    assert entries.expected_contexts == ["a.md", "c.md"]
    assert entries.expected_grades == {"a.md": 1, "c.md": 2}


def test_yaml_mapping_form(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "test_cases:\n"
        "  - id: tc_1\n    question: q?\n    ground_truth: g\n"
        "    expected_contexts:\n      refunds.md: 2\n      faq.md: 1\n",
        encoding="utf-8",
    )
    (case,) = load_dataset(path, now=NOW).cases
    assert case.expected_grades == {"refunds.md": 2, "faq.md": 1}


def test_bad_grades_name_file_case_and_field(tmp_path: Path) -> None:
    path = load(
        tmp_path,
        {"a.md": "high"},
        ["a.md", {"id": "b.md", "grade": -1}],
        [{"id": "a.md", "grade": 1.5}],
        [{"source": "a.md"}],
        ["a.md", 3],
        ["a.md", {"id": "a.md", "grade": 2}],
        {"a.md": True},
    )
    with pytest.raises(DatasetError) as info:
        load_dataset(path, now=NOW)
    lines = str(info.value).splitlines()
    assert lines[0] == f"Invalid dataset {path} (7 problems):"
    prefix = "field 'expected_contexts'"
    assert lines[1:] == [
        f"  case 'tc_1' (test_cases[0]): {prefix}: the grade of 'a.md' must be a whole number "
        "of 0 or more, got 'high'",
        f"  case 'tc_2' (test_cases[1]): {prefix}: the grade of 'b.md' must be a whole number "
        "of 0 or more, got -1",
        f"  case 'tc_3' (test_cases[2]): {prefix}: the grade of 'a.md' must be a whole number "
        "of 0 or more, got 1.5",
        f"  case 'tc_4' (test_cases[3]): {prefix}: entry 0 has unknown key 'source' (an entry "
        "is {'id': name, 'grade': n})",
        f"  case 'tc_5' (test_cases[4]): {prefix}: entry 1 must be a document name or "
        "{'id': name, 'grade': n}, found int",
        f"  case 'tc_6' (test_cases[5]): {prefix}: 'a.md' is given two grades (1 and 2)",
        f"  case 'tc_7' (test_cases[6]): {prefix}: the grade of 'a.md' must be a whole number "
        "of 0 or more, got True",
    ]
