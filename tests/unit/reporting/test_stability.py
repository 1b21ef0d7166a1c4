"""A verdict is stable when the same answer would get it again: no judge asked, a
deterministic judge, or two or more votes that all agreed."""

from __future__ import annotations

from typing import Any

from rag_eval_pytest.metrics.base import MetricResult
from rag_eval_pytest.reporting.stability import stable_metrics, stable_verdict


def result(metric: str, status: str = "failed", **details: Any) -> MetricResult:
    score = None if status == "not_judged" else 0.2
    return MetricResult(
        case="c1", metric=metric, status=status, score=score, threshold=0.5, details=details
    )


def test_a_metric_that_asks_no_judge_is_stable() -> None:
    assert stable_verdict(result("retrieval_recall"), {})  # type: ignore[typeddict-item]


def test_one_vote_of_an_llm_judge_is_not_stable_and_a_deterministic_judge_is() -> None:
    one_vote = result("faithfulness", agreement=1.0)
    assert not stable_verdict(one_vote, {"judge_passes": 1})  # type: ignore[typeddict-item]
    deterministic: Any = {"judge_passes": 1, "judge_deterministic": True}
    assert stable_verdict(one_vote, deterministic)


def test_votes_that_all_agreed_are_stable_and_votes_that_differed_are_not() -> None:
    three: Any = {"judge_passes": 3}
    assert stable_verdict(result("faithfulness", agreement=1.0), three)
    assert not stable_verdict(result("faithfulness", agreement=0.6667), three)
    assert not stable_verdict(result("faithfulness"), three)  # no agreement recorded
    # judge.passes: auto asked this verdict again with three votes.
    revoted = result("faithfulness", agreement=1.0, votes=3)
    assert stable_verdict(revoted, {"judge_passes": 1})  # type: ignore[typeddict-item]


def test_a_check_this_process_does_not_know_is_taken_to_ask_a_judge() -> None:
    assert not stable_verdict(result("criteria: polite", agreement=1.0), {})  # type: ignore[typeddict-item]


def test_the_stable_metrics_of_a_case_are_its_judged_ones_or_those_a_merged_report_gave() -> None:
    metrics = {
        "faithfulness": result("faithfulness", agreement=1.0),
        "retrieval_recall": result("retrieval_recall"),
        "context_recall": result("context_recall", "not_judged"),
        "retrieval_precision": result("retrieval_precision", "not_judged"),
    }
    assert stable_metrics({}, metrics) == ["retrieval_recall"]  # type: ignore[typeddict-item]
    merged: Any = {"stable_metrics": ["faithfulness", "gone"]}
    assert stable_metrics(merged, metrics) == ["faithfulness"]
