"""Report-only mode (``--rag-report-only``, config ``report_only: true``, ini
``rag_report_only``): scores below per-case thresholds are reported but fail no test; the
run-level gates (``thresholds:``) still decide the exit code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

CASES = [
    case("found", "What is the refund policy?", expected_contexts=["policy.md"]),
    case("missed", "Do you deliver abroad?", expected_contexts=["nowhere.md"], critical=True),
]

ZERO_CODE_CONFIG = "metrics:\n  retrieval_recall: 0.9\n"


@pytest.fixture
def suite(pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str) -> str:
    write_dataset(CASES)
    return rag_app


def test_report_only_exits_0_with_the_failing_scores_in_the_report(
    pytester: pytest.Pytester, suite: str
) -> None:
    pytester.makefile(".yaml", **{"eval-config": ZERO_CODE_CONFIG})
    base = ("--rag-dataset", "dataset.json", "--rag-target", suite, "-p", "no:randomly")
    gating = pytester.runpytest(*base)
    assert gating.ret == 2  # the critical case misses its document: without the mode, red

    result = pytester.runpytest(*base, "--rag-report-only")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    report = read_report(pytester)
    assert report["run"]["report_only"] is True
    assert report["run"]["exit_code"] == 0
    missed = {c["key"]: c for c in report["cases"]}["missed"]
    assert missed["metrics"]["retrieval_recall"]["score"] == 0.0
    assert missed["metrics"]["retrieval_recall"]["status"] == "failed"
    assert report["summary"]["metrics"]["retrieval_recall"]["failed"] == 1
    # A green run that hides a miss would read as "all thresholds met": it says what it let by.
    reason = report["run"]["exit_reason"]
    assert "report only: 1 score below per-case thresholds failed no test" in reason
    assert "all thresholds met" not in reason
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert "**Report only:** per-case thresholds did not fail tests" in markdown


def test_run_level_gates_still_fail_a_report_only_run(
    pytester: pytest.Pytester, suite: str
) -> None:
    pytester.makefile(
        ".yaml",
        **{
            "eval-config": ZERO_CODE_CONFIG
            + "report_only: true\nthresholds:\n  retrieval_recall: 0.9\n"
        },
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", suite)
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(passed=2)
    report = read_report(pytester)
    assert report["summary"]["metrics"]["retrieval_recall"]["status"] == "FAIL"
    assert "retrieval_recall" in report["run"]["exit_reason"]


def test_assertions_in_tests_record_but_do_not_fail_in_report_only_mode(
    pytester: pytest.Pytester, suite: str
) -> None:
    pytester.makeini("[pytest]\nrag_report_only = true\n")
    pytester.makepyfile(
        """
        from rag_eval_pytest import assert_metric

        def test_recall(rag_case):
            result = assert_metric(rag_case, "retrieval_recall", 0.9)
            print(rag_case.id, result.status)
        """
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", suite, "-s")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*missed failed*"])
    statuses = {
        c["key"]: c["metrics"]["retrieval_recall"]["status"] for c in read_report(pytester)["cases"]
    }
    assert statuses == {"found": "passed", "missed": "failed"}


def test_without_the_mode_the_same_assertion_fails_the_test(
    pytester: pytest.Pytester, suite: str
) -> None:
    pytester.makepyfile(
        """
        from rag_eval_pytest import assert_metric

        def test_recall(rag_case):
            assert_metric(rag_case, "retrieval_recall", 0.9)
        """
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", suite)
    assert result.ret == 2
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*missed retrieval_recall 0.00 < 0.90*"])
