"""Bad datasets beyond the basics: encodings, YAML, size, huge strings, and generated
shapes. Each gives one DatasetError naming the file (and case and field where there is one),
or loads; nothing else ever escapes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_eval_pytest.dataset import load_dataset
from rag_eval_pytest.errors import DatasetError


def test_non_utf8_dataset_is_one_error_naming_the_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "latin.json").write_bytes(
        '{"test_cases": [{"question": "caf\xe9"}]}'.encode("latin-1")
    )
    result = pytester.runpytest("--rag-dataset=latin.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*latin.json*UTF-8*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_invalid_yaml_dataset_names_the_line(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases.yaml").write_text("test_cases:\n  - id: a\n    question: [unclosed\n")
    result = pytester.runpytest("--rag-dataset=cases.yaml")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*cases.yaml*invalid YAML*line*"])


def test_100000_cases_validate_in_seconds(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"c{i}", "question": f"q{i}?", "ground_truth": "g"})
            for i in range(100_000)
        )
    )
    started = time.perf_counter()
    dataset = load_dataset(path)
    assert len(dataset.cases) == 100_000
    assert time.perf_counter() - started < 20


def test_a_huge_answer_loads_and_a_bad_case_deep_in_a_big_file_is_named(tmp_path: Path) -> None:
    huge = {
        "id": "huge",
        "question": "q",
        "ground_truth": "g",
        "answer": "word " * 2_000_000,
        "contexts": ["c"],
    }
    rows = [{"id": f"c{i}", "question": "q", "ground_truth": "g"} for i in range(5000)]
    rows[4321] = {"id": "c4321", "question": 42, "ground_truth": "g"}
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"test_cases": [huge, *rows]}))
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    message = str(info.value)
    assert "data.json" in message
    assert "case 'c4321'" in message
    assert "field 'question'" in message
    assert len(message) < 2000  # one readable message, not the file echoed back


_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
)
_case = st.dictionaries(
    st.sampled_from(
        [
            "id",
            "question",
            "ground_truth",
            "answer",
            "contexts",
            "critical",
            "tags",
            "expected_contexts",
            "metadata",
            "unknown_field",
        ]
    ),
    _value,
    max_size=8,
)
_document = st.one_of(
    st.fixed_dictionaries({"test_cases": st.lists(_case, max_size=6)}),
    st.fixed_dictionaries(
        {
            "metadata": st.dictionaries(st.text(max_size=8), _value, max_size=3),
            "test_cases": st.lists(_case, max_size=4),
        }
    ),
    _value,
    st.lists(_case, max_size=3),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=_document)
def test_any_generated_dataset_loads_or_gives_a_dataset_error(
    tmp_path: Path, document: Any
) -> None:
    path = tmp_path / "generated.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    error: DatasetError | None = None
    try:
        dataset = load_dataset(path)
    except DatasetError as exc:
        error = exc
    if error is not None:
        assert "generated.json" in str(error)
        return
    for case in dataset.cases:
        assert isinstance(case.question, str)
        assert case.question
        assert isinstance(case.ground_truth, str)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=_document)
def test_any_generated_dataset_is_a_clean_run_or_one_fatal_message(
    pytester: pytest.Pytester, document: Any
) -> None:
    (pytester.path / "generated.json").write_text(json.dumps(document), encoding="utf-8")
    result = pytester.runpytest("--rag-dataset=generated.json", "--rag-dry-run")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret in (0, 3), output
    assert "Traceback" not in output
    assert "INTERNALERROR" not in output
    if result.ret == 3:
        assert "generated.json" in result.stderr.str()
