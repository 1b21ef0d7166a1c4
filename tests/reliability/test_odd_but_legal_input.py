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


def test_unknown_contexts_leave_every_context_metric_not_judged(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    pytester.makepyfile(app=BARE_STRING_APP, test_rag=RETRIEVAL_TEST)
    pytester.syspathinsert()
    write_dataset(
        [case("refund", "Refund policy?", expected_contexts=["policy.md"], critical=True)]
    )
    result = pytester.runpytest_subprocess(
        "--rag-dataset", "dataset.json", "--rag-target", "app:answer", "-p", "no:randomly"
    )
    assert result.ret != 2, "a case whose contexts are unknown is not a failed critical case"
    [reported] = read_report(pytester)["cases"]
    for name in ("retrieval_precision", "retrieval_recall"):
        metric = reported["metrics"][name]
        assert metric["status"] == "not_judged" and metric["score"] is None
        assert metric["cause"] == "data"
        assert "contexts unknown" in metric["reason"]
    result.stdout.no_fnmatch_line("*0.00*")
