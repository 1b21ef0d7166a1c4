"""``rag-eval convert`` in-process: DeepEval and RAGAS files (JSON, JSONL, CSV) become
datasets, and bad input is one message naming the file, the item or line and the field; no
command writes over its input, nor over a file that exists unless forced; the help of every
command reads as written."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.cli import main

# As DeepEval's EvaluationDataset.save_as(file_type="json") writes goldens, with test-case
# fields (actual_output, retrieval_context) filled in.
DEEPEVAL_GOLDENS = [
    {
        "input": "How many days of paid time off do employees get?",
        "actual_output": "Full-time employees receive 20 days of paid time off.",
        "expected_output": "20 days a year.",
        "retrieval_context": ["Full-time employees receive 20 days paid time off annually."],
        "context": ["Employees get 20 days of paid time off."],
        "source_file": "handbook.pdf",
    },
    {
        "input": "Can employees work remotely?",
        "actual_output": "Employees may work remotely two days a week.",
        "expected_output": None,
        "retrieval_context": ["Employees may work remotely up to two days per week."],
        "additional_metadata": {"team": "hr"},
    },
]
# As RAGAS's EvaluationDataset.to_jsonl writes single-turn samples.
RAGAS_SAMPLES = [
    {
        "user_input": "When was the first super bowl?",
        "retrieved_contexts": [
            "The first super bowl, the AFL-NFL World Championship Game, was played on "
            "January 15, 1967."
        ],
        "response": "The first super bowl was played on January 15, 1967.",
        "reference": "The first superbowl was held on Jan 15, 1967",
    },
    {
        "user_input": "Who won the first super bowl?",
        "retrieved_contexts": ["The Green Bay Packers won the first championship game."],
        "response": "The Green Bay Packers won the first championship game.",
    },
]


def write(tmp_path: Path, name: str, items: Any) -> Path:
    path = tmp_path / name
    path.write_text(items if isinstance(items, str) else json.dumps(items), encoding="utf-8")
    return path


def test_older_ragas_fields_csv_and_ids_are_converted(tmp_path: Path) -> None:
    csv_file = write(
        tmp_path,
        "old.csv",
        "question,answer,contexts,ground_truths\n"
        "What is 2+2?,4,\"['2+2 is 4', 'maths']\",\"['4', 'four']\"\n",
    )
    assert main(["convert", "--from", "ragas", str(csv_file), str(tmp_path / "out.json")]) == 0
    (case,) = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["test_cases"]
    assert case == {
        "question": "What is 2+2?",
        "answer": "4",
        "contexts": ["2+2 is 4", "maths"],
        "ground_truth": "4\nfour",
    }
    with_ids = write(
        tmp_path,
        "ids.json",
        [
            {
                "user_input": "q",
                "response": "a",
                "retrieved_contexts": ["t1", "t2"],
                "retrieved_context_ids": ["doc1", "doc2"],
                "reference_context_ids": ["doc1"],
            }
        ],
    )
    assert main(["convert", "--from", "ragas", str(with_ids), str(tmp_path / "ids.jsonl")]) == 0
    converted = json.loads((tmp_path / "ids.jsonl").read_text(encoding="utf-8"))
    assert converted["contexts"] == [
        {"text": "t1", "source": "doc1"},
        {"text": "t2", "source": "doc2"},
    ]
    assert converted["expected_contexts"] == ["doc1"]


def test_a_golden_without_an_answer_asks_the_rag_system(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    goldens = write(
        tmp_path,
        "g.json",
        [{"input": "q?", "expected_output": "a", "retrieval_context": ["ctx"]}],
    )
    assert main(["convert", "--from", "deepeval", str(goldens), str(tmp_path / "o.json")]) == 0
    (case,) = json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))["test_cases"]
    assert case == {
        "question": "q?",
        "ground_truth": "a",
        "metadata": {"retrieval_context": ["ctx"]},
    }
    captured = capsys.readouterr()
    assert "0 with a recorded answer, 1 to ask the RAG system" in captured.out
    assert "item 0: 'retrieval_context' without an answer is kept in the case's metadata" in (
        captured.err
    )


@pytest.mark.parametrize(
    ("source", "content", "problems"),
    [
        (
            "deepeval",
            [{"input": "q", "retrieval_context": "one"}, {"actual_output": "a"}, "text"],
            [
                "item 0: field 'retrieval_context' must be a list of texts",
                "item 1: field 'input' is required",
                "item 2: expected an object, found str",
            ],
        ),
        (
            "deepeval",
            [{"input": "q", "expected_ouput": "a", "golden": 1}],
            [
                "item 0: unknown field 'expected_ouput' for DeepEval (did you mean "
                "'expected_output'?)",
                "item 0: unknown field 'golden' for DeepEval (known: input, expected_output, ",
            ],
        ),
        (
            "ragas",
            [{"user_input": ["hi"], "response": "a"}],
            [
                "item 0: unknown field 'response' for a RAGAS conversation (known: user_input, ",
                "item 0: field 'user_input[0]' must be a message object",
            ],
        ),
        (
            "ragas",
            [{"user_input": "", "response": 3}],
            [
                "item 0: field 'response' must be text, found int",
                "item 0: field 'user_input' must not be empty",
            ],
        ),
        ("ragas", '{"user_input": "q",', ["invalid JSON at line 1, column 20"]),
        ("ragas", [], ["the file has no items"]),
        ("ragas", {"rows": []}, ["expected a list of items"]),
    ],
)
def test_bad_input_is_one_message_naming_file_item_and_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    source: str,
    content: Any,
    problems: list[str],
) -> None:
    path = write(tmp_path, "in.json", content)
    assert main(["convert", "--from", source, str(path), str(tmp_path / "out.json")]) == 3
    err = capsys.readouterr().err
    assert err.startswith(f"rag-eval convert: cannot convert {path} as ")
    for problem in problems:
        assert f"\n  {problem}" in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [("missing.json", "missing.json: cannot be read (No such file or directory)")],
)
def test_unreadable_input_and_unknown_output_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    assert main(["convert", "--from", "ragas", str(tmp_path / name), str(tmp_path / "o.json")]) == 3
    assert message in capsys.readouterr().err
    path = write(tmp_path, "in.json", [{"user_input": "q"}])
    assert main(["convert", "--from", "ragas", str(path), str(tmp_path / "o.txt")]) == 3
    assert "o.txt: unknown file type '.txt' (use .json, .jsonl, .yaml or .yml)" in (
        capsys.readouterr().err
    )


def test_the_output_is_never_the_input_nor_an_existing_file_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    goldens = write(tmp_path, "de.json", DEEPEVAL_GOLDENS)
    original = goldens.read_bytes()
    for args in (["de.json", "de.json"], ["de.json", "./de.json", "--force"]):
        argv = ["convert", "--from", "deepeval", *(str(tmp_path / a) for a in args[:2])]
        assert main(argv + args[2:]) == 3
        err = capsys.readouterr().err
        assert "de.json: OUT is the input file" in err and "Traceback" not in err
        assert goldens.read_bytes() == original
    out = tmp_path / "out.json"
    out.write_text("kept", encoding="utf-8")
    assert main(["convert", "--from", "deepeval", str(goldens), str(out)]) == 3
    assert f"rag-eval convert: {out}: already exists; give --force to replace it" in (
        capsys.readouterr().err
    )
    assert out.read_text(encoding="utf-8") == "kept"
    assert main(["convert", "--from", "deepeval", str(goldens), str(out), "--force"]) == 0
    assert len(json.loads(out.read_text(encoding="utf-8"))["test_cases"]) == 2


def strict_json(text: str) -> Any:
    """JSON as every other reader takes it: ``NaN`` and ``Infinity`` are no JSON."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("out", ["o.json", "o.jsonl"])
def test_nan_and_infinity_in_the_input_are_written_as_null_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    # Python's json module reads NaN and Infinity (pandas and numpy scores write them); the
    # converted dataset used to hold them as they were, which no strict JSON reader takes.
    goldens = write(
        tmp_path,
        "g.json",
        '[{"input": "q?", "expected_output": "g", '
        '"additional_metadata": {"score": NaN, "runs": [1, -Infinity]}}]',
    )
    assert main(["convert", "--from", "deepeval", str(goldens), str(tmp_path / out)]) == 0
    text = (tmp_path / out).read_text(encoding="utf-8")
    document = strict_json(text) if out.endswith(".json") else {"test_cases": [strict_json(text)]}
    (case,) = document["test_cases"]
    assert case["metadata"] == {"additional_metadata": {"score": None, "runs": [1, None]}}
    err = capsys.readouterr().err
    assert (
        "item 0: field 'additional_metadata.runs[1]' is -Infinity, which JSON cannot hold: "
        "written as null" in err
    )
    assert "item 0: field 'additional_metadata.score' is NaN" in err


def test_an_endless_input_is_refused_at_the_size_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    endless = tmp_path / "zeros.json"
    endless.symlink_to("/dev/zero")
    assert main(["convert", "--from", "ragas", str(endless), str(tmp_path / "o.json")]) == 3
    err = capsys.readouterr().err
    assert f"rag-eval convert: {endless}: larger than 256 MiB, the most an input file may hold" in (
        err
    )
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            'user_input,response\nq1,a1\n"q2,a2\nq3,a3\n',
            "line 3: malformed CSV (a quote opened in this row is never closed)",
        ),
        ('user_input,response\n"q1"x,a1\n', "line 2: malformed CSV (',' expected after '\"')"),
        ("user_input,response\nq1,a1,extra\n", "line 2: malformed CSV (3 cells, the header has 2)"),
    ],
)
def test_a_malformed_csv_is_one_message_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, problem: str
) -> None:
    path = write(tmp_path, "in.csv", content)
    assert main(["convert", "--from", "ragas", str(path), str(tmp_path / "o.json")]) == 3
    err = capsys.readouterr().err
    assert err == f"rag-eval convert: cannot convert {path} as RAGAS (1 problem):\n  {problem}\n"
    assert not (tmp_path / "o.json").exists()


def test_every_help_text_of_the_command_shows_its_percent_signs_as_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = re.search(r"\{([\w,-]+)\}", capsys.readouterr().out)
    assert listed is not None
    commands = listed.group(1).split(",")
    assert "calibrate" in commands
    helps = {}
    for command in commands:
        with pytest.raises(SystemExit) as exited:
            main([command, "--help"])
        assert exited.value.code == 0
        helps[command] = " ".join(capsys.readouterr().out.split())
    assert [c for c, text in helps.items() if "%%" in text or "%(" in text] == []
    assert "the balanced accuracy with its 95 % interval" in helps["calibrate"]
    assert "at least 5 labelled passes and 5 labelled failures" in helps["calibrate"]


def test_calibrate_never_writes_over_its_labels_or_its_config_and_replaces_only_when_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    policy = "Refunds are available within 30 days of purchase."
    cases = [
        {"id": f"{label}{i}", "question": "Refunds?", "contexts": [policy], "labels": {
            "faithfulness": label}, "answer": policy if label == "pass" else "Free to Mars."}
        for label in ("pass", "fail") for i in range(5)
    ]  # fmt: skip
    labels = write(tmp_path, "labels.json", {"test_cases": cases})
    config = write(
        tmp_path, "eval-config.yaml", "judge:\n  kind: tests.unit.engine.fakes:SentenceJudge\n"
    )
    (tmp_path / "link.json").symlink_to(labels)
    kept = {path: path.read_bytes() for path in (labels, config)}
    for output, force in (
        ("labels.json", []),
        (str(labels), ["--force"]),  # the same file by its absolute path
        ("link.json", ["--force"]),  # a link to the labels
        ("eval-config.yaml", ["--force"]),
    ):
        assert main(["calibrate", "labels.json", "--output", output, *force]) == 3
        err = capsys.readouterr().err
        assert err.startswith(f"rag-eval calibrate: {Path(output)}: --output is the input file ")
        assert err.endswith("; name another file to write\n")
    assert {path: path.read_bytes() for path in (labels, config)} == kept

    earlier = write(tmp_path, "calibration.json", "an earlier calibration")
    assert main(["calibrate", "labels.json"]) == 3
    assert capsys.readouterr().err == (
        "rag-eval calibrate: calibration.json: already exists; give --force to replace it\n"
    )
    assert earlier.read_text(encoding="utf-8") == "an earlier calibration"
    assert main(["calibrate", "labels.json", "--force"]) == 0
    assert json.loads(earlier.read_text(encoding="utf-8"))["metrics"]["faithfulness"]
