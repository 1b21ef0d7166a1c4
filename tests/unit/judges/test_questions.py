"""The typed questions' own checks: one verdict per item, by index, and what a partial answer
keeps."""

from __future__ import annotations

from rag_eval_pytest.judges.questions import (
    FactRetention,
    FactRetentions,
    RetentionInput,
    UserFactRetention,
)

INPUTS = RetentionInput(
    facts=["My order number is 4417.", "I live in Lyon."], question="Any news?", answer="Hi."
)


def retained(*indexes: int) -> FactRetentions:
    return FactRetentions(
        facts=[FactRetention(index=i, verdict="kept", reason="ok") for i in indexes]
    )


def test_fact_retention_wants_one_verdict_per_fact() -> None:
    question = UserFactRetention()
    assert question.check(INPUTS, retained(1, 0)) == []
    assert question.check(INPUTS, retained(0)) == [
        "expected one verdict for each of 2 facts, got indexes [0]"
    ]
    assert question.check(INPUTS, retained(0, 1, 2)) != []


def test_fact_retention_keeps_the_verdicts_whose_index_matches() -> None:
    salvaged = UserFactRetention().salvage(INPUTS, retained(1, 1, 5))
    assert salvaged is not None
    kept, note = salvaged
    assert [v.index for v in kept.facts] == [1]
    assert note == (
        "judged 1 of 2 facts; no verdict for index 0; 2 extra or duplicate verdicts ignored"
    )
    assert UserFactRetention().salvage(INPUTS, retained(7)) is None


def test_the_facts_the_question_and_the_answer_are_delimited_as_data() -> None:
    assert UserFactRetention().untrusted(INPUTS) == {
        "facts": INPUTS.facts,
        "question": "Any news?",
        "answer": "Hi.",
    }
