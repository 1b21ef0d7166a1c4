"""Odd but legal input gives the documented result, never a made-up score or a traceback:
unknown contexts, undocumented response shapes, huge integers, reports missing a section."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

BARE_STRING_APP = """
def answer(question):
    return "Full refund within 30 days of purchase."
"""

RETRIEVAL_TEST = """
from rag_eval_pytest import assert_retrieval

def test_retrieval(rag_case):
    assert_retrieval(rag_case)
"""


def run_retrieval(pytester: pytest.Pytester, app: str) -> pytest.RunResult:
    """A pytest run asserting retrieval of every case against ``app:answer``."""
    pytester.makepyfile(app=app, test_rag=RETRIEVAL_TEST)
    pytester.syspathinsert()
    return pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", "app:answer", "-p", "no:randomly"
    )


def test_unknown_contexts_leave_every_context_metric_not_judged(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [case("refund", "Refund policy?", expected_contexts=["policy.md"], critical=True)]
    )
    result = run_retrieval(pytester, BARE_STRING_APP)
    assert result.ret != 2, "a case whose contexts are unknown is not a failed critical case"
    [reported] = read_report(pytester)["cases"]
    for name in ("retrieval_precision", "retrieval_recall"):
        metric = reported["metrics"][name]
        assert metric["status"] == "not_judged" and metric["score"] is None
        assert metric["cause"] == "data"
        assert "contexts unknown" in metric["reason"]
    result.stdout.no_fnmatch_line("*0.00*")


DICT_CONTEXTS_APP = """
def answer(question):
    return "Full refund within 30 days.", {"text": "Full refund within 30 days of purchase."}
"""


def test_contexts_in_a_shape_the_adapter_does_not_document_are_refused(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case("refund", "Refund policy?", expected_contexts=["policy.md"]),
            case("other", "Other?", expected_contexts=["policy.md"]),
        ]
    )
    result = run_retrieval(pytester, DICT_CONTEXTS_APP)
    assert result.ret == 3  # the RAG system failed for every case
    result.stdout.fnmatch_lines(["*contexts must be a list of contexts*not dict*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    for reported in read_report(pytester)["cases"]:
        assert reported["status"] == "error"
        assert "not dict" in reported["error"]


HUGE = "9" * 5000
QUESTION = '"question": "Refund?", "ground_truth": "30 days"'


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "set.json",
            f'{{"test_cases": [{{"id": "a", {QUESTION}, "metadata": {{"n": {HUGE}}}}}]}}',
            "field 'test_cases[0].metadata.n'",
        ),
        (
            "set.jsonl",
            f'{{"id": "a", {QUESTION}}}\n{{"id": "b", {QUESTION}, "metadata": {{"n": -{HUGE}}}}}\n',
            "field 'metadata.n' (line 2)",
        ),
        (
            "set.yaml",
            "test_cases:\n  - id: a\n    question: Refund?\n    ground_truth: 30 days\n"
            f"    metadata:\n      n: {HUGE}\n",
            "field 'test_cases[0].metadata.n' (line 6)",
        ),
    ],
    ids=["json", "jsonl", "yaml"],
)
def test_an_integer_too_long_to_read_in_a_dataset_is_one_message(
    pytester: pytest.Pytester, name: str, content: str, message: str
) -> None:
    (pytester.path / name).write_text(content, encoding="utf-8")
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest(f"--rag-dataset={name}")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 3, output
    assert f"{name}: {message}: an integer of 5000 digits is longer than can be read" in output
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert HUGE[:100] not in output


def test_an_integer_too_long_to_read_in_the_config_is_one_message(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset()
    pytester.makefile(".yaml", **{"eval-config": f"thresholds:\n  composite: {HUGE}\n"})
    pytester.makepyfile(test_rag="def test_x(rag_case): pass\n")
    result = pytester.runpytest("--rag-dataset=dataset.json")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 3, output
    assert (
        "eval-config.yaml: field 'thresholds.composite' (line 2): an integer of 5000 digits"
        in output
    )
    assert "INTERNALERROR" not in output and "Traceback" not in output
