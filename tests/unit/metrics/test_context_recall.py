"""Context recall driven by a fixed judge: the ground truth split into sentences, one
attribution verdict each, score = attributed / all, evidence in sentence order."""

from __future__ import annotations

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.questions import Attributions, SentenceAttribution
from rag_eval_pytest.metrics.context_recall import ContextRecall
from tests.unit.metrics.fakes import FixedJudge, make_sample, measure

TRUTH = "Refunds are paid within 30 days. They go to the original card. Shipping is free."


def attributions(*flags: bool, order: list[int] | None = None) -> FixedJudge:
    indexes = order if order is not None else list(range(len(flags)))
    value = Attributions(
        sentences=[
            SentenceAttribution(index=i, attributed=flags[i], reason=f"r{i}") for i in indexes
        ]
    )
    return FixedJudge({"ground_truth_attribution": value})


def test_the_ground_truth_is_asked_sentence_by_sentence() -> None:
    judge = attributions(True, False, True)
    result = measure(ContextRecall(), make_sample(ground_truth=TRUTH, contexts=["a", "b"]), judge)
    ((_, inputs),) = judge.asked
    assert inputs.ground_truth_sentences == [
        "Refunds are paid within 30 days.",
        "They go to the original card.",
        "Shipping is free.",
    ]
    assert inputs.contexts == ["a", "b"]
    assert result.score == 2 / 3
    assert result.reason == "2 of 3 ground-truth sentences found in the contexts"


def test_evidence_follows_the_sentences_whatever_order_the_judge_answers_in() -> None:
    judge = attributions(True, False, True, order=[2, 0, 1])
    result = measure(ContextRecall(), make_sample(ground_truth=TRUTH), judge)
    assert [(e.text, e.verdict, e.reason) for e in result.evidence] == [
        ("Refunds are paid within 30 days.", "attributed", "r0"),
        ("They go to the original card.", "not found", "r1"),
        ("Shipping is free.", "attributed", "r2"),
    ]


def test_no_contexts_score_zero_and_a_ground_truth_without_sentences_is_not_judged() -> None:
    judge = attributions(True)
    assert measure(ContextRecall(), make_sample(contexts=[]), judge).score == 0.0
    result = measure(ContextRecall(), make_sample(ground_truth="..."), judge)
    assert result.score is None
    assert result.reason == "the ground truth has no sentence to attribute"
    assert judge.asked == []


def test_a_judge_failure_is_not_judged() -> None:
    judge = FixedJudge({"ground_truth_attribution": JudgeOutcome.not_judged("bad JSON")})
    result = measure(ContextRecall(), make_sample(ground_truth=TRUTH), judge)
    assert result.cause == "judge"
    assert result.reason == "the judge gave no attribution verdicts: bad JSON"


def test_a_sentence_the_judge_is_unsure_of_bounds_the_score() -> None:
    """An unsure sentence may be attributed or not: the score counts the decided sentences,
    the bounds count it each way, and the evidence marks it."""
    value = Attributions(
        sentences=[
            SentenceAttribution(index=0, attributed=True, reason="r0"),
            SentenceAttribution(index=1, attributed=False, reason="r1"),
            SentenceAttribution(index=2, attributed=True, reason="r2"),
        ]
    )
    judge = FixedJudge({"ground_truth_attribution": JudgeOutcome(value, unsure=(1,))})
    result = measure(ContextRecall(), make_sample(ground_truth=TRUTH), judge)
    assert (result.score, result.unsure, result.bounds) == (1.0, 1, (2 / 3, 1.0))
    assert [e.verdict for e in result.evidence] == ["attributed", "unsure", "attributed"]
    assert result.reason == (
        "2 of 2 ground-truth sentences found in the contexts; "
        '1 sentence unsure: "They go to the original card."'
    )
