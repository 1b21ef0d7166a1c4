"""Context relevance driven by a fixed judge: every context split into sentences, score =
needed sentences / judged sentences, the reason counting the contexts that hold one, each
sentence's evidence labelled with its context, and a cap on very long retrievals."""

from __future__ import annotations

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.questions import SentenceRelevance, SentenceRelevances
from rag_eval_pytest.metrics.context_relevance import ContextRelevance
from tests.unit.metrics.fakes import FixedJudge, make_sample, measure

CONTEXTS = ["Refunds take 30 days. Our office is blue.", "Cats sleep a lot."]


def relevances(*flags: bool) -> FixedJudge:
    value = SentenceRelevances(
        sentences=[SentenceRelevance(index=i, relevant=f) for i, f in enumerate(flags)]
    )
    return FixedJudge({"context_sentence_relevance": value})


def test_needed_sentences_over_all_with_the_contexts_that_hold_one() -> None:
    judge = relevances(True, False, False)
    sample = make_sample(contexts=CONTEXTS, sources=["refunds.md", None])
    result = measure(ContextRelevance(), sample, judge)
    ((_, inputs),) = judge.asked
    assert inputs.context_sentences == [
        "Refunds take 30 days.",
        "Our office is blue.",
        "Cats sleep a lot.",
    ]
    assert result.score == 1 / 3
    assert result.reason == (
        "1 of 3 context sentences needed for the question (1 of 2 contexts hold one)"
    )
    assert [(e.verdict, e.source) for e in result.evidence] == [
        ("relevant", "refunds.md"),
        ("not relevant", "refunds.md"),
        ("not relevant", "context 2"),
    ]


def test_one_context_is_said_in_the_singular() -> None:
    result = measure(
        ContextRelevance(),
        make_sample(contexts=["Refunds take 30 days. Our office is blue."]),
        relevances(True, True),
    )
    assert result.reason.endswith("(1 of 1 context holds one)")
    assert result.score == 1.0


def test_a_long_retrieval_is_cut_with_a_warning() -> None:
    contexts = [f"Sentence number {n}." for n in range(5)]
    judge = relevances(True, False)
    result = measure(ContextRelevance(max_sentences=2), make_sample(contexts=contexts), judge)
    assert len(judge.asked[0][1].context_sentences) == 2
    assert result.warnings == ["contexts have 5 sentences; judged the first 2 (max_sentences)"]
    assert result.score == 0.5


def test_no_contexts_or_no_sentences_score_zero_without_asking() -> None:
    judge = relevances(True)
    empty = measure(ContextRelevance(), make_sample(contexts=[]), judge)
    assert empty.score == 0.0 and "no contexts" in empty.reason
    blank = measure(ContextRelevance(), make_sample(contexts=["   "]), judge)
    assert (blank.score, blank.reason) == (0.0, "the contexts contain no sentence")
    assert judge.asked == []


def test_no_verdict_at_all_is_not_judged() -> None:
    result = measure(
        ContextRelevance(),
        make_sample(),
        FixedJudge({"context_sentence_relevance": SentenceRelevances(sentences=[])}),
    )
    assert result.score is None
    assert result.reason == "the judge gave no sentence verdicts"
    failed = FixedJudge({"context_sentence_relevance": JudgeOutcome.not_judged("refused")})
    assert measure(ContextRelevance(), make_sample(), failed).reason == (
        "the judge gave no sentence verdicts: refused"
    )
