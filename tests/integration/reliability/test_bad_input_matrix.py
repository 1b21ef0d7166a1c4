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

from rag_eval_pytest.data.dataset import load_dataset
from rag_eval_pytest.errors import DatasetError


def test_non_utf8_dataset_is_one_error_naming_the_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "latin.json").write_bytes(
        '{"test_cases": [{"question": "caf\xe9"}]}'.encode("latin-1")
    )
    result = pytester.runpytest("--rag-dataset=latin.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*latin.json*UTF-8*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_an_endless_dataset_is_refused_at_the_size_limit(pytester: pytest.Pytester) -> None:
    (pytester.path / "zeros.json").symlink_to("/dev/zero")
    result = pytester.runpytest("--rag-dataset=zeros.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(
        [
            "*rag-eval: Dataset *zeros.json: larger than 256 MiB, the most an input file may "
            "hold; split it into several files, each given to --rag-dataset*"
        ]
    )
    assert "MemoryError" not in result.stdout.str() + result.stderr.str()


def test_invalid_yaml_dataset_names_the_line(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases.yaml").write_text("test_cases:\n  - id: a\n    question: [unclosed\n")
    result = pytester.runpytest("--rag-dataset=cases.yaml")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*cases.yaml*invalid YAML*line*"])


def test_a_large_dataset_loads_every_case(tmp_path: Path) -> None:
    # How long 1,000 to 50,000 cases take is measured by benchmarks/scale.py, not here.
    path = tmp_path / "big.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"c{i}", "question": f"q{i}?", "ground_truth": "g"})
            for i in range(10_000)
        )
    )
    dataset = load_dataset(path)
    assert len(dataset.cases) == 10_000
    assert dataset.cases[-1].id == "c9999"


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
        assert case.ground_truth is None or isinstance(case.ground_truth, str)  # optional


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


ALIAS_BOMB = "metadata:\n" + "".join(
    f"  {name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip([None, *"abcdefgh"], "abcdefghi", strict=True)
)  # 9 lines of YAML, 9**9 = 387 million items once expanded

DATASET_ROWS = [
    # (file name, content, what the one message says)
    (
        "cases.jsonl",
        '{"question": "q", "ground_truth": "g"}\n{"question": oops}\n',
        "cases.jsonl: line 2 is not valid JSON (column 14",
    ),
    ("d.json", "42", "d.json: expected an object with 'test_cases' (or a list of cases)"),
    ("d.json", '{"test_cases": {"question": "q"}}', "d.json: field 'test_cases' must be a list"),
    ("d.json", '{"test_cases": []}', "d.json: field 'test_cases' has no cases"),
    ("d.json", "[]", "d.json: the list of cases is empty"),
    ("d.yaml", "[]\n", "d.yaml: the list of cases is empty"),
    ("d.json", '{"cases": []}', "d.json: unknown top-level key 'cases'"),
    ("d.json", '{"test_cases": ["what?"]}', "case at test_cases[0]: expected an object, found str"),
    (
        "d.json",
        '{"test_cases": [{"id": "c1", "question": "q", "ground_truth": "g", "answer": "a", '
        '"contexts": [{"source": "x.md"}]}]}',
        "case 'c1' (test_cases[0]): field 'contexts[0].text' is required",
    ),
    (
        "d.json",
        '{"test_cases": [{"id": "c1", "question": "q", "ground_truth": "g", "tags": "x"}]}',
        "case 'c1' (test_cases[0]): field 'tags': Input should be a valid list (got 'x')",
    ),
    (
        "d.json",
        '{"test_cases": [{"id": "c1", "question": " ", "ground_truth": "g"}]}',
        "case 'c1' (test_cases[0]): field 'question': must not be empty",
    ),
    (
        "d.json",
        '{"test_cases": [{"question": "q", "ground_truth": "g", "answer": NaN}]}',
        "case at test_cases[0]: field 'answer': Input should be a valid string",
    ),
    (
        "d.yaml",
        "test_cases:\n  - id: a\n    question: q\n    ground_truth: g\n    critical: no!\n",
        "case 'a' (test_cases[0]): field 'critical': Input should be a valid boolean",
    ),
    ("d.csv", "question,ground_truth\nq,g\n", "d.csv: unknown file type '.csv'"),
    ("d.json", "[" * 100_000 + "]" * 100_000, "d.json: nested too deeply to be a dataset"),
    ("d.yaml", "[" * 100_000 + "]" * 100_000, "d.yaml: nested too deeply to be a dataset"),
    (
        "d.yaml",
        ALIAS_BOMB + "test_cases:\n  - question: *i\n    ground_truth: g\n",
        "field 'question': Input should be a valid string (got [[[[",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    DATASET_ROWS,
    ids=[
        "jsonl-bad-line",
        "top-level-number",
        "test-cases-not-a-list",
        "no-cases",
        "empty-json-list",
        "empty-yaml-list",
        "unknown-top-level-key",
        "case-not-an-object",
        "context-without-text",
        "tags-not-a-list",
        "blank-question",
        "nan-answer",
        "yaml-wrong-type",
        "unknown-extension",
        "json-nested-too-deep",
        "yaml-nested-too-deep",
        "yaml-alias-bomb",
    ],
)
def test_bad_dataset_row_is_one_message_exit_3_before_any_test(
    pytester: pytest.Pytester, name: str, content: str, message: str
) -> None:
    (pytester.path / name).write_text(content, encoding="utf-8")
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    started = time.perf_counter()
    result = pytester.runpytest(f"--rag-dataset={name}")
    elapsed = time.perf_counter() - started
    stderr = result.stderr.str()
    assert result.ret == 3, stderr
    assert message in stderr, stderr
    assert "Traceback" not in stderr + result.stdout.str()
    assert "INTERNALERROR" not in stderr + result.stdout.str()
    assert len(stderr) < 3000  # one readable message, not the input echoed back
    result.stdout.no_fnmatch_line("*collected*")
    assert elapsed < 10, f"{elapsed:.1f} s to reject {name}"  # the alias bomb took 30 s, 3 GB


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rag-concurrency", "0"], "rag-eval: --rag-concurrency: 0 must be 1 or more"),
        (["--rag-judge-passes", "0"], "rag-eval: --rag-judge-passes: 0 must be 1 or more"),
        (["--rag-timeout", "-1"], "rag-eval: --rag-timeout: -1 must be greater than 0"),
        (["--rag-header", ": no-name-secret-77"], 'rag-eval: --rag-header: expected "Name: value"'),
        (["--rag-fail-under", "nan"], "rag-eval: --rag-fail-under: nan is not between 0 and 1"),
    ],
    ids=["concurrency-0", "passes-0", "negative-timeout", "header-without-name", "nan-threshold"],
)
def test_bad_command_line_value_is_fatal_naming_the_option(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    (pytester.path / "d.json").write_text('[{"question": "q", "ground_truth": "g"}]')
    result = pytester.runpytest("--rag-dataset=d.json", *args)
    assert result.ret == 3
    result.stderr.fnmatch_lines([f"*{message}*"])
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert "no-name-secret-77" not in output


def test_a_dry_run_of_a_large_dataset_counts_every_case(pytester: pytest.Pytester) -> None:
    # Estimating judge calls renders every prompt (rebuilding the output schema for each made
    # a dry run of 100,000 cases take over two minutes): benchmarks/scale.py --dry-run-only
    # measures it.
    (pytester.path / "big.jsonl").write_text(
        "\n".join(
            json.dumps({"id": f"c{i}", "question": f"q{i}?", "ground_truth": "g"})
            for i in range(2_000)
        )
    )
    result = pytester.runpytest("--rag-dataset=big.jsonl", "--rag-dry-run")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*dataset*big.jsonl: 2000 cases*"])


def test_an_unknown_judge_is_a_fatal_config_error_in_the_dry_run(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "d.json").write_text(
        '{"test_cases": [{"question": "q", "ground_truth": "g", "answer": "a", "contexts": ["c"]}]}'
    )
    result = pytester.runpytest("--rag-dataset=d.json", "--rag-judge=nosuch", "--rag-dry-run")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*unknown judge 'nosuch'*"])


def test_a_config_nested_too_deep_is_one_message(pytester: pytest.Pytester) -> None:
    (pytester.path / "d.json").write_text('[{"question": "q", "ground_truth": "g"}]')
    pytester.makefile(".yaml", **{"eval-config": "x: " + "[" * 100_000 + "]" * 100_000})
    result = pytester.runpytest("--rag-dataset=d.json", "--rag-dry-run")
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*Invalid configuration*eval-config.yaml*"])


def test_a_yaml_alias_bomb_in_the_config_is_rejected_in_seconds(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "d.json").write_text('[{"question": "q", "ground_truth": "g"}]')
    anchors = ALIAS_BOMB.removeprefix("metadata:\n").replace("  ", "    ")
    config = f"http:\n  body:\n{anchors}judge:\n  model: *i\n"
    pytester.makefile(".yaml", **{"eval-config": config})
    try:
        result = pytester.runpytest_subprocess("--rag-dataset=d.json", "--rag-dry-run", timeout=8)
    except pytester.TimeoutExpired:
        pytest.fail("still validating the config after 8 s")
    assert result.ret == 3
    result.stderr.fnmatch_lines(["*key 'judge.model': Input should be a valid string*"])
