"""A verdict that depends on items the judge was unsure of: the score comes from the decided
items, and ``judge.local.unsure`` decides what a threshold between the bounds becomes."""

from __future__ import annotations

import pytest

from rag_eval_pytest.metrics.base import Measurement, MetricResult

# Two claims decided (one supported), two unsure: 1/2 decided; 1/4 if both were no, 3/4 if
# both were yes.
MEASURED = Measurement(
    score=0.5, reason="1 of 2 statements supported", unsure=2, bounds=(0.25, 0.75)
)


@pytest.mark.parametrize(
    ("threshold", "policy", "status", "score", "cause"),
    [
        (0.2, "not_judged", "passed", 0.5, None),  # passes whatever the unsure items are
        (0.8, "not_judged", "failed", 0.5, None),  # fails whatever they are
        (0.7, "not_judged", "not_judged", None, "unsure"),
        (0.7, "escalate", "not_judged", None, "unsure"),  # no LLM judge to ask
        (0.7, "pass", "passed", 0.75, None),
        (0.7, "fail", "failed", 0.25, None),
        (0.25, "fail", "passed", 0.5, None),  # the lower bound meets the threshold
    ],
)
def test_the_policy_decides_only_a_verdict_that_depends_on_the_unsure_items(
    threshold: float, policy: str, status: str, score: float | None, cause: str | None
) -> None:
    result = MetricResult.from_measurement(
        "c1",
        "faithfulness",
        MEASURED,
        threshold,
        policy,  # type: ignore[arg-type]
    )
    assert (result.status, result.score, result.cause) == (status, score, cause)
    if status == "not_judged":
        assert result.undecided
        assert result.details["decided_score"] == 0.5
        assert result.reason.startswith("the verdict depends on 2 items the judge was unsure of")
    if score in (0.25, 0.75):
        counted = "yes" if policy == "pass" else "no"
        assert result.reason.startswith(f"2 unsure counted as {counted} (judge.local.unsure:")


def test_a_measurement_without_unsure_items_is_unchanged() -> None:
    plain = Measurement(score=0.6)
    result = MetricResult.from_measurement("c1", "faithfulness", plain, 0.7, "pass")
    assert (result.status, result.score, result.unsure) == ("failed", 0.6, 0)
