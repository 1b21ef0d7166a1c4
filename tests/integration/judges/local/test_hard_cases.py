"""Answers a reader sees as supported pass, answers with a swapped fact fail: each case in
its supported form and its wrong form, with the verdict and the reason a user would read."""

from __future__ import annotations

import asyncio
from typing import Any

from rag_eval_pytest.judges.local import trust
from rag_eval_pytest.judges.questions import (
    AnswerEquivalence,
    EquivalenceInput,
    StatementsInput,
    StatementSupport,
)

from .conftest import ask

SECURITY = "Customer data is encrypted at rest with AES-256. Passwords are never sent by email."
PHOTOSYNTHESIS = "During photosynthesis, plants absorb carbon dioxide and release oxygen."
PAINTER = "The French-born painter moved to Spain in 1901."
SICK_LEAVE = [
    "Full-time staff receive 12 days of paid sick leave annually.",
    "Unused SL carries over, up to 3 days of SL per year.",
]
TREATY = ["The treaty negotiations took place in Geneva.", "The treaty was signed in 1994."]
AUSTRALIA = "Australia is a country in Oceania. Its capital city is Canberra."
FREEZING = "Water freezes at 0 degrees Celsius (32 degrees Fahrenheit)."


def one(judge: Any, answer: str, contexts: list[str], question: str = "") -> Any:
    inputs = StatementsInput(question=question, answer=answer, contexts=contexts)
    [statement] = ask(judge, StatementSupport(), inputs).statements
    return statement


def same(judge: Any, answer: str, truth: str) -> Any:
    inputs = EquivalenceInput(question="", answer=answer, ground_truth=truth)
    return ask(judge, AnswerEquivalence(), inputs)


def test_an_identifier_with_digits_copied_from_the_context_is_supported(local_judge: Any) -> None:
    assert one(local_judge, "Data at rest is encrypted with AES-256.", [SECURITY]).verdict == (
        "supported"
    )
    gpt = one(local_judge, "The assistant runs on GPT-4o.", ["The assistant runs on GPT-4o."])
    assert gpt.verdict == "supported"


def test_an_identifier_with_other_digits_is_contradicted(local_judge: Any) -> None:
    wrong = one(local_judge, "Data at rest is encrypted with AES-128.", [SECURITY])
    assert wrong.verdict == "contradicted"
    assert "AES-128" in wrong.reason and "AES-256" in wrong.reason


def test_a_replaced_name_fails_answer_correctness(local_judge: Any) -> None:
    truth = "The capital of Australia is Canberra."
    wrong = same(local_judge, "The capital of Australia is Sydney.", truth)
    assert not wrong.same_information
    assert wrong.wrong_or_extra_facts == ["The capital of Australia is Sydney."]
    assert same(local_judge, truth, truth).same_information


def test_a_replaced_key_term_is_contradicted(local_judge: Any) -> None:
    wrong = one(local_judge, "Photosynthesis releases carbon dioxide.", [PHOTOSYNTHESIS])
    assert wrong.verdict == "contradicted"
    assert "oxygen" in wrong.reason
    right = one(local_judge, "Photosynthesis releases oxygen.", [PHOTOSYNTHESIS])
    assert right.verdict == "supported"
    assert same(
        local_judge, "Photosynthesis releases carbon dioxide.", "Photosynthesis releases oxygen."
    ).wrong_or_extra_facts


def test_a_conversion_in_parentheses_is_not_a_conflict(local_judge: Any) -> None:
    right = same(local_judge, "Water freezes at 0 degrees Celsius.", FREEZING)
    assert right.same_information, right
    wrong = same(local_judge, "Water freezes at 10 degrees Celsius.", FREEZING)
    assert not wrong.same_information
    assert wrong.wrong_or_extra_facts == ["Water freezes at 10 degrees Celsius."]


def test_a_demonym_names_its_country(local_judge: Any) -> None:
    assert one(local_judge, "The painter was from France.", [PAINTER]).verdict == "supported"
    wrong = one(local_judge, "The painter was from Italy.", [PAINTER])
    assert wrong.verdict == "contradicted"
    assert "Italy" in wrong.reason


def test_a_number_is_checked_against_the_passage_that_supports_it(local_judge: Any) -> None:
    right = one(local_judge, "Staff get 12 days of SL per year.", SICK_LEAVE)
    assert right.verdict == "supported", right.reason
    assert "context 1" in right.reason
    wrong = one(local_judge, "Staff get 20 days of SL per year.", SICK_LEAVE)
    assert wrong.verdict == "contradicted"
    assert wrong.reason.startswith("claims 20 days")


def test_a_date_that_another_context_contradicts_is_caught(local_judge: Any) -> None:
    wrong = one(local_judge, "The treaty was signed in Geneva in 1995.", TREATY)
    assert wrong.verdict == "contradicted"
    assert "claims 1995; the context says 1994" in wrong.reason
    assert one(local_judge, "The treaty was signed in Geneva in 1994.", TREATY).verdict == (
        "supported"
    )


def test_a_one_claim_paraphrase_is_supported(local_judge: Any) -> None:
    right = one(local_judge, "Canberra is the capital of Australia.", [AUSTRALIA])
    assert right.verdict == "supported", right.reason
    wrong = one(local_judge, "Melbourne is the capital of Australia.", [AUSTRALIA])
    assert wrong.verdict == "contradicted"
    assert "Melbourne" in wrong.reason and "Canberra" in wrong.reason


def test_a_bare_yes_is_checked_as_the_question_it_answers(local_judge: Any) -> None:
    question = "Is the store open on Sundays?"
    closed = ["The store is closed on Sundays."]
    wrong = one(local_judge, "Yes.", closed, question)
    assert wrong.statement == "The store is open on Sundays."
    assert wrong.verdict == "contradicted"
    assert "\u201copen\u201d" in wrong.reason and "\u201cclosed\u201d" in wrong.reason
    assert one(local_judge, "No.", closed, question).verdict == "supported"
    opened = ["The store is open on Sundays from 10am to 4pm."]
    assert one(local_judge, "Yes.", opened, question).verdict == "supported"


def test_a_yes_that_restates_the_question_is_not_a_reordering(local_judge: Any) -> None:
    # The demo's "Is my data encrypted?" answered "Yes. ...": read with its question, the
    # statement repeats the question's words, which is no reordering of the evidence.
    question = "Is my data encrypted?"
    security = ["Customer data is encrypted at rest with AES-256. Passwords are never sent."]
    yes = one(local_judge, "Yes.", security, question)
    assert yes.statement == "My data is encrypted."
    assert yes.verdict == "supported", yes.reason
    plaintext = ["Customer data is stored in plain text."]
    assert one(local_judge, "Yes.", plaintext, question).verdict != "supported"


def test_a_yes_or_no_to_a_comparison_of_two_things_is_unsure(local_judge: Any) -> None:
    # "Both" and "the same" hold only by putting two facts together: no passage states them.
    question = "Were the Oslo and the Bergen offices opened in the same year?"
    contexts = ["The Oslo office opened in 2015.", "The Bergen office opened in 2018."]
    for answer in ("No.", "Yes, both offices were opened in 2015."):
        inputs = StatementsInput(question=question, answer=answer, contexts=contexts)
        outcome = asyncio.run(local_judge.ask(StatementSupport(), inputs))
        assert outcome.unsure == (0,), answer
        assert outcome.value.statements[0].reason.startswith("unsure ("), answer
    # A fact of one of the two is checked as any other: no comparison, and supported (its
    # kind of evidence may still leave it unsure).
    answer = "The Oslo office opened in 2015."
    _, [verdict] = asyncio.run(local_judge.statement_support(answer, contexts, question))
    assert (verdict.verdict, verdict.basis != trust.COMPARISON) == ("supported", True)


def test_a_bare_no_the_contexts_neither_state_nor_contradict_is_unsure(local_judge: Any) -> None:
    question = "Can the course be taken online?"
    inputs = StatementsInput(
        question=question, answer="No.", contexts=["The course is taught in person only."]
    )
    outcome = asyncio.run(local_judge.ask(StatementSupport(), inputs))
    assert outcome.unsure == (0,)
    assert outcome.value.statements[0].reason.startswith("unsure (")
    # A context that says the opposite decides it.
    online = ["The course can be taken online."]
    assert one(local_judge, "No.", online, question).verdict == "contradicted"


def test_a_bare_yes_without_a_question_states_nothing(local_judge: Any) -> None:
    inputs = StatementsInput(question="", answer="Yes.", contexts=["The store is closed."])
    assert ask(local_judge, StatementSupport(), inputs).statements == []


def test_only_a_contradiction_is_contradicted_a_claim_the_contexts_lack_is_not_mentioned(
    local_judge: Any,
) -> None:
    unmentioned = one(
        local_judge, "The store sells garden furniture.", ["The store is closed on Sundays."]
    )
    assert unmentioned.verdict == "not mentioned"
    assert "not mentioned" in unmentioned.reason
    contradicted = one(
        local_judge, "The store is open on Sundays.", ["The store is closed on Sundays."]
    )
    assert contradicted.verdict == "contradicted"


def test_a_term_replaced_inside_the_claim_is_unsure_and_never_supported(local_judge: Any) -> None:
    # "resin" for "nectar" is another thing, "role" for "position" the same one: only reading
    # both settles it, and the reason names both words.
    bees = ["Bees collect nectar and pollen from flowers."]
    wrong = one(local_judge, "Bees collect resin from flowers.", bees, "What do bees collect?")
    assert wrong.verdict != "supported"
    assert wrong.reason.startswith("unsure")
    assert "resin" in wrong.reason and "nectar" in wrong.reason
    right = one(local_judge, "Bees collect nectar from flowers.", bees, "What do bees collect?")
    assert right.verdict == "supported"


def test_good_and_poor_are_opposites(local_judge: Any) -> None:
    copper = ["Copper is a good conductor of electricity and heat."]
    wrong = one(local_judge, "Copper is a poor conductor of electricity.", copper)
    assert wrong.verdict == "contradicted"
    assert "\u201cpoor\u201d" in wrong.reason and "\u201cgood\u201d" in wrong.reason


def test_a_short_answer_read_with_its_question_still_fails_a_replaced_term(
    local_judge: Any,
) -> None:
    truth = "Humans exhale carbon dioxide."
    inputs = EquivalenceInput(
        question="Which gas do humans exhale?", answer="Humans exhale nitrogen.", ground_truth=truth
    )
    wrong = ask(local_judge, AnswerEquivalence(), inputs)
    assert not wrong.same_information
    assert wrong.wrong_or_extra_facts == ["Humans exhale nitrogen."]
    inputs = EquivalenceInput(
        question="Which gas do humans exhale?", answer=truth, ground_truth=truth
    )
    assert ask(local_judge, AnswerEquivalence(), inputs).same_information


FOUNDER = ["The firm was founded in 1998 by Maria Keller, a Swiss engineer, in Basel."]


def test_a_one_word_answer_no_context_holds_is_not_supported(local_judge: Any) -> None:
    # One word has no phrase to compare: it was scored as if all its phrases were found.
    question = "What nationality was the firm's founder?"
    assert one(local_judge, "Swiss.", FOUNDER, question).verdict == "supported"
    wrong = one(local_judge, "British.", FOUNDER, question)
    assert wrong.verdict != "supported", wrong


CARDIOLOGY = [
    "The clinic's cardiology department is led by Dr. Amelia Hart, who joined from St Mary's"
    " Hospital in London last year."
]


def test_a_name_replaced_in_a_long_copied_sentence_is_contradicted(local_judge: Any) -> None:
    # Long claims were not checked for a replaced name at all: this one was supported.
    copied = (
        "The cardiology department of the clinic is led by Dr. Amelia Hart, who joined from"
        " St Mary's Hospital in {}."
    )
    wrong = one(local_judge, copied.format("Manchester"), CARDIOLOGY)
    assert wrong.verdict == "contradicted", wrong
    assert "names Manchester where the context names London" in wrong.reason
    assert one(local_judge, copied.format("London"), CARDIOLOGY).verdict == "supported"


def test_a_ground_truth_fact_the_judge_is_unsure_of_is_unsure_not_missing(local_judge: Any) -> None:
    inputs = EquivalenceInput(
        question="When is the maintenance window?",
        answer="Maintenance is on Sundays between 1 and 4 am.",
        ground_truth="Maintenance runs every Sunday from 1 am to 4 am.",
    )
    outcome = asyncio.run(local_judge.ask(AnswerEquivalence(), inputs))
    assert outcome.value.missing_facts == [inputs.ground_truth]
    assert outcome.unsure == (0,)
    # A replaced name is decided: missing and wrong, nothing unsure.
    wrong = EquivalenceInput(
        question="", answer="Mars has four moons.", ground_truth="Mars has two moons."
    )
    assert asyncio.run(local_judge.ask(AnswerEquivalence(), wrong)).unsure == ()


def test_a_ground_truth_that_only_gives_what_is_asked_is_read_with_its_question(
    local_judge: Any,
) -> None:
    # "Australia's capital is Canberra." repeats the question's words around the ground
    # truth's one fact; they are no extra facts.
    question = "What is the capital of Australia?"
    right = EquivalenceInput(
        question=question, answer="Australia's capital is Canberra.", ground_truth="Canberra."
    )
    assert ask(local_judge, AnswerEquivalence(), right).same_information
    wrong = EquivalenceInput(
        question=question, answer="Australia's capital is Sydney.", ground_truth="Canberra."
    )
    assert not ask(local_judge, AnswerEquivalence(), wrong).same_information
    # "2 years" is "Two years.": the number is compared as a number, not as the word "two".
    [verdict] = asyncio.run(
        local_judge.support(["Two years."], ["The warranty lasts 2 years."], "How long?")
    )
    assert "100% of its words" in verdict.reason, verdict.reason
