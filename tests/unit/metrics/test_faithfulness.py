"""Faithfulness driven by a fixed judge: the share of supported statements, the statements
the judge was unsure of (a score from the decided ones, with the bounds either way), where
each statement counted against the score stands in the answer, and the not-judged paths."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.questions import StatementVerdict, StatementVerdicts
from rag_eval_pytest.metrics.base import Services
from rag_eval_pytest.metrics.faithfulness import Faithfulness
from tests.unit.metrics.fakes import FixedJudge, make_sample, measure

ANSWER = "Refunds take 30 days. They go to the card. Shipping is free. Returns are easy."


def verdicts(*pairs: tuple[str, str]) -> StatementVerdicts:
    return StatementVerdicts(
        statements=[
            StatementVerdict(statement=s, verdict=v, reason=f"because {v}")  # type: ignore[arg-type]
            for s, v in pairs
        ]
    )


def judge(value: StatementVerdicts, unsure: tuple[int, ...] = (), **kw: Any) -> FixedJudge:
    return FixedJudge({"statement_support": JudgeOutcome(value, unsure=unsure, **kw)})


def test_the_judge_is_asked_about_the_answer_against_every_context() -> None:
    fixed = judge(verdicts(("Refunds take 30 days.", "supported")))
    sample = make_sample(answer=ANSWER, contexts=["one", "two"])
    result = measure(Faithfulness(), sample, fixed)
    ((name, inputs),) = fixed.asked
    assert name == "statement_support"
    assert (inputs.answer, inputs.contexts) == (ANSWER, ["one", "two"])
    assert result.score == 1.0
    assert result.reason == "1 of 1 statements supported by the contexts"
    assert result.details == {"mode": "ragas"}


def test_the_statements_against_the_score_are_placed_in_the_answer() -> None:
    value = verdicts(
        ("Refunds take 30 days.", "supported"),
        ("Shipping is free.", "contradicted"),
        ("Gift cards never expire.", "not mentioned"),  # not a statement of this answer
    )
    result = measure(Faithfulness(), make_sample(answer=ANSWER), judge(value))
    assert result.score == pytest.approx(1 / 3)
    supported, contradicted, elsewhere = result.evidence
    assert supported.start is None  # counts for the score: not marked
    assert contradicted.verdict == "contradicted" and contradicted.reason == "because contradicted"
    assert contradicted.start is not None and contradicted.end is not None
    assert ANSWER[contradicted.start : contradicted.end] == "Shipping is free."
    assert elsewhere.start is None
    assert result.details["unmatched"] == ["Gift cards never expire."]


def test_unsure_statements_leave_a_score_of_the_decided_ones_and_its_bounds() -> None:
    value = verdicts(
        ("Refunds take 30 days.", "supported"),
        ("They go to the card.", "not mentioned"),
        ("Shipping is free.", "contradicted"),
    )
    result = measure(Faithfulness(), make_sample(answer=ANSWER), judge(value, unsure=(1,)))
    # Decided: 1 supported of 2. The unsure one would make it 1/3 (no) or 2/3 (yes).
    assert result.score == 0.5
    assert result.bounds == pytest.approx((1 / 3, 2 / 3))
    assert result.unsure == 1
    assert result.reason == (
        "1 of 2 statements supported by the contexts; 1 contradicted; "
        '1 claim unsure: "They go to the card."'
    )
    assert [e.verdict for e in result.evidence] == ["supported", "unsure", "contradicted"]


def test_an_unsure_statement_that_cannot_change_the_lenient_score_is_no_doubt() -> None:
    # deepeval mode counts "not mentioned" as faithful: an unsure statement (supported or not
    # mentioned) counts the same either way.
    value = verdicts(("a", "supported"), ("b", "not mentioned"), ("c", "contradicted"))
    result = measure(Faithfulness(mode="deepeval"), make_sample(), judge(value, unsure=(1,)))
    assert result.score == pytest.approx(2 / 3)
    assert result.bounds is None
    assert result.cause is None


def test_when_every_statement_is_unsure_it_is_not_judged_as_unsure() -> None:
    pairs = [(f"claim {n}.", "supported") for n in range(5)]
    result = measure(Faithfulness(), make_sample(), judge(verdicts(*pairs), unsure=(0, 1, 2, 3, 4)))
    assert result.score is None
    assert result.cause == "unsure"
    assert result.bounds == (0.0, 1.0)
    assert result.reason == (
        'no statement decided; 5 claims unsure: "claim 0.", "claim 1.", "claim 2." and 2 more'
    )


def test_agreement_and_tiers_reach_the_details() -> None:
    value = verdicts(("a", "supported"))
    fixed = judge(value, agreement=0.5, tiers=(("local", 1),))
    result = measure(Faithfulness(mode="deepeval"), make_sample(), fixed)
    assert result.details == {"mode": "deepeval", "agreement": 0.5, "tiers": {"local": 1}}


def test_a_judge_failure_is_not_judged_with_its_reason() -> None:
    fixed = FixedJudge({"statement_support": JudgeOutcome.not_judged("HTTP 500")})
    result = measure(Faithfulness(), make_sample(), fixed)
    assert result.score is None and result.cause == "judge"
    assert result.reason == "the judge gave no statement verdicts: HTTP 500"


def test_missing_contexts_or_judge_are_named_before_measuring() -> None:
    metric = Faithfulness()
    unknown = dataclasses.replace(make_sample(), contexts=None)
    assert metric.missing_input(unknown, Services(judge=FixedJudge({}))) == (
        "contexts unknown: the RAG system returned no contexts (contexts=None)"
    )
    assert "no judge is configured" in (metric.missing_input(make_sample(), Services()) or "")


@pytest.mark.parametrize("params", [{"mode": "strict"}, {"temperature": 0}])
def test_bad_parameters_are_refused(params: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        Faithfulness(**params)
