"""One verdict: a run and ``rag-eval merge`` decide the exit code with the same function, so
the same outcomes give the same code from both.

Each row feeds the aggregator of a run the tests' reports (with their case payloads), lets it
write its JSON report, then merges that report as ``rag-eval merge`` does: the merge rebuilds
its cases from the JSON alone, so whatever the verdict needs (a judge's failure, a critical
case, an error) must survive the report and lead to the same decision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.data.dataset import DatasetCollection
from rag_eval_pytest.metrics.base import MetricResult
from rag_eval_pytest.redaction import Redactor
from rag_eval_pytest.reporting.aggregator import Aggregator
from rag_eval_pytest.reporting.files import JSON_REPORT
from rag_eval_pytest.reporting.merge import merge_reports
from rag_eval_pytest.reporting.models import Report
from rag_eval_pytest.reporting.payload import RunInfo


def result(
    case: str, status: str, score: float | None = None, *, judge_error: str = ""
) -> dict[str, Any]:
    fields: dict[str, Any] = {"score": score, "threshold": 0.5}
    if status == "not_judged":
        fields.update(
            cause="judge" if judge_error else "data",
            reason=judge_error or "no contexts",
            details={"judge_error": judge_error} if judge_error else {},
        )
    return MetricResult(case=case, metric="faithfulness", status=status, **fields).model_dump(
        mode="json"
    )


def payload(key: str, *, critical: bool = False, error: str | None = None, **metric: Any):
    return {
        "schema": 1,
        "key": key,
        "id": key,
        "index": int(key[1:]),
        "dataset": "d.json",
        "question": "q?",
        "ground_truth": "g",
        "critical": critical,
        "tags": [],
        "expected_contexts": None,
        "recorded": True,
        "answer": None if error else "a",
        "contexts": None if error else [{"text": "ctx", "source": None}],
        "sources": [],
        "latency": None,
        "error": error,
        "adapter": None,
        "judge": "custom (judge)",
        "metrics": [result(key, **metric)] if metric else [],
        "inline": False,
    }


PASS = {"status": "passed", "score": 1.0}
FAIL = {"status": "failed", "score": 0.2}
OUTAGE = {"status": "not_judged", "judge_error": "custom raised RuntimeError: backend down"}

# (id, [(outcome, payload)], thresholds, pytest status, expected code, words of the reason)
ROWS = [
    ("all-passed", [("passed", payload("c1", **PASS))], {}, 0, 0, "all tests passed"),
    ("a-failure", [("failed", payload("c1", **FAIL))], {}, 1, 1, "1 test failed"),
    (
        "an-error-is-no-failure",
        [("error", payload("c1", error="HTTP 500")), ("passed", payload("c2", **PASS))],
        {},
        1,
        1,
        "exit-reason: 1 error",
    ),
    (
        "a-failure-and-an-error",
        [
            ("failed", payload("c1", **FAIL)),
            ("error", payload("c2", error="HTTP 500")),
            ("passed", payload("c3", **PASS)),
        ],
        {},
        1,
        1,
        "exit-reason: 1 test failed, 1 error",
    ),
    (
        "critical-failure",
        [("failed", payload("c1", critical=True, **FAIL)), ("passed", payload("c2", **PASS))],
        {},
        1,
        2,
        "critical case c1 failed",
    ),
    (
        "gate-unmet",
        [("passed", payload("c1", status="passed", score=0.9))],
        {"composite": 0.99},
        0,
        1,
        "composite 0.90 < 0.99",
    ),
    (
        "judge-outage-on-every-case",
        [("skipped", payload("c1", **OUTAGE)), ("skipped", payload("c2", **OUTAGE))],
        {},
        0,
        3,
        "no case could be judged on faithfulness",
    ),
    (
        "judge-outage-on-most-cases-the-critical-one-included",
        [
            ("passed", payload("c1", **PASS)),
            ("skipped", payload("c2", critical=True, **OUTAGE)),
            ("skipped", payload("c3", **OUTAGE)),
        ],
        {},
        0,
        3,
        "the judge failed on 2 of 3 cases (c2, c3): custom raised RuntimeError: backend down",
    ),
    (
        "nothing-judged-for-the-case-data",
        [("skipped", payload("c1", status="not_judged"))],
        {},
        0,
        0,
        "all tests passed",
    ),
    (
        "the-rag-system-failed-for-every-case",
        [("failed", payload("c1", error="HTTP 500")), ("failed", payload("c2", error="HTTP 500"))],
        {},
        1,
        3,
        "the RAG system failed for every case (2)",
    ),
]


def run_and_merge(
    tmp_path: Path,
    reports: list[tuple[str, Any]],
    thresholds: dict[str, float],
    status: int,
    regression: dict[str, Any] | None = None,
) -> tuple[tuple[int, str], tuple[int, str]]:
    settings = Settings.model_validate(
        {"metrics": {"faithfulness": None}, "thresholds": thresholds}
        | ({"regression": regression} if regression else {})
    )
    aggregator = Aggregator(
        settings=settings,
        datasets=DatasetCollection(datasets=[], cases=[], warnings=[], total_cases=0),
        run=RunInfo(run_id="r1", started_at="2026-11-26T00:00:00Z"),
        redactor=Redactor(),
        output_dir=tmp_path,
        rootdir=tmp_path,
        version="0",
    )
    for outcome, case in reports:
        # pytest's "error" is a failed setup (a case whose RAG system failed errors there).
        aggregator.add_report(
            nodeid=f"t.py::test[{case['key']}]",
            when="setup" if outcome == "error" else "call",
            outcome="failed" if outcome == "error" else outcome,
            payload=case,
            critical_marker=False,
        )
    failed = sum(outcome in ("failed", "error") for outcome, _ in reports)  # as pytest counts
    run = aggregator.finish(pytest_status=status, failed_tests=failed, interrupted=False)
    path = tmp_path / JSON_REPORT
    merged = merge_reports([(path, Report.from_json(json.loads(path.read_text())))], version="0")
    return (run.code, run.reason), (merged.decision.code, merged.decision.reason)


@pytest.mark.parametrize(
    ("reports", "thresholds", "status", "code", "reason"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_a_run_and_its_merge_give_the_same_verdict(
    tmp_path: Path,
    reports: list[tuple[str, Any]],
    thresholds: dict[str, float],
    status: int,
    code: int,
    reason: str,
) -> None:
    run, merged = run_and_merge(tmp_path, reports, thresholds, status)
    assert run[0] == code, run
    assert merged[0] == code, merged
    if reason.startswith("exit-reason: "):  # the whole reason, not words of it
        assert run[1] == merged[1] == reason.removeprefix("exit-reason: ")
    else:
        assert reason in run[1] and reason in merged[1]


def test_the_regression_gate_gives_a_run_and_its_merge_the_same_verdict(tmp_path: Path) -> None:
    # A baseline that cannot be used: the gate cannot pass, fatal in both.
    gone = {"baseline": str(tmp_path / "gone.json"), "fail": True}
    passing = [("passed", payload(f"c{i}", **PASS)) for i in range(1, 7)]
    run, merged = run_and_merge(tmp_path / "gone", passing, {}, 0, gone)
    assert run[0] == merged[0] == 3, (run, merged)
    assert "--rag-fail-on-regression, and no comparison: the baseline cannot be read" in run[1]
    assert "--rag-fail-on-regression, and no comparison: the baseline cannot be read" in merged[1]
    # Each case fell from 1.0 to 0.2 since the baseline: a regression in both.
    run_and_merge(tmp_path / "main", passing, {}, 0)
    main = {"baseline": str(tmp_path / "main" / JSON_REPORT), "fail": True}
    dropped = [("passed", payload(f"c{i}", status="passed", score=0.2)) for i in range(1, 7)]
    run, merged = run_and_merge(tmp_path / "pr", dropped, {}, 0, main)
    assert run[0] == merged[0] == 1, (run, merged)
    assert "regressed since the baseline: faithfulness 1.00 -> 0.20" in run[1]
    assert "regressed since the baseline: faithfulness 1.00 -> 0.20" in merged[1]
