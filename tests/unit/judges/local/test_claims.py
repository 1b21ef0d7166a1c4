"""A bare "Yes." or "No." is checked as the statement of the yes/no question it answers: the
question's verb goes after its whole subject, names and lists of names included."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.claims import (
    bare_no,
    compares_two,
    declines,
    split_claims,
    yes_no_statement,
)


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        ("Is the pool heated?", "Yes.", "The pool is heated."),
        ("Does the hotel allow pets?", "No.", "The hotel does not allow pets."),
        ("Can employees carry over days?", "yes", "Employees can carry over days."),
        ("Is Paris the capital of France?", "yes", "Paris is the capital of France."),
        (
            "Are Manhattan West and Singer Building both projects in New York?",
            "yes",
            "Manhattan West and Singer Building are both projects in New York.",
        ),
        (
            "Are both Simon Wincer and Patrice Leconte film directors?",
            "yes",
            "Both Simon Wincer and Patrice Leconte are film directors.",
        ),
        (
            "Were Pavel Urysohn and Leonid Levin known for the same type of work?",
            "no",
            "Pavel Urysohn and Leonid Levin were not known for the same type of work.",
        ),
    ],
)
def test_the_verb_follows_the_whole_subject(question: str, answer: str, statement: str) -> None:
    assert yes_no_statement(answer, question) == statement


def test_no_statement_without_a_yes_no_question() -> None:
    assert yes_no_statement("Yes.", "Who runs the pool?") is None
    assert yes_no_statement("The pool is heated.", "Is the pool heated?") is None


@pytest.mark.parametrize(
    ("answer", "declined"),
    [
        ("I don't know.", True),
        ("I cannot say.", True),
        ("I don't know. Please ask the front desk.", True),
        ("The context does not say. You can call the shop.", True),
        ("I cannot say. I suggest you check the website.", True),
        ("I don't know for sure. You can park in the garage.", False),
        ("I don't know. The shop opens at 9 am.", False),
        ("I don't know. The shop opens at 9 am. It closes at 5 pm.", False),
        ("The shop opens at 9 am.", False),
    ],
)
def test_an_answer_declines_only_when_it_states_no_fact(answer: str, declined: bool) -> None:
    assert declines(answer) is declined


def test_a_comparison_is_one_that_a_yes_no_question_of_two_things_asks_for() -> None:
    question = "Were Eatza Pizza and Your Pie founded in the same state?"
    assert compares_two("Eatza Pizza and Your Pie were not founded in the same state.", question)
    assert compares_two("Yes, both were founded in Arizona.", question)
    assert not compares_two("Eatza Pizza was founded in Arizona.", question)
    assert not compares_two("Both shops are open.", "Which shops are open on both days?")


@pytest.mark.parametrize(
    ("answer", "bare"),
    [("No.", True), (" nope ", True), ("No, it is closed.", False), ("Yes.", False)],
)
def test_a_bare_no_is_the_whole_answer(answer: str, bare: bool) -> None:
    assert bare_no(answer) is bare


def test_an_answers_formatting_and_sign_off_are_no_claims() -> None:
    answer = (
        "## Refunds\n"
        "Refunds are available within **30 days** of purchase [1]. See the "
        "[refund policy](https://shop.example/refunds) for details [2, 3].\n\n"
        "Let me know if you have any other questions!\n\n"
        "Sources: policy.md, faq.md"
    )
    assert split_claims(answer) == [
        "Refunds are available within 30 days of purchase.",
        "See the refund policy for details.",
    ]
    assert split_claims("Feel free to reach out if you need anything else.") == []
    assert split_claims("References: [1] policy.md") == []


def test_semicolons_inside_brackets_part_no_claims() -> None:
    # An aside's semicolons (names in other scripts) leave the sentence one claim.
    levin = (
        "Olga Petrova ( ; Russian: Ольга Петрова ; Ukrainian: Ольга Петрова ; born May 3,"
        " 1950) is a Soviet-born chemist."
    )
    assert split_claims(levin) == [levin]
    # Semicolons outside brackets still part clauses, an aside's kept whole.
    assert split_claims(
        "Plan A costs $10 a month; Plan B costs $20 a month (billed yearly; no refunds)."
    ) == ["Plan A costs $10 a month.", "Plan B costs $20 a month (billed yearly; no refunds)."]


@pytest.mark.parametrize(
    ("sentence", "claims"),
    [
        (
            "Yes, both the Oslo branch and the Bergen branch were renovated in 2022.",
            [
                "The Oslo branch were renovated in 2022.",
                "The Bergen branch were renovated in 2022.",
            ],
        ),
        (
            "Both Nordlys and Brightpath belong to one parent company.",
            ["Nordlys belong to one parent company.", "Brightpath belong to one parent company."],
        ),
        (
            "Mia Berg and Tom Lund are both certified trainers.",
            ["Mia Berg are certified trainers.", "Tom Lund are certified trainers."],
        ),
    ],
)
def test_a_fact_given_to_both_of_two_subjects_is_a_claim_about_each(
    sentence: str, claims: list[str]
) -> None:
    # Each holds only if both do: one of them the contexts deny is a claim of its own.
    assert split_claims(sentence) == claims


@pytest.mark.parametrize(
    "sentence",
    [
        # What the two are to each other, and two words that both qualify one noun.
        "Both Nordlys and Brightpath belong to the same parent company.",
        "Both Mia Berg and Tom Lund trained together in Oslo.",
        "Both paper and plastic bags are recycled at the front desk.",
    ],
)
def test_a_fact_of_two_together_stays_one_claim(sentence: str) -> None:
    assert split_claims(sentence) == [sentence]
