"""Criteria driven by a fixed judge: the five-step verdict as a score, the quoted violations
as evidence, each criterion reported under its own name, and a judge that cannot read a
criterion (the local judge) said to be unsupported rather than a failure."""

from __future__ import annotations

from typing import Any

import pytest

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.questions import CriterionCheck, CriterionVerdict
from rag_eval_pytest.metrics.criteria import Criteria
from tests.unit.metrics.fakes import FixedJudge, make_sample, measure

CRITERION = "The answer must not promise refunds beyond 30 days."


def verdict(meets: str, *violations: str, reason: str = "it does") -> FixedJudge:
    value = CriterionVerdict(meets=meets, violations=list(violations), reason=reason)  # type: ignore[arg-type]
    return FixedJudge({"criterion_check": value})


@pytest.mark.parametrize(
    ("meets", "score"),
    [("fully", 1.0), ("mostly", 0.75), ("partly", 0.5), ("barely", 0.25), ("not at all", 0.0)],
)
def test_each_level_has_its_score(meets: str, score: float) -> None:
    result = measure(Criteria(criterion=CRITERION), make_sample(), verdict(meets))
    assert result.score == score
    assert result.reason == f"meets the criterion {meets}: it does"
    assert result.details == {"criterion": CRITERION, "meets": meets}


def test_violations_are_quoted_as_evidence() -> None:
    judge = verdict("barely", "refunds within 90 days", reason="")
    result = measure(Criteria(criterion=CRITERION), make_sample(), judge)
    assert [(e.kind, e.text, e.verdict) for e in result.evidence] == [
        ("quote", "refunds within 90 days", "violates")
    ]
    assert result.reason == "meets the criterion barely"  # no dangling ": "


def test_the_judge_gets_the_criterion_and_the_whole_case() -> None:
    judge = verdict("fully")
    sample = make_sample(question="Q", answer="A", ground_truth="G", contexts=["c1", "c2"])
    measure(Criteria(criterion="  must   be\npolite "), sample, judge)
    ((_, inputs),) = judge.asked
    assert inputs.criterion == "must be polite"  # whitespace folded
    assert (inputs.question, inputs.answer, inputs.ground_truth, inputs.contexts) == (
        "Q",
        "A",
        "G",
        ["c1", "c2"],
    )


def test_each_criterion_is_reported_under_its_own_name() -> None:
    assert Criteria(criterion=CRITERION, name=" no  long refunds ").result_name == (
        "criteria: no long refunds"
    )
    long = Criteria(criterion="x " * 100)
    assert long.result_name.startswith("criteria: x x")
    assert len(long.result_name) <= len("criteria: ") + 60
    assert Criteria(criterion="a").cache_key() != Criteria(criterion="b").cache_key()


def test_a_judge_that_cannot_read_a_criterion_is_unsupported() -> None:
    judge = FixedJudge({}, supports=[])
    result = measure(Criteria(criterion=CRITERION), make_sample(), judge)
    assert result.score is None
    assert result.cause == "unsupported"
    assert result.reason.startswith(
        "the judge (fixed (test)) cannot check a criterion in plain words"
    )
    assert judge.asked == []


def test_a_judge_failure_is_not_judged() -> None:
    judge = FixedJudge({"criterion_check": JudgeOutcome.not_judged("refused")})
    result = measure(Criteria(criterion=CRITERION), make_sample(), judge)
    assert (result.cause, result.reason) == (
        "judge",
        "the judge did not check the criterion: refused",
    )
    assert CriterionCheck.name == "criterion_check"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "needs the criterion in plain words"),
        ({"criterion": "  "}, "needs the criterion in plain words"),
        ({"criterion": "c", "name": ""}, "a criterion's name must be a non-empty string, got ''"),
        ({"criterion": "c", "name": 3}, "a criterion's name must be a non-empty string, got 3"),
    ],
)
def test_a_missing_criterion_or_bad_name_is_refused(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Criteria(**params)
