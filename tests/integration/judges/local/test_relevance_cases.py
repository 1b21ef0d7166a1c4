"""Relevance with the local judge: a context that holds the answer among other sentences is
relevant, an answer that answers is relevant; each in its relevant form and its irrelevant
form, through the metric code a user's run uses. These are the verdicts its rules and models
give; no kind of relevance evidence is right often enough on the benchmark's held-out halves
to decide alone, so the shipped judge gives each of them as a best guess, unsure
(tests/unit/judges/local/test_relevance_bands.py), and the judge here decides them."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.metrics.base import Sample, Services
from rag_eval_pytest.metrics.registry import default_threshold, get_metric

ONBOARDING = (
    "Every new hire is assigned a mentor for the first three months. The IT desk issues "
    "laptops on day one. Parking permits are handled by facilities."
)
OFFICE = (
    "The IT desk issues laptops on day one. Parking permits are handled by facilities. "
    "The cafeteria serves lunch from noon."
)
STORE = (
    "The store is open from 9 am to 5 pm on weekdays. Parking is free for customers. "
    "Gift cards never expire."
)
SECURITY = "Customer data is encrypted at rest with AES-256. Passwords are never sent by email."


@pytest.fixture(scope="module")
def deciding(local_judge: Any) -> Any:
    """The local judge with every kind of relevance evidence deciding."""
    from rag_eval_pytest.judges.local import LocalJudge

    return LocalJudge(
        embedder=local_judge.embedder,
        answer_model=replace(local_judge.answer_model, trusted=None),
        sentence_model=replace(local_judge.sentence_model, trusted=None),
    )


def run(judge: Any, metric: str, question: str, answer: str = "", contexts: str = "") -> Any:
    sample = Sample(
        case_key="tc",
        question=question,
        ground_truth="",
        answer=answer,
        contexts=[Context(text=contexts)] if contexts else [],
        sources=[],
        expected_contexts=None,
    )
    services = Services(judge=judge, embed=judge.embed)
    return asyncio.run(measure(get_metric(metric), sample, services))


def passes(result: Any, metric: str) -> bool:
    return bool(result.score is not None and result.score >= default_threshold(metric))


def context_relevance(judge: Any, question: str, contexts: str) -> Any:
    return run(judge, "context_relevance", question, contexts=contexts)


def answer_relevance(judge: Any, question: str, answer: str) -> Any:
    return run(judge, "answer_relevance", question, answer=answer)


def test_a_context_with_one_answering_sentence_among_unrelated_ones_is_relevant(
    deciding: Any,
) -> None:
    result = context_relevance(deciding, "Who is assigned to every new hire?", ONBOARDING)
    assert result.score == pytest.approx(1 / 3) and passes(result, "context_relevance")
    assert result.reason == (
        "1 of 3 context sentences needed for the question (1 of 1 context holds one)"
    )
    verdicts = [(e.text, e.verdict) for e in result.evidence]
    assert verdicts[0] == (
        "Every new hire is assigned a mentor for the first three months.",
        "relevant",
    )
    assert [v for _, v in verdicts[1:]] == ["not relevant", "not relevant"]


def test_a_context_without_the_answer_is_not_relevant(deciding: Any) -> None:
    result = context_relevance(deciding, "Who is assigned to every new hire?", OFFICE)
    assert result.score == 0.0 and not passes(result, "context_relevance")
    assert {e.verdict for e in result.evidence} == {"not relevant"}


def test_a_context_with_opening_hours_is_relevant_to_when_it_opens(deciding: Any) -> None:
    result = context_relevance(deciding, "When is the store open?", STORE)
    assert result.score == pytest.approx(1 / 3), result.evidence
    assert [e.verdict for e in result.evidence] == ["relevant", "not relevant", "not relevant"]
    assert passes(result, "context_relevance")


def test_a_context_without_opening_hours_is_not_relevant_to_when_it_opens(
    deciding: Any,
) -> None:
    result = context_relevance(deciding, "When is the store open?", OFFICE)
    assert result.score == 0.0


def test_a_sentence_saying_how_data_is_encrypted_is_relevant_to_how_it_is_protected(
    deciding: Any,
) -> None:
    result = context_relevance(deciding, "How is data at rest protected?", SECURITY)
    assert result.score == pytest.approx(1 / 2)
    assert [e.verdict for e in result.evidence] == ["relevant", "not relevant"]
    assert passes(result, "context_relevance")


def test_an_answer_that_restates_the_subject_and_gives_the_role_answers_who(
    deciding: Any,
) -> None:
    result = answer_relevance(
        deciding, "Who is assigned to every new hire?", "Every new hire is assigned a mentor."
    )
    assert passes(result, "answer_relevance"), (result.score, result.reason)
    assert "does not contain what the question asks for" not in result.reason


def test_an_answer_that_restates_the_subject_without_an_answer_is_not_relevant(
    deciding: Any,
) -> None:
    result = answer_relevance(
        deciding, "Who is assigned to every new hire?", "Every new hire starts on a Monday."
    )
    assert not passes(result, "answer_relevance"), (result.score, result.reason)
    assert "does not contain what the question asks for" in result.reason


@pytest.mark.parametrize(
    ("question", "vague", "given"),
    [
        (
            "Who signs off on new suppliers?",
            "New suppliers are signed off by the appropriate team.",
            "New suppliers are signed off by the procurement team.",
        ),
        (
            "When are the exam results published?",
            "Exam results are published in due course.",
            "Exam results are published in August.",
        ),
        (
            "Where are spare keys kept?",
            "Spare keys are kept at the usual place.",
            "Spare keys are kept at the front desk.",
        ),
        (
            "Where is the museum shop?",
            "The museum shop is in the museum.",
            "The museum shop is in the east wing.",
        ),
        # "after", "during" give no time by themselves; a length of time does.
        (
            "When is the next train?",
            "The next train leaves after the current one.",
            "The next train leaves after 6 pm.",
        ),
        (
            "When do refunds arrive?",
            "Refunds arrive during the refund period.",
            "Refunds arrive after 5 business days.",
        ),
        (
            "What is the return window?",
            "The return window is the period during which returns are accepted.",
            "The return window is 30 days.",
        ),
        # A year is no price; a body that appoints someone is not who holds the role.
        (
            "How much does the Pro plan cost?",
            "The Pro plan cost was raised in 2023.",
            "The Pro plan costs $12 a month.",
        ),
        (
            "Who is the conductor of the orchestra?",
            "The conductor of the orchestra is chosen by the musicians.",
            "The conductor of the orchestra is Elena Varga.",
        ),
        # A length of time is no price.
        (
            "How much is the late fee?",
            "The late fee is charged after 10 days.",
            "The late fee is $15.",
        ),
        # A number that counts another thing than the one asked about.
        (
            "How many rooms does the hotel have?",
            "The hotel has rooms on 5 floors.",
            "The hotel has 120 rooms.",
        ),
        (
            "What is the speed limit?",
            "The speed limit is enforced by 12 cameras.",
            "The speed limit is 30 mph.",
        ),
        (
            "How many people live in the town?",
            "People in the town live in 3 districts.",
            "About 12,000 people live in the town.",
        ),
        # "What city" asks where.
        (
            "What city is the head office in?",
            "The head office is in the city.",
            "The head office is in Leeds.",
        ),
    ],
)
def test_an_answer_in_words_that_fit_any_question_does_not_give_what_it_asks(
    deciding: Any, question: str, vague: str, given: str
) -> None:
    result = answer_relevance(deciding, question, vague)
    assert "does not contain what the question asks for" in result.reason, result.reason
    answered = answer_relevance(deciding, question, given)
    assert "does not contain what the question asks for" not in answered.reason


def test_opening_hours_answer_when_a_place_opens(deciding: Any) -> None:
    result = answer_relevance(
        deciding, "When is the store open?", "The store is open from 9 am to 5 pm on weekdays."
    )
    assert passes(result, "answer_relevance"), (result.score, result.reason)
    library = answer_relevance(
        deciding, "When does the library open?", "The library opens at 8:00 every morning."
    )
    assert passes(library, "answer_relevance"), (library.score, library.reason)
    for answered in (result, library):
        assert "does not contain what the question asks for" not in answered.reason


def test_an_answer_about_the_place_without_a_time_does_not_answer_when(deciding: Any) -> None:
    result = answer_relevance(deciding, "When is the store open?", "The store sells shoes.")
    assert not passes(result, "answer_relevance"), (result.score, result.reason)


def test_the_means_of_protection_answers_how_data_is_protected(deciding: Any) -> None:
    result = answer_relevance(
        deciding, "How is data at rest protected?", "Data at rest is encrypted with AES-256."
    )
    assert passes(result, "answer_relevance"), (result.score, result.reason)


def test_an_answer_about_something_else_does_not_answer_how_data_is_protected(
    deciding: Any,
) -> None:
    result = answer_relevance(
        deciding, "How is data at rest protected?", "Our office is closed on public holidays."
    )
    assert not passes(result, "answer_relevance"), (result.score, result.reason)


def test_a_list_of_names_answers_which(deciding: Any) -> None:
    question = "Which payment methods do you accept?"
    listed = answer_relevance(deciding, question, "We accept Visa, Mastercard and PayPal.")
    assert passes(listed, "answer_relevance"), (listed.score, listed.reason)
    assert "besides the items it asks for" in listed.reason
    due = answer_relevance(deciding, question, "Payment is due within 14 days.")
    assert not passes(due, "answer_relevance"), (due.score, due.reason)


RETURNS = (
    "Our flagship store is in the city centre. Items can be returned within 30 days. "
    "Gift cards are non-refundable."
)


def test_the_sentence_that_gives_the_amount_a_question_names_is_needed(deciding: Any) -> None:
    result = context_relevance(deciding, "What is the return window?", RETURNS)
    assert [e.verdict for e in result.evidence] == ["not relevant", "relevant", "not relevant"]
    assert passes(result, "context_relevance")
    hotel = "The hotel has 120 rooms. Guests can check in from 3 pm."
    result = context_relevance(deciding, "What time is check-in?", hotel)
    assert [e.verdict for e in result.evidence] == ["not relevant", "relevant"]


def test_a_passage_without_the_amount_a_question_names_is_not_relevant(deciding: Any) -> None:
    store = "Our flagship store is in the city centre. Gift wrapping is free in December."
    result = context_relevance(deciding, "What is the return window?", store)
    assert result.score == 0.0


def test_a_hedge_followed_by_the_answer_answers(deciding: Any) -> None:
    question = "When does the shop open?"
    hedged = answer_relevance(deciding, question, "I don't know for certain. It opens at 9 am.")
    assert passes(hedged, "answer_relevance"), (hedged.score, hedged.reason)
    pointer = answer_relevance(deciding, question, "I don't know. Please ask the front desk.")
    assert pointer.score == 0.0 and "declines" in pointer.reason
