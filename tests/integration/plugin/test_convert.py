"""``rag-eval convert``: DeepEval and RAGAS files become datasets that run as they are, and a
file in their format given to ``--rag-dataset`` names the converter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import word_judge  # noqa: F401  imported before any inner run, so inner runs share it
from tests.helpers import read_report
from tests.unit.test_cli import DEEPEVAL_GOLDENS, RAGAS_SAMPLES

JUDGE_CONFTEST = """
import pytest
from tests.word_judge import word_judge

@pytest.fixture(scope="session")
def rag_judge():
    return word_judge
"""
CONFIG = "metrics:\n  faithfulness: 0.9\n"


def convert(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rag_eval_pytest.cli", "convert", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def run_zero_code(pytester: pytest.Pytester, dataset: str) -> pytest.RunResult:
    pytester.makeconftest(JUDGE_CONFTEST)
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    return pytester.runpytest(
        "--rag-dataset", dataset, "--rag-judge-passes", "1", "-v", "-p", "no:randomly"
    )


def test_a_converted_deepeval_golden_file_runs_in_zero_code_mode(pytester: pytest.Pytester) -> None:
    (pytester.path / "goldens.json").write_text(json.dumps(DEEPEVAL_GOLDENS), encoding="utf-8")
    done = convert(pytester.path, "--from", "deepeval", "goldens.json", "converted.json")
    assert done.returncode == 0, done.stderr
    assert "converted 2 cases from goldens.json (2 with a recorded answer" in done.stdout
    dataset = json.loads((pytester.path / "converted.json").read_text(encoding="utf-8"))
    first, second = dataset["test_cases"]
    assert first == {
        "question": DEEPEVAL_GOLDENS[0]["input"],
        "ground_truth": "20 days a year.",
        "answer": DEEPEVAL_GOLDENS[0]["actual_output"],
        "contexts": DEEPEVAL_GOLDENS[0]["retrieval_context"],
        "metadata": {
            "context": ["Employees get 20 days of paid time off."],
            "source_file": "handbook.pdf",
        },
    }
    assert "ground_truth" not in second and second["metadata"] == {
        "additional_metadata": {"team": "hr"}
    }

    result = run_zero_code(pytester, "converted.json")
    result.stdout.fnmatch_lines(["*converted.json::case-* PASSED*"] * 2)
    assert result.ret == 0
    report = read_report(pytester)
    assert [c["metrics"]["faithfulness"]["score"] for c in report["cases"]] == [1.0, 1.0]
    assert all(c["recorded"] for c in report["cases"])


def test_a_converted_ragas_sample_file_runs_in_zero_code_mode(pytester: pytest.Pytester) -> None:
    lines = "".join(json.dumps(sample) + "\n" for sample in RAGAS_SAMPLES)
    (pytester.path / "samples.jsonl").write_text(lines, encoding="utf-8")
    done = convert(pytester.path, "--from", "ragas", "samples.jsonl", "converted.yaml")
    assert done.returncode == 0, done.stderr
    dataset = yaml.safe_load((pytester.path / "converted.yaml").read_text(encoding="utf-8"))
    first = dataset["test_cases"][0]
    assert first["question"] == RAGAS_SAMPLES[0]["user_input"]
    assert first["ground_truth"] == RAGAS_SAMPLES[0]["reference"]
    assert first["answer"] == RAGAS_SAMPLES[0]["response"]
    assert first["contexts"] == RAGAS_SAMPLES[0]["retrieved_contexts"]

    result = run_zero_code(pytester, "converted.yaml")
    result.stdout.fnmatch_lines(["*converted.yaml::case-* PASSED*"] * 2)
    assert result.ret == 0


@pytest.mark.parametrize(
    ("case", "fmt", "fields"),
    [
        (
            {"input": "q", "actual_output": "a", "retrieval_context": ["c"]},
            "deepeval",
            "'actual_output', 'input', 'retrieval_context'",
        ),
        (
            {"user_input": "q", "response": "a", "reference": "r"},
            "ragas",
            "'reference', 'response', 'user_input'",
        ),
    ],
)
def test_a_dataset_with_their_field_names_names_the_converter(
    pytester: pytest.Pytester, case: dict[str, Any], fmt: str, fields: str
) -> None:
    (pytester.path / "theirs.json").write_text(json.dumps([case, case]), encoding="utf-8")
    result = pytester.runpytest("--rag-dataset", "theirs.json")
    assert result.ret == 3
    text = result.stdout.str() + result.stderr.str()
    name = {"deepeval": "DeepEval", "ragas": "RAGAS"}[fmt]
    assert (
        f"theirs.json: the cases use {name}'s field names ({fields}), not this plugin's; "
        f"convert the file with: rag-eval convert --from {fmt} "
    ) in text, text
    assert "theirs.json converted.json" in text
    assert "unknown field" not in text
    assert "Traceback" not in text and "INTERNALERROR" not in text


def test_a_misspelt_field_gets_a_did_you_mean(pytester: pytest.Pytester) -> None:
    case = {"id": "tc_1", "questoin": "q", "ground_truth": "g", "expected_context": ["a.md"]}
    (pytester.path / "d.json").write_text(json.dumps([case]), encoding="utf-8")
    result = pytester.runpytest("--rag-dataset", "d.json")
    assert result.ret == 3
    text = result.stdout.str() + result.stderr.str()
    assert "case 'tc_1' (test_cases[0]): unknown field 'questoin' (did you mean 'question'?)" in (
        text
    )
    assert "unknown field 'expected_context' (did you mean 'expected_contexts'?)" in text


CHAT_CONFTEST = """
import pytest
from tests.word_judge import word_judge

FEES = {"personal": "A personal account costs 5 EUR a month.",
        "business": "A business account costs 12 EUR a month."}

@pytest.fixture(scope="session")
def rag_judge():
    return word_judge

@pytest.fixture(scope="session")
def rag_adapter():
    def answer(question, history):
        text = FEES["business" if "business" in question.lower() else "personal"]
        return text, [text]
    return answer
"""


def test_converted_deepeval_and_ragas_conversations_are_judged_turn_by_turn(
    pytester: pytest.Pytester,
) -> None:
    from tests.unit.data.test_foreign import DEEPEVAL_CONVERSATION

    ragas = {
        "user_input": [
            {"content": "What does a personal account cost?", "type": "human"},
            {"content": "A personal account costs 5 EUR a month.", "type": "tool"},
            {"content": "A personal account costs 5 EUR a month.", "type": "ai"},
            {"content": "Is there a discount for students?", "type": "human"},
            {"content": "", "type": "ai", "tool_calls": [{"name": "search", "args": {}}]},
            {"content": "A business account costs 12 EUR a month.", "type": "tool"},
            {"content": "Students fly to the moon for free.", "type": "ai"},
        ],
        "reference": "The customer learns the fee.",
    }
    (pytester.path / "goldens.json").write_text(
        json.dumps([DEEPEVAL_CONVERSATION]), encoding="utf-8"
    )
    (pytester.path / "samples.jsonl").write_text(json.dumps(ragas) + "\n", encoding="utf-8")
    done = convert(pytester.path, "--from", "deepeval", "goldens.json", "deepeval.json")
    assert done.returncode == 0, done.stderr
    assert (
        "converted 1 cases from goldens.json (0 with a recorded answer, 1 to ask the RAG "
        "system; 1 of them conversations): wrote deepeval.json"
    ) in done.stdout
    assert "'expected_outcome' describes a whole conversation" in done.stderr
    done = convert(pytester.path, "--from", "ragas", "samples.jsonl", "ragas.json")
    assert done.returncode == 0, done.stderr
    assert "(1 with a recorded answer, 0 to ask the RAG system; 1 of them" in done.stdout
    (converted,) = json.loads((pytester.path / "ragas.json").read_text())["test_cases"]
    assert converted["metadata"]["reference"] == "The customer learns the fee."
    assert converted["turns"][1]["contexts"] == ["A business account costs 12 EUR a month."]

    pytester.makeconftest(CHAT_CONFTEST)
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    result = pytester.runpytest(
        "--rag-dataset", "deepeval.json", "--rag-dataset", "ragas.json", "-v", "-p", "no:randomly"
    )
    result.stdout.fnmatch_lines(["*deepeval.json::case-* PASSED*", "*ragas.json::case-* FAILED*"])
    assert result.ret == 1
    report = read_report(pytester)
    deepeval, ragas_case = sorted(report["cases"], key=lambda c: c["dataset"])
    # The DeepEval golden's first turn is recorded, its follow-up asked with its history.
    assert [t["recorded"] for t in deepeval["turns"]] == [True, False]
    assert deepeval["turns"][1]["answer"] == "A business account costs 12 EUR a month."
    assert [t["metrics"]["faithfulness"]["score"] for t in deepeval["turns"]] == [1.0, 1.0]
    assert deepeval["turns"][0]["contexts"][0]["source"] == "fees.md"
    # The RAGAS sample's second answer is not in its tool's output: that turn fails it.
    assert [t["status"] for t in ragas_case["turns"]] == ["passed", "failed"]
    assert ragas_case["metrics"]["faithfulness"]["details"]["turn"] == 2
