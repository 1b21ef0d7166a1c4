"""The report document built from a run's summary and case records: gates with their status
(none without a gate), scores rounded to 4 places, metrics in report order, each case with
its composite, slowness and failure cause, the run's warnings and the summary's together."""

from __future__ import annotations

import re
from typing import Any

from rag_eval_pytest.metrics.base import MetricResult
from rag_eval_pytest.reporting.collector import CaseRecord
from rag_eval_pytest.reporting.document import build_document, now_iso
from rag_eval_pytest.reporting.models import CriticalTest, Report, RunSection
from rag_eval_pytest.reporting.summary import summarise

RUN = RunSection(
    id="r1", started_at="2099-01-01T00:00:00Z", finished_at="2099-01-01T00:01:00Z",
    duration_s=60.0, partial=False, datasets=[], selected_cases=2, tags_filter=[],
    adapter="callable", judge="fixed", git_commit=None, pytest_exit=1, exit_code=1,
    exit_reason="1 test failed",
)  # fmt: skip


def record(
    key: str, index: int, scores: dict[str, tuple[str, float]], **payload: Any
) -> CaseRecord:
    fields: Any = {
        "schema": 1, "key": key, "id": key, "index": index, "dataset": "d.json",
        "question": f"q {key}", "ground_truth": "g", "critical": False, "tags": [],
        "expected_contexts": ["a.md"], "recorded": False, "answer": "a",
        "contexts": [{"text": "c", "source": "b.md"}], "sources": ["b.md"], "latency": 0.5,
        "error": None, "adapter": None, "metrics": [],
    }  # fmt: skip
    fields.update(payload)
    rec = CaseRecord(payload=fields)
    outcome = "passed"
    for name, (status, score) in scores.items():
        rec.add_metric(
            MetricResult(case=key, metric=name, status=status, score=score, threshold=0.7)  # type: ignore[arg-type]
        )
        outcome = "failed" if status == "failed" else outcome
    rec.add_test(f"t.py::test_q[{key}]", outcome, None)  # type: ignore[arg-type]
    return rec


def document(thresholds: dict[str, float], **kw: Any) -> Report:
    records = [
        record("ok", 0, {"retrieval_recall": ("passed", 1.0), "faithfulness": ("passed", 0.87654)}),
        record(
            "slow",
            1,
            {"retrieval_recall": ("failed", 0.0), "faithfulness": ("passed", 0.75)},
            latency=7.25,
        ),
    ]
    weights = {"faithfulness": 1.0}
    summary = summarise(records, weights=weights, thresholds=thresholds, slow_threshold=5.0)
    return build_document(
        RUN,
        summary,
        records,
        critical_tests=[CriticalTest(nodeid="t.py::test_q[ok]", outcome="passed")],
        warnings=kw.get("warnings", ["run warning"]),
        thresholds=thresholds,
        weights=weights,
        version="1.2.3",
    )


def test_gates_have_a_status_and_metrics_without_one_have_none() -> None:
    report = document({"faithfulness": 0.9, "composite": 0.5})
    faith = report.summary.metrics["faithfulness"]
    # The mean (0.87654 + 0.75) / 2 = 0.81327, rounded to 4 places, is under its 0.9 gate.
    assert (faith.mean, faith.threshold, faith.status) == (0.8133, 0.9, "FAIL")
    assert faith.weight == 1.0
    recall = report.summary.metrics["retrieval_recall"]
    assert (recall.threshold, recall.status, recall.weight) == (None, None, 0.0)
    assert (recall.passed, recall.failed) == (1, 1)
    assert report.summary.composite.status == "PASS"
    assert report.summary.composite.score == 0.8133  # the composite weighs faithfulness only


def test_no_composite_gate_means_no_composite_status() -> None:
    assert document({}).summary.composite.status is None


def test_metrics_follow_the_report_order_in_the_summary_and_each_case() -> None:
    report = document({})
    assert list(report.summary.metrics) == ["faithfulness", "retrieval_recall"]
    assert all(list(case.metrics) == ["faithfulness", "retrieval_recall"] for case in report.cases)


def test_each_case_carries_its_latency_slowness_and_cause() -> None:
    report = document({})
    ok, slow = report.cases
    assert (ok.key, ok.latency_s, ok.slow, ok.status) == ("ok", 0.5, False, "passed")
    assert (slow.latency_s, slow.slow, slow.status) == (7.25, True, "failed")
    # Its expected a.md was not among the retrieved b.md: a retrieval miss.
    assert slow.failure_cause == "retrieval_miss"
    assert ok.failure_cause is None and ok.secondary_causes == []
    assert report.summary.failure_causes == {"retrieval_miss": 1}
    assert report.summary.latency.slow == 1


def test_the_run_the_tool_and_the_warnings() -> None:
    report = document({"faithfulness": 0.99}, warnings=["run warning"])
    assert report.tool.name == "rag-eval-pytest" and report.tool.version == "1.2.3"
    assert report.run == RUN
    assert report.warnings[0] == "run warning"
    assert report.summary.critical.tests == [
        CriticalTest(nodeid="t.py::test_q[ok]", outcome="passed")
    ]
    assert report.summary.counts.cases == 2


def test_now_is_utc_to_the_second() -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", now_iso())
