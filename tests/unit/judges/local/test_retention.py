"""The local judge's knowledge retention: a fact the user gave is contradicted when its
conflict checks find the answer stating otherwise, asked again when a question of the answer
asks for it, kept otherwise; deterministic, without the model."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.retention import retention, retention_of
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


@pytest.mark.parametrize(
    ("fact", "answer"),
    [
        # an id with letters, bound to the same word
        ("My account id is AB-1234.", "Account AB-9999 is active."),
        ("Ticket INV-2024-001 is about my refund.", "Ticket INV-2024-017 was closed."),
        # another plan, product tier or named kind in the place of the user's
        ("I'm on the Pro plan.", "Since you are on the Basic plan, you get email support."),
        ("I have a Premium account.", "Your Standard account includes two seats."),
        # the user called by another name than the one they gave
        ("My name is Anna.", "Thanks, Maria! Your order has shipped."),
        ("I'm Anna, a customer since 2019.", "Hi Maria, your order has shipped."),
        # a count of the thing the two are about, or of times against a count of things
        ("We need 2 rooms for the wedding.", "I have reserved 3 rooms for you."),
        ("The engineer visited twice about the leak.", "The engineer made one visit."),
        ("My card was declined three times.", "Your card was declined twice."),
        # the user's home placed elsewhere
        ("I'm based in New York.", "Since you live in New Jersey, the tax differs."),
        ("We live in Lyon.", "As residents of Paris, you get a reduced fare."),
        # a count in an irregular plural, a letter of a size or a group said to the user
        ("I'm travelling with two children.", "Your booking for one child is confirmed."),
        ("I ordered the blue jacket in size M.", "Your blue jacket in size L has shipped."),
        ("I'm in group B.", "You are in group A, which boards first."),
        # another age of the same one, the user's own too
        ("My son is 8 years old.", "As your son is 14, he pays the adult fare."),
        ("I have an 8-year-old daughter.", "Your daughter, 11, can join the club."),
        ("My son is 8 years old.", "Your 12-year-old son can join the teen club."),
        ("I am 67 years old.", "As you are 57, you do not get the senior discount."),
        # another kind of the user's thing, of kinds that exclude each other
        ("I ordered the blue sofa.", "Your grey sofa will arrive on Monday."),
        ("I have a business account.", "For your personal account, open Settings."),
        ("I booked a double room.", "Your single room is ready."),
    ],
)
def test_an_identifier_plan_or_name_other_than_the_users_is_a_conflict(
    fact: str, answer: str
) -> None:
    found = retention(RetentionInput(facts=[fact], question="Any news?", answer=answer))
    assert found.facts[0].verdict == "contradicted", found.facts[0].reason


@pytest.mark.parametrize(
    ("fact", "answer"),
    [
        ("My account id is AB-1234.", "Account AB-1234 is active."),
        ("My account id is AB-1234.", "Your invoice 2024-17 is attached."),  # another thing
        ("I'm on the Pro plan.", "The Pro plan includes phone support."),
        ("I'm on the Pro plan.", "Our Basic support team will call you."),  # another noun
        ("My name is Anna.", "Thanks, Anna! Your order has shipped."),
        ("My name is Anna.", "Thanks for waiting. Your order has shipped."),
        ("We need 2 rooms for the wedding.", "Each room has 2 beds."),  # beds, not rooms
        ("The engineer visited twice about the leak.", "Both visits are logged."),
        ("My card was declined three times.", "Your card was declined 3 times today."),
        ("My order number is 4417.", "You have 2 orders with us."),  # a count, no number
        ("I live in the United Kingdom.", "As a British resident, you pay VAT."),
        ("I'm based in New York.", "Residents of New Jersey pay another tax."),  # not the user
        ("I'm travelling with two children.", "Your booking for two children is confirmed."),
        ("I ordered the blue jacket in size M.", "Size M and size L cost the same."),
        ("I'm in group B.", "Group A boards first."),  # said of group A, not of the user
        ("My son is 8 years old.", "Since your son is 8, he travels free."),
        ("My son is 8 years old.", "Your son's ticket costs 14 euros."),  # a price
        ("I have an 8-year-old daughter.", "Children aged 5 to 12 join the kids club."),
        ("I am 67 years old.", "As you are 67, you get the senior discount."),
        ("My car is 3 years old.", "Your car is under warranty for 5 years."),  # no age
        ("I'm flying to Denver on Friday.", "Flights to Denver leave every day at 9 am."),
        ("My budget is $500.", "This laptop costs $450, within your budget."),
        ("I ordered the blue sofa.", "Your blue sofa will arrive on Monday."),
        ("I ordered the blue sofa.", "Your sofa and the grey cushions arrive on Monday."),
        ("I ordered the blue sofa.", "The grey sofa is out of stock."),  # not said to the user
        ("I have a business account.", "Your business account and a personal account differ."),
        ("I booked a double room.", "Your double room has a large bed."),  # another noun
    ],
)
def test_the_same_identifier_plan_or_name_or_another_thing_keeps_the_fact(
    fact: str, answer: str
) -> None:
    found = retention(RetentionInput(facts=[fact], question="Any news?", answer=answer))
    assert found.facts[0].verdict == "kept", found.facts[0].reason


@pytest.mark.parametrize(
    ("fact", "answer", "doubted"),
    [
        # the user's thing named otherwise, in a statement said to the user
        ("My car is a 2019 Toyota Corolla.", "For your Honda Civic, the service is due.", True),
        ("I use Windows 11.", "On your Mac, open System Settings.", True),
        ("My car is a 2019 Toyota Corolla.", "For your Corolla, the service is due.", False),
        ("My car is a 2019 Toyota Corolla.", "The Honda Civic has a recall.", False),
        ("I use Windows 11.", "Open Settings on your Windows PC.", False),
        # another day of the week for the fact's own thing (a shared word or time)
        ("My appointment is on Tuesday at 3 pm.", "See you Thursday at 3 pm.", True),
        ("My appointment is on Tuesday at 3 pm.", "See you on Tuesday!", False),
        ("I'm flying to Denver on Friday.", "You can check in online from Thursday.", False),
        # what the user turned down, offered
        ("I don't want email updates.", "We will send you email updates weekly.", True),
        ("I don't want email updates.", "We won't send you email updates.", False),
        ("I don't want email updates.", "Your order ships today.", False),
    ],
)
def test_a_fact_the_answer_may_name_otherwise_is_kept_but_unsure(
    fact: str, answer: str, doubted: bool
) -> None:
    found, unsure = retention_of(RetentionInput(facts=[fact], question="?", answer=answer))
    assert found.facts[0].verdict == "kept"
    assert unsure == ((0,) if doubted else ())
    assert found.facts[0].reason.startswith("unsure") == doubted
