"""The assertion API as a user meets it: messages, evaluate(), custom metrics, not judged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

CUSTOM_METRIC = """
import pytest
from rag_eval_pytest import Evidence, Measurement, Metric, register_metric

@register_metric
class AnswerLength(Metric):
    name = "answer_length"
    default_threshold = 0.5

    async def measure(self, sample, services):
        if not sample.answer.strip():
            return Measurement.not_judged("the answer is empty")
        score = min(len(sample.answer.split()) / 10, 1.0)
        return Measurement(score=score, reason=f"{len(sample.answer.split())} words",
                           evidence=[Evidence(kind="answer", text=sample.answer,
                                              verdict="too short" if score < 0.5 else "ok")])

@pytest.fixture(scope="session")
def rag_adapter():
    answers = {"short": "Yes.", "long": "one two three four five six seven eight nine ten",
               "empty": " "}
    return lambda q: (answers[q], [])
"""


@pytest.fixture
def custom_suite(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> None:
    write_dataset([case("short", "short"), case("long", "long"), case("empty", "empty")])
    pytester.makeconftest(CUSTOM_METRIC)


def test_failure_message_first_line_and_evidence(
    pytester: pytest.Pytester, custom_suite: None
) -> None:
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_metric
def test_length(rag_case):
    assert_metric(rag_case, "answer_length", threshold=0.8)
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly", "-ra")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "E       rag_eval_pytest.RagAssertionError: short answer_length 0.10 < 0.80",
            "E         1 words",
            "E       evidence:",
            "E         ?too short? Yes.",
            "FAILED test_rag.py::test_length?short? - rag_eval_pytest.RagAssertionError*",
        ]
    )
    result.stdout.no_fnmatch_line("*assertions.py*")  # helper frames are hidden


def test_evaluate_returns_the_result_and_records_it(
    pytester: pytest.Pytester, custom_suite: None
) -> None:
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import evaluate
def test_length(rag_case):
    result = evaluate(rag_case, "answer_length", threshold=0.2)
    if rag_case.id == "long":
        assert (result.score, result.passed, result.threshold) == (1.0, True, 0.2)
    if rag_case.id == "empty":
        assert result.status == "not_judged" and result.score is None
        assert result.reason == "the answer is empty"
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    result.assert_outcomes(passed=3)
    cases = {c["key"]: c for c in read_report(pytester)["cases"]}
    assert cases["short"]["metrics"]["answer_length"]["status"] == "failed"
    assert cases["empty"]["metrics"]["answer_length"]["status"] == "not_judged"
    summary = read_report(pytester)["summary"]["metrics"]["answer_length"]
    assert (summary["judged"], summary["not_judged"]) == (2, 1)
    assert summary["mean"] == pytest.approx(0.55)


def test_not_judged_can_fail_instead_of_skip(pytester: pytest.Pytester, custom_suite: None) -> None:
    pytester.makefile(".yaml", **{"eval-config": "not_judged: fail\n"})
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_metric
def test_length(rag_case):
    assert_metric(rag_case, "answer_length", threshold=0.05)
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*empty answer_length not judged: the answer is empty*"])


def test_unknown_metric_and_bad_parameters_are_clear(
    pytester: pytest.Pytester, custom_suite: None
) -> None:
    pytester.makepyfile(
        test_rag="""
import pytest
from rag_eval_pytest import evaluate
def test_unknown(rag_case):
    with pytest.raises(KeyError, match="unknown metric 'answer_lenght'"):
        evaluate(rag_case, "answer_lenght")
def test_params(rag_case):
    with pytest.raises(TypeError, match="got unknown parameter 'mode'"):
        evaluate(rag_case, "answer_length", mode="x")
def test_not_a_case():
    with pytest.raises(TypeError, match="expected a case, got str: the rag_case fixture"):
        evaluate("tc_001", "answer_length")
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    result.assert_outcomes(passed=7)


def test_custom_metric_in_zero_code_config(pytester: pytest.Pytester, custom_suite: None) -> None:
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  answer_length: 0.5\n"})
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1, skipped=1)


def test_assert_retrieval_checks_what_the_call_names(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """A top-3 retriever that finds the one expected document: recall 1.0, precision 0.33.
    ``recall=1.0`` checks recall only; a bare call keeps both default thresholds."""
    write_dataset([case("refund", "refund?", expected_contexts=["policy.md"])])
    pytester.makeconftest(
        """
import pytest

@pytest.fixture(scope="session")
def rag_adapter():
    docs = ["policy.md", "shipping.md", "password.md"]
    return lambda q: ("answer", [{"text": d, "source": d} for d in docs])
"""
    )
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_retrieval

def test_recall_only(rag_case):
    (recall,) = assert_retrieval(rag_case, recall=1.0)
    assert (recall.metric, recall.score) == ("retrieval_recall", 1.0)

def test_precision_named(rag_case):
    assert_retrieval(rag_case, precision=0.5)

def test_defaults(rag_case):
    assert_retrieval(rag_case)
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*_ test_precision_named?refund? _*"])
    failures = [line for line in result.outlines if line.startswith("E ") and " < " in line]
    assert [line.split(": ", 1)[-1] for line in failures] == [
        "refund retrieval_precision 0.33 < 0.50"
    ] * 2


BAD_THRESHOLDS = """
import pytest
from rag_eval_pytest import assert_metric, assert_rag, assert_retrieval

@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e400, -1, 1.5, "0.5", True])
def test_bad(rag_case, value):
    assert_metric(rag_case, "retrieval_recall", value)

def test_bad_in_assert_rag(rag_case):
    assert_rag(rag_case, retrieval_recall=float("nan"))

def test_good(rag_case):
    assert_retrieval(rag_case, recall=1.0)
"""


def test_a_threshold_that_is_not_a_number_in_0_1_is_an_error_of_its_test_only(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    """NaN used to lose the whole run's reports (ValueError in pytest_sessionfinish, exit 3
    while the terminal said 1); -1 always passed; "0.5" raised a raw TypeError."""
    write_dataset([case("tc_001", "What is the refund policy?", expected_contexts=["policy.md"])])
    pytester.makepyfile(test_rag=BAD_THRESHOLDS)
    result = pytester.runpytest("--rag-dataset=dataset.json", f"--rag-target={rag_app}")
    result.assert_outcomes(failed=8, passed=1)
    output = result.stdout.str()
    words = "retrieval_recall: a threshold is a number between 0 and 1, got"
    assert f"ValueError: {words} nan" in output
    assert f"{words} -1" in output and f"{words} 1.5" in output
    assert f"TypeError: {words} str '0.5'" in output
    assert f"{words} bool True" in output
    assert f"assert_rag: {words} nan" in output
    assert result.ret == 1
    result.stdout.fnmatch_lines(["rag-eval: exit 1: 8 tests failed"])
    report = read_report(pytester)
    assert report["run"]["exit_code"] == 1
    assert report["cases"][0]["metrics"]["retrieval_recall"]["threshold"] == 1.0
    assert (pytester.path / "results" / "results.jsonl").read_text().count("\n") == 1
