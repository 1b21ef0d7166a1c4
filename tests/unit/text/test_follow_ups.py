"""A follow-up question is read after the earlier question it leans on; a complete question
alone, so an answer to a new topic is not judged against the old one."""

from __future__ import annotations

import pytest

from rag_eval_pytest.metrics.base import Sample
from rag_eval_pytest.text.follow_ups import in_context, is_follow_up


@pytest.mark.parametrize(
    "question",
    [
        "And for business accounts?",
        "What about students?",
        "How about next week?",
        "How long is it valid?",
        "Which one is cheaper?",
        "Can I pay with that?",
        "Why?",
        "How quickly?",
    ],
)
def test_a_question_that_leans_on_the_one_before_is_a_follow_up(question: str) -> None:
    assert is_follow_up(question)


@pytest.mark.parametrize(
    "question",
    [
        "Do you ship to Canada?",
        "Is there a discount for students?",
        "What does a personal account cost?",
        "Which payment methods do you accept?",
    ],
)
def test_a_question_that_names_its_subject_is_complete(question: str) -> None:
    assert not is_follow_up(question)


def test_a_chain_of_follow_ups_reaches_back_to_the_latest_complete_question() -> None:
    earlier = ["Do you ship to Canada?", "What does a personal account cost?", "And for business?"]
    assert in_context("And for students?", earlier) == (
        "What does a personal account cost?\nAnd for business?\nAnd for students?"
    )
    assert in_context("Is there a discount for students?", earlier) == (
        "Is there a discount for students?"
    )


def test_a_turn_of_a_conversation_gives_the_judges_its_question_in_context() -> None:
    def turn(question: str) -> Sample:
        history = (
            {"role": "user", "content": "What does a personal account cost?"},
            {"role": "assistant", "content": "5 EUR a month."},
        )
        return Sample("c/turn-2", question, "", "", None, [], None, history=history)

    assert turn("And for business accounts?").question_in_context == (
        "What does a personal account cost?\nAnd for business accounts?"
    )
    assert turn("Do you ship to Canada?").question_in_context == "Do you ship to Canada?"
