"""Pure decisions: composite, percentiles, summary, exit codes."""

from __future__ import annotations

from typing import Any

import pytest

from rag_eval_pytest.metrics.base import MetricResult
from rag_eval_pytest.reporting.collector import CaseRecord
from rag_eval_pytest.reporting.models import CriticalTest
from rag_eval_pytest.reporting.summary import ThresholdCheck, percentile, summarise, weighted_mean
from rag_eval_pytest.reporting.verdict import decide_exit_code


def test_weighted_mean_renormalises_over_metrics_present() -> None:
    weights = {
        "faithfulness": 0.4,
        "answer_relevance": 0.2,
        "context_precision": 0.2,
        "context_recall": 0.2,
    }
    assert weighted_mean({"faithfulness": 1.0, "context_recall": 0.4}, weights) == pytest.approx(
        (0.4 * 1.0 + 0.2 * 0.4) / 0.6
    )
    assert weighted_mean({"retrieval_recall": 1.0}, weights) is None


def test_percentile_interpolates() -> None:
    assert percentile([], 50) is None
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([float(i) for i in range(1, 101)], 95) == pytest.approx(95.05)


def record(
    key: str,
    index: int,
    metrics: dict[str, tuple[str, float | None]],
    *,
    outcome: str = "passed",
    critical: bool = False,
    tags: list[str] | None = None,
    latency: float | None = 0.1,
    error: str | None = None,
) -> CaseRecord:
    payload: Any = {
        "schema": 1,
        "key": key,
        "id": key,
        "index": index,
        "dataset": "d.json",
        "question": "q",
        "ground_truth": "g",
        "critical": critical,
        "tags": tags or [],
        "expected_contexts": None,
        "recorded": False,
        "answer": "a",
        "contexts": [],
        "sources": [],
        "latency": latency,
        "error": error,
        "adapter": None,
        "metrics": [],
    }
    rec = CaseRecord(payload=payload)
    for name, (status, score) in metrics.items():
        rec.add_metric(
            MetricResult(case=key, metric=name, status=status, score=score, threshold=None)
        )
    rec.add_test("t::" + key, outcome, None)
    return rec


def test_summary_counts_tags_latency_and_critical() -> None:
    records = [
        record("a", 0, {"faithfulness": ("passed", 1.0)}, critical=True, tags=["x"], latency=1.0),
        record(
            "b",
            1,
            {"faithfulness": ("failed", 0.5)},
            outcome="failed",
            tags=["x", "y"],
            latency=7.0,
        ),
        record("c", 2, {"faithfulness": ("not_judged", None)}, outcome="skipped", latency=None),
        record("d", 3, {}, critical=True, error="boom", latency=None),
    ]
    s = summarise(
        records,
        weights={"faithfulness": 1.0},
        thresholds={"faithfulness": 0.8},
        slow_threshold=5.0,
        critical_tests=[CriticalTest(nodeid="t::other", outcome="failed")],
    )
    assert (s.cases, s.passed, s.failed, s.errors, s.skipped) == (4, 1, 1, 1, 1)
    assert s.metrics["faithfulness"].mean == 0.75 and s.metrics["faithfulness"].not_judged == 1
    assert s.composite == 0.75
    assert [c.met for c in s.checks] == [False]
    assert (s.latency.count, s.latency.slow, s.latency.avg) == (2, 1, 4.0)
    assert [(t.tag, t.count, t.passed, t.failed, t.avg_score) for t in s.tags] == [
        ("x", 2, 1, 1, 0.75),
        ("y", 1, 0, 1, 0.5),
    ]
    assert s.critical.total == 3 and s.critical.passed == 1
    assert s.critical.failed == ["d", "t::other"]


class CountedRecord(CaseRecord):
    """A case record that counts how often the summary reads its case."""

    __slots__ = ()
    reads = 0

    @property
    def payload(self) -> Any:
        CountedRecord.reads += 1
        return super().payload


def payload_reads(cases: int) -> int:
    """How often :func:`summarise` reads the cases of a run whose cases each have a tag of
    their own."""
    records = []
    for i in range(cases):
        made = record(f"c{i}", i, {"faithfulness": ("passed", 1.0)}, tags=[f"t{i}", f"t{i}"])
        made.__class__ = CountedRecord
        records.append(made)
    CountedRecord.reads = 0
    summary = summarise(records, weights={"faithfulness": 1.0}, thresholds={}, slow_threshold=5)
    assert [(t.tag, t.count) for t in summary.tags[:2]] == [("t0", 1), ("t1", 1)]
    return CountedRecord.reads


def test_the_tags_are_summarised_in_one_pass_over_the_cases() -> None:
    """Ten times the cases, each with a tag of its own (given twice), read ten times as
    often: a search through every case per tag made the summary quadratic."""
    assert payload_reads(400) <= 10 * payload_reads(40)


def test_gate_without_judged_cases_is_unmet_not_passed_silently() -> None:
    s = summarise(
        [record("a", 0, {})], weights={}, thresholds={"faithfulness": 0.9}, slow_threshold=5
    )
    assert s.checks[0].met is False
    assert s.unmet == s.checks
    assert s.warnings == ["threshold faithfulness 0.90 not met: no case could be scored on it"]
    decision = decide_exit_code(0, failed_tests=0, critical_failures=[], unmet=s.unmet)
    assert (decision.code, decision.reason) == (
        1,
        "faithfulness gate 0.90 not met: it could not be scored",
    )


@pytest.mark.parametrize(
    ("status", "kwargs", "expected"),
    [
        (0, {}, (0, "all tests passed and all thresholds met")),
        (1, {"failed_tests": 2}, (1, "2 tests failed")),
        # Errors are said as errors, apart from failures, as pytest says them.
        (1, {"errored_tests": 3}, (1, "3 errors")),
        (1, {"failed_tests": 1, "errored_tests": 1}, (1, "1 test failed, 1 error")),
        (0, {"unmet": [ThresholdCheck("composite", 0.71, 0.8)]}, (1, "composite 0.71 < 0.80")),
        (1, {"critical_failures": ["tc_1"], "failed_tests": 1}, (2, "critical case tc_1 failed")),
        (
            1,
            {"critical_failures": ["a", "b"], "critical_code": 10},
            (10, "critical cases a, b failed"),
        ),
        # The fatal code outranks the critical one, and still names the critical failure.
        (
            1,
            {"fatal_reason": "all down", "critical_failures": ["a"]},
            (3, "fatal: all down; critical case a failed"),
        ),
        # pytest's 2 (interrupted, a collection error) is not the critical code's 2.
        (
            2,
            {"critical_failures": ["a"]},
            (3, "fatal: pytest: interrupted; critical case a failed"),
        ),
        # A critical failure says what else fails the run, not the critical tests again.
        (
            1,
            {"critical_failures": ["a"], "failed_tests": 2, "unchecked": "1 case needs x"},
            (2, "critical case a failed; 1 case needs x"),
        ),
        (0, {"unchecked": "1 case needs x"}, (1, "1 case needs x")),
        (
            2,
            {"pytest_detail": "1 error during collection", "fatal_code": 12},
            (12, "fatal: pytest: interrupted: 1 error during collection"),
        ),
        (2, {"critical_code": 10}, (2, "pytest: interrupted (pytest's exit status kept)")),
        (5, {"critical_code": 5}, (3, "fatal: pytest: no tests collected")),
        # A run the plugin stopped (a judge that cannot be built) is fatal with its reason.
        (2, {"fatal_reason": "no judge"}, (3, "fatal: no judge")),
        (4, {"fatal_reason": "x"}, (4, "pytest: usage error (pytest's exit status kept)")),
        (5, {}, (5, "pytest: no tests collected (pytest's exit status kept)")),
    ],
)
def test_exit_code_decision(status: int, kwargs: dict[str, Any], expected: tuple[int, str]) -> None:
    args: dict[str, Any] = {"failed_tests": 0, "critical_failures": [], "unmet": []}
    args.update(kwargs)
    decision = decide_exit_code(status, **args)
    assert (decision.code, decision.reason) == expected


def test_a_later_test_brings_the_response_an_earlier_one_did_not_reach() -> None:
    first = record("a", 0, {"faithfulness": ("failed", 0.2)}, outcome="failed", latency=None)
    first.payload["answer"] = None  # the first test failed before the response
    reached: Any = {
        **first.payload,
        "answer": "Refunds within 30 days.",
        "contexts": [{"text": "Refunds within 30 days.", "source": "policy.md"}],
        "latency": 0.3,
        "metrics": [
            MetricResult(
                case="a", metric="faithfulness", status="passed", score=1.0, threshold=None
            ).model_dump(mode="json")
        ],
    }
    stored = CaseRecord(first.payload)
    stored.add_metric(first.metrics["faithfulness"])
    stored.merge(reached)
    stored.merge({**reached, "answer": "another answer", "metrics": []})  # kept as first seen
    assert stored.payload["answer"] == "Refunds within 30 days."
    assert stored.payload["contexts"] == reached["contexts"]
    assert stored.payload["latency"] == 0.3
    assert stored.metrics["faithfulness"].status == "failed"  # the most telling result


def test_a_failed_case_never_reads_as_perfect_in_its_composite_or_its_tag() -> None:
    """Correctness and retrieval carry no weight by default: a critical case that passed
    faithfulness and failed retrieval recall used to show composite 1.00, and its tag too."""
    weights = {"faithfulness": 0.4, "answer_relevance": 0.2}
    records = [
        record(
            "crit",
            0,
            {"faithfulness": ("passed", 1.0), "retrieval_recall": ("failed", 0.0)},
            outcome="failed",
            critical=True,
            tags=["billing"],
        ),
        record("fine", 1, {"faithfulness": ("passed", 0.9)}, tags=["billing"]),
    ]
    s = summarise(records, weights=weights, thresholds={}, slow_threshold=5.0)
    assert s.case_composites == {"crit": 0.0, "fine": 0.9}
    assert s.tags[0].avg_score == pytest.approx(0.45)
    assert s.critical.failed == ["crit"]


def test_the_thresholds_the_tests_applied_are_in_the_summary() -> None:
    rec = record("a", 0, {})
    for case, threshold in (("a", 0.9), ("a", 0.7)):
        rec.add_metric(
            MetricResult(
                case=case, metric="faithfulness", status="failed", score=0.5, threshold=threshold
            )
        )
    b = record("b", 1, {})
    b.add_metric(
        MetricResult(case="b", metric="faithfulness", status="passed", score=0.95, threshold=0.9)
    )
    s = summarise([rec, b], weights={}, thresholds={}, slow_threshold=5.0)
    assert s.metrics["faithfulness"].case_thresholds == [0.7, 0.9]
