"""Bad input whose message used to be wrong, or that used to be accepted silently: each run
ends before any test with one message naming the file, the case and the field (printed
once), or loads as the user meant."""

from __future__ import annotations

import json
import unicodedata

import pytest

from tests.helpers import APP

TEST_FILE = "def test_x(rag_case): pass\n"


def case(**fields: object) -> dict[str, object]:
    return {"id": "c1", "question": "q", "ground_truth": "g", **fields}


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_rag=TEST_FILE)
    return pytester.runpytest("-p", "no:randomly", *args)


def assert_fatal(result: pytest.RunResult, message: str) -> None:
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 3, output
    assert message in result.stderr.str(), output
    assert "Traceback" not in output and "INTERNALERROR" not in output
    result.stdout.no_fnmatch_line("*collected*")


MESSAGE_ROWS = [
    # (file name, content, what the one message says)
    (
        "d.json",
        json.dumps([case(contexts=[{"text": "t", "score": 0.9}])]),
        "case 'c1' (test_cases[0]): unknown field 'contexts[0].score' (allowed: text, source)",
    ),
    (
        "d.json",
        json.dumps({"metadata": ["v1"], "test_cases": [case()]}),
        "d.json: field 'metadata' must be an object, found list",
    ),
    (
        "d.json",
        json.dumps([case(critical="yes")]),
        "case 'c1' (test_cases[0]): field 'critical': Input should be a valid boolean (got 'yes')",
    ),
    (
        "d.json",
        json.dumps([case(critical=1)]),
        "case 'c1' (test_cases[0]): field 'critical': Input should be a valid boolean (got 1)",
    ),
    (
        "d.json",
        json.dumps([case(id=7)]),
        "case '7' (test_cases[0]): field 'id': must be text, found the number 7; quote it",
    ),
    (
        "d.json",
        '[{"id": "c1", "question": "q", "question": "r", "ground_truth": "g"}]',
        "d.json: the key 'question' appears twice in one object",
    ),
    (
        "d.jsonl",
        '{"question": "q", "ground_truth": "g"}\n{"question": "q", "question": "r"}\n',
        "d.jsonl: line 2: the key 'question' appears twice in one object",
    ),
    (
        "d.yaml",
        "test_cases:\n  - id: c1\n    question: q\n    ground_truth: g\n    question: r\n",
        "d.yaml: the key 'question' appears twice in one mapping (line 5)",
    ),
    (
        "d.json",
        json.dumps([case(id=unicodedata.normalize("NFD", "café")), case(id="café")]),
        "case 'café' (test_cases[1]): duplicate id (also used at test_cases[0])",
    ),
    (
        "d.json",
        json.dumps(
            [
                {"id": "x", "turns": [{"question": "q1"}, {"question": "q2"}]},
                case(id="x/turn-1"),
            ]
        ),
        "d.json: turn 1 of the conversation 'x' and case 'x/turn-1' have the same key "
        "'x/turn-1'; keys are unique across cases and turns",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    MESSAGE_ROWS,
    ids=[
        "unknown-context-field",
        "metadata-list",
        "critical-yes",
        "critical-1",
        "integer-id",
        "json-duplicate-key",
        "jsonl-duplicate-key",
        "yaml-duplicate-key",
        "ids-equal-after-normalisation",
        "a-case-with-a-turn-key",
    ],
)
def test_bad_dataset_gets_the_right_message(
    pytester: pytest.Pytester, name: str, content: str, message: str
) -> None:
    (pytester.path / name).write_text(content, encoding="utf-8")
    assert_fatal(run(pytester, f"--rag-dataset={name}"), message)


@pytest.mark.parametrize(
    ("first", "second"),
    [("d1/set.json", "d2/set.json"), ("a1.json", "a1.jsonl")],
    ids=["same-name-in-two-folders", "same-stem-two-extensions"],
)
def test_the_same_id_in_two_files_that_qualify_it_alike_names_both_files(
    pytester: pytest.Pytester, first: str, second: str
) -> None:
    for name in (first, second):
        path = pytester.path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(case()) if name.endswith("l") else json.dumps([case()]))
    result = run(pytester, f"--rag-dataset={first}", f"--rag-dataset={second}")
    assert_fatal(result, "both have a case 'c1', and their file names qualify it the same way")
    assert first in result.stderr.str() and second in result.stderr.str()
    assert "same file name" not in result.stderr.str()


def test_a_case_with_the_key_of_a_turn_in_another_file_names_both_files(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "chats.json").write_text(
        json.dumps([{"id": "x", "turns": [{"question": "q1"}]}])
    )
    (pytester.path / "single.jsonl").write_text(json.dumps(case(id="x/turn-1")) + "\n")
    result = run(pytester, "--rag-dataset=chats.json", "--rag-dataset=single.jsonl")
    assert_fatal(result, "single.jsonl: turn 1 of the conversation 'x' (")
    assert "chats.json) and case 'x/turn-1' (" in result.stderr.str()
    assert "single.jsonl) have the same key 'x/turn-1'" in result.stderr.str()


def test_jsonl_with_a_line_separator_inside_a_string_loads(pytester: pytest.Pytester) -> None:
    row = {"id": "c1", "question": "first\u2028second?", "ground_truth": "g\u2029h"}
    (pytester.path / "d.jsonl").write_text(
        json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    result = run(pytester, "--rag-dataset=d.jsonl", "--collect-only", "-q")
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(["*test_x?c1?*"])


def test_ids_equal_after_normalisation_in_two_files_are_one_id_qualified(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "one.json").write_text(
        json.dumps([case(id=unicodedata.normalize("NFD", "café"))])
    )
    (pytester.path / "two.json").write_text(json.dumps([case(id="café")]))
    result = run(pytester, "--rag-dataset=one.json", "--rag-dataset=two.json", "--co", "-q")
    assert result.ret == 0, result.stderr.str()
    # pytest escapes ids: "café" in one code point (NFC) is "caf\xe9", never "cafe\u0301".
    result.stdout.fnmatch_lines(["*test_x?one/caf\\xe9?", "*test_x?two/caf\\xe9?"])


def test_a_fatal_error_is_printed_once(pytester: pytest.Pytester) -> None:
    (pytester.path / "d.json").write_text(json.dumps([case(), case()]))
    result = run(pytester, "--rag-dataset=d.json")
    assert_fatal(result, "rag-eval: Invalid dataset")
    output = result.stdout.str() + result.stderr.str()
    assert output.count("duplicate id") == 1, output
    assert "_pytest.outcomes.Exit" not in output


CONFIG_ROWS = [
    (
        "judge:\n  model: ${RT_MODEL\n",
        "key 'judge.model': the reference to RT_MODEL is not closed by '}'",
    ),
    ("judge:\n  model: ${RT_A:-${RT_B:-x}\n", "key 'judge.model': a '${' is never closed by '}'"),
    (
        "output:\n  directory: ${ RT_A}\n",
        "key 'output.directory': a '${' is not followed by a variable name",
    ),
    (
        "output:\n  directory: a\noutput:\n  directory: b\n",
        "the key 'output' appears twice in one mapping (line 3)",
    ),
]


@pytest.mark.parametrize(
    ("config", "message"),
    CONFIG_ROWS,
    ids=["unclosed-reference", "unclosed-nested-default", "no-variable-name", "duplicate-key"],
)
def test_bad_config_gets_the_right_message(
    pytester: pytest.Pytester, config: str, message: str
) -> None:
    (pytester.path / "d.json").write_text(json.dumps([case()]))
    pytester.makefile(".yaml", **{"eval-config": config})
    result = run(pytester, "--rag-dataset=d.json")
    assert_fatal(result, "Invalid configuration")
    assert message in result.stderr.str(), result.stderr.str()


def test_a_nested_default_is_used(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RT_A", raising=False)
    monkeypatch.delenv("RT_B", raising=False)
    pytester.makepyfile(app=APP)
    (pytester.path / "d.json").write_text(json.dumps([case(question="refund policy?")]))
    pytester.makefile(".yaml", **{"eval-config": "output:\n  directory: ${RT_A:-${RT_B:-out}}\n"})
    result = run(pytester, "--rag-dataset=d.json", "--rag-target=app:answer")
    assert result.ret in (0, 1), result.stderr.str()
    assert (pytester.path / "out" / "eval_report.json").is_file()
    assert not any("$" in p.name for p in pytester.path.iterdir())
