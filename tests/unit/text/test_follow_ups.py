"""A follow-up question is read after the earlier question it leans on; a complete question
alone, so an answer to a new topic is not judged against the old one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

import pytest

from rag_eval_pytest.data.response import Message
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


class _Counted(Sequence[Message]):
    """A conversation's history that counts the messages read from it."""

    def __init__(self, messages: list[Message]) -> None:
        self.messages, self.read = messages, 0

    def __len__(self) -> int:
        return len(self.messages)

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...

    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        self.read += 1
        return self.messages[index]


def test_a_turn_late_in_a_long_conversation_reads_back_only_what_its_question_leans_on() -> None:
    """Each of 10,000 turns reading every earlier message made a conversation quadratic in
    its turns (50 million messages read to measure one metric)."""
    messages: list[Message] = []
    for n in range(10_000):
        question = "And for business accounts?" if n % 2 else f"What does plan {n} cost?"
        messages += [
            {"role": "user", "content": question},
            {"role": "assistant", "content": f"{n} EUR a month."},
        ]
    history = _Counted(messages)

    def turn(question: str) -> Sample:
        return Sample("c/turn-10001", question, "", "", None, [], None, history=history)

    assert turn("And for students?").question_in_context == (
        "What does plan 9998 cost?\nAnd for business accounts?\nAnd for students?"
    )
    assert history.read <= 6
    history.read = 0
    assert turn("Do you ship to Canada?").question_in_context == "Do you ship to Canada?"
    assert history.read <= 2
