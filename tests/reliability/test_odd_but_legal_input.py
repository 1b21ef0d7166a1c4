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
    """A fresh pytest process asserting retrieval of every case against ``app:answer``."""
    pytester.makepyfile(app=app, test_rag=RETRIEVAL_TEST)
    pytester.syspathinsert()
    return pytester.runpytest_subprocess(
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
