"""Answer correctness driven by a fixed judge: F1 over the facts it lists, the judge's "same
information" when it lists none, one evidence row per fact, and the not-judged path."""

from __future__ import annotations

from typing import Any

import pytest

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.questions import Equivalence
from rag_eval_pytest.metrics.answer_correctness import AnswerCorrectness, fact_f1
from rag_eval_pytest.metrics.base import Services
from tests.unit.metrics.fakes import FixedJudge, make_sample, measure


def equivalence(same: bool, matching: int = 0, missing: int = 0, wrong: int = 0) -> FixedJudge:
    value = Equivalence(
        same_information=same,
        matching_facts=[f"match {n}" for n in range(matching)],
        missing_facts=[f"missing {n}" for n in range(missing)],
        wrong_or_extra_facts=[f"wrong {n}" for n in range(wrong)],
    )
    return FixedJudge({"answer_equivalence": value})


@pytest.mark.parametrize(
    ("counts", "expected"),
    [((3, 0, 0), 1.0), ((2, 1, 1), 2 / 3), ((1, 2, 0), 0.5), ((0, 1, 1), 0.0), ((0, 0, 0), None)],
)
def test_fact_f1_is_tp_over_tp_plus_half_the_errors(
    counts: tuple[int, int, int], expected: float | None
) -> None:
    assert fact_f1(*counts) == (pytest.approx(expected) if expected is not None else None)


def test_the_score_and_reason_count_each_kind_of_fact() -> None:
    fixed = equivalence(False, matching=2, missing=1, wrong=1)
    result = measure(AnswerCorrectness(), make_sample(), fixed)
    assert result.score == pytest.approx(2 / 3)
    assert result.reason == (
        "the answer does not convey the ground truth's information "
        "(2 matching, 1 missing, 1 wrong or extra facts)"
    )
    assert [(e.text, e.verdict) for e in result.evidence] == [
        ("match 0", "matching"),
        ("match 1", "matching"),
        ("missing 0", "missing"),
        ("wrong 0", "wrong"),
    ]
    assert result.details == {"same_information": False}
    assert result.usage.judge_calls == 1


@pytest.mark.parametrize(("same", "score"), [(True, 1.0), (False, 0.0)])
def test_with_no_fact_listed_the_verdict_decides(same: bool, score: float) -> None:
    result = measure(AnswerCorrectness(), make_sample(), equivalence(same))
    assert result.score == score


def test_the_judge_compares_the_answer_with_the_ground_truth() -> None:
    fixed = equivalence(True, matching=1)
    measure(AnswerCorrectness(), make_sample(answer="A", ground_truth="G", question="Q"), fixed)
    ((_, inputs),) = fixed.asked
    assert (inputs.question, inputs.answer, inputs.ground_truth) == ("Q", "A", "G")


def test_an_empty_answer_scores_zero_without_asking() -> None:
    fixed = equivalence(True, matching=1)
    result = measure(AnswerCorrectness(), make_sample(answer="  "), fixed)
    assert (result.score, result.reason) == (0.0, "the answer is empty")
    assert fixed.asked == []


def test_a_judge_failure_is_not_judged() -> None:
    fixed = FixedJudge({"answer_equivalence": JudgeOutcome.not_judged("timed out")})
    result = measure(AnswerCorrectness(), make_sample(), fixed)
    assert result.score is None and result.cause == "judge"
    assert result.reason == "the judge did not compare the answers: timed out"


def test_it_needs_a_ground_truth_and_names_its_companion() -> None:
    metric = AnswerCorrectness()
    reason = metric.missing_input(make_sample(ground_truth=" "), Services(judge=equivalence(True)))
    assert reason == "the case has no ground_truth"
    assert metric.companion == "answer_similarity"


def unsure_equivalence(unsure: tuple[int, ...], matching: int, missing: int, wrong: int) -> Any:
    fixed = equivalence(False, matching=matching, missing=missing, wrong=wrong)
    value = fixed.answers["answer_equivalence"]
    return FixedJudge({"answer_equivalence": JudgeOutcome(value, unsure=unsure)})


def test_unsure_facts_leave_the_score_of_the_decided_ones_and_its_bounds() -> None:
    # 1 matching, 1 missing (unsure), 1 wrong: decided F1 over 1 matching and 1 wrong.
    result = measure(AnswerCorrectness(), make_sample(), unsure_equivalence((1,), 1, 1, 1))
    assert result.score == pytest.approx(fact_f1(1, 0, 1))
    assert result.unsure == 1
    assert result.bounds == (pytest.approx(fact_f1(1, 1, 1)), pytest.approx(fact_f1(2, 0, 1)))
    assert [e.verdict for e in result.evidence] == ["matching", "unsure", "wrong"]
    assert result.reason.endswith('; 1 fact unsure: "missing 0"')


def test_a_comparison_with_every_fact_unsure_is_not_judged() -> None:
    result = measure(AnswerCorrectness(), make_sample(), unsure_equivalence((0,), 0, 1, 0))
    assert result.score is None and result.cause == "unsure"
    assert result.bounds == (0.0, 1.0)
