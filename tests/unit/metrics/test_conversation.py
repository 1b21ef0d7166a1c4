"""A conversation's result of a metric from its turns' results: the lowest turn decides by
default, the mean with ``aggregate="mean"`` (the evidence of every turn under the threshold,
each piece naming its turn); a turn the judge could not judge leaves the conversation not
judged, naming the turn, while turns without the data the metric needs are left out; costs
add up and each warning is told once."""

from __future__ import annotations

from typing import Any

import pytest

from rag_eval_pytest.judges.base import Usage
from rag_eval_pytest.metrics.base import Evidence, MetricResult
from rag_eval_pytest.metrics.conversation import conversation_result, split_aggregate


def turn(score: float | None, cause: str | None = None, **fields: Any) -> MetricResult:
    """A turn's result (threshold 0.7) with one piece of evidence naming its score."""
    status = "not_judged" if score is None else ("passed" if score >= 0.7 else "failed")
    return MetricResult(
        case="chat/turn-n",
        metric="faithfulness",
        score=score,
        threshold=0.7,
        status=status,
        cause=cause,
        reason=fields.pop("reason", f"scored {score}"),
        evidence=[Evidence(kind="statement", text=f"scored {score}")],
        **fields,
    )


def test_the_aggregate_is_taken_out_of_the_metrics_own_parameters() -> None:
    assert split_aggregate({"mode": "deepeval"}) == ("min", {"mode": "deepeval"})
    assert split_aggregate({"aggregate": "mean", "mode": "ragas"}) == ("mean", {"mode": "ragas"})
    with pytest.raises(ValueError, match="aggregate must be 'min' or 'mean', got 'max'"):
        split_aggregate({"aggregate": "max"})


def test_the_lowest_turn_decides_and_only_its_evidence_is_shown() -> None:
    result = conversation_result("chat", [turn(0.9), turn(0.4), turn(0.6)], 0.7)
    assert (result.case, result.metric, result.score, result.status) == (
        "chat",
        "faithfulness",
        0.4,
        "failed",
    )
    assert result.details == {
        "aggregate": "min",
        "turns": {"1": 0.9, "2": 0.4, "3": 0.6},
        "turn": 2,
    }
    assert [(e.text, e.turn) for e in result.evidence] == [("scored 0.4", 2)]
    assert result.reason == "turn 2 of 3: scored 0.4"


def test_the_mean_shows_every_turn_under_the_threshold() -> None:
    result = conversation_result("chat", [turn(0.9), turn(0.4), turn(0.6)], 0.6, "mean")
    # (0.9 + 0.4 + 0.6) / 3 = 0.633...: it meets 0.6 although turn 2 does not.
    assert result.score == pytest.approx(19 / 30)
    assert result.status == "passed"
    assert [(e.text, e.turn) for e in result.evidence] == [("scored 0.4", 2)]
    assert result.reason == (
        "mean of 3 turns (turn 1 0.90, turn 2 0.40, turn 3 0.60); lowest turn 2 of 3: scored 0.4"
    )


def test_a_mean_with_every_turn_passing_shows_the_lowest_turns_evidence() -> None:
    result = conversation_result("chat", [turn(0.9), turn(0.8)], 0.7, "mean")
    assert result.score == pytest.approx(0.85)
    assert [e.turn for e in result.evidence] == [2]


def test_a_turn_the_judge_failed_on_leaves_the_conversation_not_judged() -> None:
    failed = turn(None, cause="judge", reason="the judge timed out")
    result = conversation_result("chat", [turn(0.9), failed, turn(0.2)], 0.7)
    # Not the 0.2 of turn 3: without turn 2 the conversation's lowest turn is not known.
    assert (result.score, result.status, result.cause) == (None, "not_judged", "judge")
    assert result.reason == "turn 2: the judge timed out"
    assert result.details["turn"] == 2


def test_turns_without_the_data_are_left_out() -> None:
    no_truth = turn(None, cause="data", reason="the case has no ground_truth")
    result = conversation_result("chat", [no_truth, turn(0.8)], 0.7)
    assert (result.score, result.status, result.details["turn"]) == (0.8, "passed", 2)
    assert result.details["turns"] == {"1": None, "2": 0.8}


def test_no_turn_with_the_data_is_not_judged_with_the_first_turns_reason() -> None:
    no_truth = turn(None, cause="data", reason="the case has no ground_truth")
    result = conversation_result("chat", [no_truth, no_truth], 0.7)
    assert (result.status, result.cause) == ("not_judged", "data")
    assert result.reason == "no turn was judged (turn 1: the case has no ground_truth)"


def test_without_a_threshold_the_conversation_passes_whatever_its_score() -> None:
    result = conversation_result("chat", [turn(0.1)], None)
    assert (result.score, result.threshold, result.status) == (0.1, None, "passed")


def test_the_turns_costs_add_up_and_each_warning_is_told_once() -> None:
    first = turn(0.9, usage=Usage(judge_calls=1, input_tokens=10), warnings=["truncated"])
    second = turn(
        0.8, usage=Usage(judge_calls=2, input_tokens=5), warnings=["truncated", "re-asked"]
    )
    result = conversation_result("chat", [first, second], 0.7)
    assert (result.usage.judge_calls, result.usage.input_tokens) == (3, 15)
    assert result.warnings == ["truncated", "re-asked"]
