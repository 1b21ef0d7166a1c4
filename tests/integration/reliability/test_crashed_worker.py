"""A test whose xdist worker dies is an error of its case: counts, reports, exit code."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

TESTS = """
import os
from rag_eval_pytest import assert_retrieval

def test_retrieval(rag_case):
    if rag_case.id == "dies":
        os._exit(7)
    assert_retrieval(rag_case, 0.0)
"""


@pytest.mark.parametrize("critical", [False, True])
def test_a_crashed_worker_makes_its_case_an_error(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    critical: bool,
) -> None:
    write_dataset(
        [
            case("ok1", "refund policy?", expected_contexts=["policy.md"]),
            case("dies", "refund policy?", expected_contexts=["policy.md"], critical=critical),
            case("ok2", "refund policy?", expected_contexts=["policy.md"]),
        ]
    )
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest_subprocess(
        "--rag-dataset", "dataset.json", "--rag-target", rag_app, "-p", "no:randomly", "-n", "2"
    )
    report = read_report(pytester)
    counts = report["summary"]["counts"]
    assert counts == {"cases": 3, "passed": 2, "failed": 0, "errors": 1, "skipped": 0}
    crashed = next(c for c in report["cases"] if c["id"] == "dies")
    assert crashed["status"] == "error"
    assert "crashed" in crashed["error"]
    history = json.loads((pytester.path / "results" / "results.jsonl").read_text())
    assert history["errors"] == 1 and history["failures"] == 0
    markdown = (pytester.path / "results" / "eval_report.md").read_text()
    assert "dies" in markdown and "crashed" in markdown
    if critical:
        assert result.ret == 2
        assert report["summary"]["critical"]["total"] == 1
        assert report["summary"]["critical"]["failed"] == ["dies"]
    else:
        assert result.ret == 1
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
