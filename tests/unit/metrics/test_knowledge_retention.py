"""Knowledge retention driven by a fixed judge: the user's facts are the statements of the
earlier user messages; score = kept / all; not judged where there is nothing to retain."""

from __future__ import annotations

import dataclasses

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.questions import FactRetention, FactRetentions
from rag_eval_pytest.metrics.knowledge_retention import KnowledgeRetention, user_facts
from tests.unit.metrics.fakes import FixedJudge, make_sample, measure

HISTORY = (
    {"role": "user", "content": "Hi! My order number is 4417. Where is my parcel?"},
    {"role": "assistant", "content": "It is on its way. I live to serve."},
    {"role": "user", "content": "Thanks. I live in Lyon. OK, great!"},
    {"role": "assistant", "content": "Noted."},
)


def judge(*verdicts: str) -> FixedJudge:
    value = FactRetentions(
        facts=[FactRetention(index=i, verdict=v, reason=f"r{i}") for i, v in enumerate(verdicts)]  # type: ignore[arg-type]
    )
    return FixedJudge({"fact_retention": value})


def test_the_facts_are_the_statements_of_the_users_earlier_messages() -> None:
    # Questions, greetings and the assistant's words are no facts of the user.
    assert user_facts(HISTORY) == [(1, "My order number is 4417."), (2, "I live in Lyon.")]


def test_score_is_the_share_kept_and_the_forgotten_facts_come_first_naming_their_turn() -> None:
    fixed = judge("kept", "contradicted")
    sample = dataclasses.replace(make_sample(answer="You live in Paris."), history=HISTORY)
    result = measure(KnowledgeRetention(), sample, fixed)
    ((_, inputs),) = fixed.asked
    assert inputs.facts == ["My order number is 4417.", "I live in Lyon."]
    assert result.score == 0.5
    assert result.reason == (
        "1 of 2 facts the user gave kept; contradicts turn 2's \u201cI live in Lyon.\u201d"
    )
    assert [(e.text, e.verdict, e.reason) for e in result.evidence] == [
        ("I live in Lyon.", "contradicted", "said in turn 2; r1"),
        ("My order number is 4417.", "kept", "said in turn 1; r0"),
    ]


def test_nothing_to_retain_is_not_judged_never_a_score() -> None:
    fixed = judge()
    first = measure(KnowledgeRetention(), make_sample(), fixed)
    assert (first.score, first.cause) == (None, "data")
    assert "no earlier turn" in first.reason
    only_questions = (
        {"role": "user", "content": "Where is my parcel?"},
        {"role": "assistant", "content": "On its way."},
    )
    sample = dataclasses.replace(make_sample(), history=only_questions)
    asked = measure(KnowledgeRetention(), sample, fixed)
    assert (asked.score, asked.cause) == (None, "data")
    assert "state no fact" in asked.reason
    assert fixed.asked == []  # the judge is not asked


def test_a_fact_the_judge_is_unsure_of_counts_as_kept_and_bounds_the_score() -> None:
    value = FactRetentions(
        facts=[
            FactRetention(index=0, verdict="kept", reason="r0"),
            FactRetention(index=1, verdict="kept", reason="unsure: names Paris"),
        ]
    )
    fixed = FixedJudge({"fact_retention": JudgeOutcome(value, unsure=(1,))})
    sample = dataclasses.replace(make_sample(answer="Your Paris flat ..."), history=HISTORY)
    result = measure(KnowledgeRetention(), sample, fixed)
    assert (result.score, result.bounds, result.unsure) == (1.0, (0.5, 1.0), 1)
    assert result.reason == ('2 of 2 facts the user gave kept; 1 fact unsure: "I live in Lyon."')
    assert [e.verdict for e in result.evidence] == ["kept", "unsure"]
