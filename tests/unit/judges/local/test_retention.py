"""The local judge's knowledge retention: a fact the user gave is contradicted when its
conflict checks find the answer stating otherwise, asked again when a question of the answer
asks for it, kept otherwise; deterministic, without the model."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.retention import retention
from rag_eval_pytest.judges.questions import RetentionInput

FACTS = [
    "My order number is 4417.",
    "I live in Lyon.",
    "I have a business account.",
    "I paid 30 EUR on 3 March 2024.",
]


def verdicts(answer: str) -> dict[int, str]:
    """The facts the answer does not keep, by index, with their verdict."""
    found = retention(RetentionInput(facts=FACTS, question="Any news?", answer=answer))
    assert [v.index for v in found.facts] == list(range(len(FACTS)))
    return {v.index: v.verdict for v in found.facts if v.verdict != "kept"}


@pytest.mark.parametrize(
    ("answer", "forgotten"),
    [
        # a number without a unit bound to the same word: the order's number
        ("Order 4471 was delivered yesterday.", {0: "contradicted"}),
        # a name in the fact's place
        ("You live in Paris.", {1: "contradicted"}),
        # a negation
        ("You do not have a business account.", {2: "contradicted"}),
        # a date
        ("You paid 30 EUR on 5 March 2024.", {3: "contradicted"}),
        # questions asking for what a fact gave
        ("Sure. What is your order number?", {0: "asked again"}),
        ("Which city do you live in?", {1: "asked again"}),
    ],
)
def test_a_conflict_or_a_question_for_a_given_fact_is_found(
    answer: str, forgotten: dict[int, str]
) -> None:
    assert verdicts(answer) == forgotten


@pytest.mark.parametrize(
    "answer",
    [
        "Your order 4417 has shipped to Lyon.",  # the same number, the same city
        "As a business account holder you get free shipping.",
        # another number of the same unit about something else, and an offer of help
        "The monthly fee is 5 EUR. Anything else I can help you with?",
        "What would you like to do next?",  # a question that asks for no fact
        "The weather is nice today.",
    ],
)
def test_an_answer_that_agrees_or_does_not_touch_a_fact_keeps_it(answer: str) -> None:
    assert verdicts(answer) == {}


def test_the_reason_says_what_the_answer_said_and_what_the_user_said() -> None:
    found = retention(
        RetentionInput(facts=FACTS[:1], question="?", answer="Order 4471 was delivered.")
    )
    assert found.facts[0].reason == (
        "the answer says \u201cOrder 4471 was delivered.\u201d: claims 4471; the user said 4417"
    )
