"""The output files and the terminal summary, and their equality with and without xdist."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import case, read_report

TESTS = """
from rag_eval_pytest import assert_retrieval
def test_retrieval(rag_case):
    assert_retrieval(rag_case, 1.0)
"""

CONFIG = """
weights:
  retrieval_precision: 1
  retrieval_recall: 1
thresholds:
  composite: 0.5
"""


def run(pytester: pytest.Pytester, rag_app: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_rag=TESTS)
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    return pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", rag_app, "-p", "no:randomly", *args
    )


def test_json_report_fields(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    result = run(pytester, rag_app)
    assert result.ret == 1
    report = read_report(pytester)
    assert report["schema_version"] == 1
    run_info = report["run"]
    assert run_info["exit_code"] == 1 and run_info["partial"] is False
    assert run_info["adapter"] == "callable app:answer"
    assert run_info["datasets"][0]["cases"] == 3 and run_info["datasets"][0]["name"] == "t"
    summary = report["summary"]
    assert summary["counts"] == {"cases": 3, "passed": 2, "failed": 1, "errors": 0, "skipped": 0}
    assert summary["metrics"]["retrieval_recall"]["mean"] == pytest.approx(2 / 3, abs=1e-4)
    # composite: retrieval_precision 1.0 (two judged cases) and recall 2/3, equal weights
    assert summary["composite"] == {
        "score": pytest.approx(5 / 6, abs=1e-4),
        "threshold": 0.5,
        "status": "PASS",
    }
    assert summary["critical"] == {"total": 1, "passed": 1, "failed": [], "tests": []}
    assert [t["tag"] for t in summary["tags"]] == ["account", "billing", "shipping"]
    assert summary["latency"]["count"] == 3 and summary["latency"]["slow"] == 0
    cases = {c["key"]: c for c in report["cases"]}
    assert list(cases) == ["tc_001", "tc_002", "tc_003"]
    failed = cases["tc_003"]
    assert failed["status"] == "failed" and failed["contexts"] == []
    assert failed["metrics"]["retrieval_recall"]["evidence"][0]["verdict"] == "missing"
    assert failed["tests"][0]["message"].endswith("tc_003 retrieval_recall 0.00 < 1.00")


def test_json_report_is_indented_with_one_line_per_case(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    """Readable, and a diff of two reports shows the cases that changed, line by line."""
    write_dataset()
    run(pytester, rag_app)
    text = (pytester.path / "results" / "eval_report.json").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[:2] == ["{", '  "schema_version": 1,']
    case_lines = [line for line in lines if line.startswith('    {"key": ')]
    cases = json.loads(text)["cases"]
    assert [json.loads(line.rstrip(","))["key"] for line in case_lines] == [c["key"] for c in cases]
    assert len(cases) == 3


def test_markdown_report_has_prd_sections(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    run(pytester, rag_app)
    md = (pytester.path / "results" / "eval_report.md").read_text()
    for needle in [
        "# RAG Evaluation Report",
        "| **Composite** | 0.83 | 0.50 | PASS |",
        "| Retrieval Recall | 0.67 (0.00-1.00) | 1.00 per case | FAIL (1 of 3 cases) |",
        "**Latency:** avg",
        "## Critical Tests: 1/1 PASSED",
        "## Issues Found: 1",
        "### FAILED: tc_003 - Do you deliver abroad?",
        '**Ground Truth:** "Yes, worldwide."',
        "- Retrieval Recall: 0.00 (threshold 1.00, FAILED)",
        "## Test Results by Tag",
        "| shipping | 1 | 0 | 1 | 0.00 |",
        "**Exit Code:** 1 (1 test failed)",
    ]:
        assert needle in md, needle


def test_history_appends_one_line_per_run(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    run(pytester, rag_app)
    run(pytester, rag_app)
    lines = (pytester.path / "results" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2
    entry = json.loads(lines[-1])
    assert entry["composite_score"] == pytest.approx(5 / 6, abs=1e-4)
    assert entry["test_count"] == 3 and entry["failures"] == 1 and entry["exit_code"] == 1
    assert entry["metrics"]["retrieval_recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert {"timestamp", "run_id", "judge", "cost_usd", "git_commit", "partial"} <= set(entry)


def test_terminal_summary_prints_table_paths_and_reason(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    result = run(pytester, rag_app, "--rag-output-dir", "out")
    result.stdout.fnmatch_lines(
        [
            "*= rag-eval =*",
            "Metric*Score*Threshold*Status",
            "Composite*0.83*0.50*PASS",
            "Retrieval Recall*0.67*",
            "cases: 3 (2 passed, 1 failed, 0 errors, 0 skipped); critical: 1/1 passed",
            f"reports: {pytester.path / 'out' / 'eval_report.json'}",
            "rag-eval: exit 1: 1 test failed",
        ]
    )


def test_unwritable_output_is_one_line_not_a_crash(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    (pytester.path / "blocked").write_text("a file, not a directory")
    result = run(pytester, rag_app, "--rag-output-dir", "blocked")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["could not write *blocked*eval_report.json*"])
    result.stdout.no_fnmatch_line("*Traceback*")


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    for volatile in ("id", "started_at", "finished_at", "duration_s"):
        report["run"].pop(volatile)
    report.pop("trend", None)  # the second run has the first in its history
    report.pop("comparison", None)  # and is compared with it
    report.pop("integrity")  # the digest of the cases, their latencies with them
    report["summary"]["latency"] = None
    for c in report["cases"]:
        c["latency_s"] = None
    return report


def test_xdist_gives_the_same_report_as_a_plain_run(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset(
        [
            *[
                case(
                    f"c{i:02d}",
                    "refund policy?" if i % 3 else "deliver abroad?",
                    expected_contexts=["policy.md"],
                    critical=i == 3,
                    tags=[f"t{i % 2}"],
                )
                for i in range(10)
            ]
        ]
    )
    plain = run(pytester, rag_app, "-n", "0")
    plain_report = _comparable(read_report(pytester))
    distributed = run(pytester, rag_app, "-n", "2")
    distributed_report = _comparable(read_report(pytester))
    assert plain.ret == distributed.ret == 2
    assert distributed_report == plain_report
    lines = (pytester.path / "results" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2  # only the controller writes history


def test_works_without_xdist_installed(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    result = run(pytester, rag_app, "-p", "no:xdist")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.no_fnmatch_line("*unknown hook*")


def test_scores_become_junit_properties_and_github_summary(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset()
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run(pytester, rag_app, "--junitxml", "junit.xml")
    xml = (pytester.path / "junit.xml").read_text()
    assert '<property name="rag_case" value="tc_003" />' in xml
    assert '<property name="rag_retrieval_recall" value="0.0" />' in xml
    assert '<property name="rag_retrieval_recall_threshold" value="1.0" />' in xml
    text = summary.read_text()
    assert text.startswith("## RAG evaluation")
    assert "| Retrieval Recall | 0.67 (0.00-1.00) | 1.00 per case | FAIL (1 of 3 cases) |" in text
    assert "## RAG evaluation FAILED: exit 1, 1 test failed" in text
    assert "- **tc_003**: retrieval_recall 0.00 < 1.00" in text
    assert (pytester.path / "results" / "eval_summary.md").read_text() == text


def test_stopping_early_writes_a_partial_report(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset(
        [
            case("miss", "deliver abroad?", expected_contexts=["shipping.md"]),
            case("hit", "refund policy?", expected_contexts=["policy.md"]),
        ]
    )
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_retrieval
def test_retrieval(rag_case):
    assert_retrieval(rag_case, 1.0)
"""
    )
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", rag_app, "-p", "no:randomly", "-x"
    )
    assert result.ret == 1
    report = read_report(pytester)
    assert report["run"]["partial"] is True
    assert [c["key"] for c in report["cases"]] == ["miss"]
    history = json.loads((pytester.path / "results" / "results.jsonl").read_text())
    assert history["partial"] is True
    md = (pytester.path / "results" / "eval_report.md").read_text()
    assert "**Partial run:**" in md


def test_ctrl_c_keeps_the_finished_cases(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import evaluate
def test_retrieval(rag_case):
    if rag_case.id == "tc_002":
        raise KeyboardInterrupt
    evaluate(rag_case, "retrieval_recall")
"""
    )
    # A real process: a KeyboardInterrupt in an in-process run would stop this suite too.
    result = pytester.runpytest_subprocess(
        "--rag-dataset", "dataset.json", "--rag-target", "app.py:answer", "-p", "no:randomly"
    )
    assert result.ret == 3  # the fatal code: pytest's 2 here would mean "critical case failed"
    result.stdout.fnmatch_lines(["rag-eval: exit 3: fatal: pytest: interrupted*"])
    report = read_report(pytester)
    assert report["run"]["partial"] is True
    assert report["cases"][0]["key"] == "tc_001"
    assert report["cases"][0]["metrics"]["retrieval_recall"]["score"] == 1.0


def test_markdown_shows_the_trend_of_the_last_runs_and_flags_a_regression(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()  # tc_003 misses its document: retrieval recall 2/3
    run(pytester, rag_app)
    first = (pytester.path / "results" / "eval_report.md").read_text()
    assert "## Trend" not in first  # one run: nothing to compare with
    pytester.makeconftest(
        """
import pytest
from app import DOCS
@pytest.fixture(scope="session")
def rag_adapter():  # the refund policy is no longer found
    return lambda q: ("?", [{"text": DOCS["password.md"], "source": "password.md"}])
"""
    )
    run(pytester, rag_app)  # recall drops from 0.67 to 0.33
    markdown = (pytester.path / "results" / "eval_report.md").read_text()
    assert "## Trend: last 2 runs" in markdown
    assert (
        "> **Regression:** Retrieval Recall 0.67 → 0.33 since the last run of the same selection"
        in markdown
    )
    assert "```mermaid\nxychart-beta" in markdown
    assert "| 2 | " in markdown
    report = read_report(pytester)
    names = [r["name"] for r in report["trend"]["regressions"]]
    assert "retrieval_recall" in names
