"""What a claim states beyond its passage's sentence: more widely, or as a fact where it
hedges."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local import trust
from rag_eval_pytest.judges.local.scope import beyond


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("Shipping is free on all orders.", "Shipping is free on orders over $50."),
        ("The Pro plan costs $20 per month.", "The Pro plan costs $20 per user per month."),
        ("All employees get 25 days of leave.", "Full-time employees get 25 days of leave."),
        (
            "Items can be returned for a refund.",
            "Items can be returned within 30 days for a refund.",
        ),
        ("Only admins can delete projects.", "Admins and project owners can delete projects."),
        # "all" of a thing the sentence restricts right after it.
        (
            "Breakfast is included for all guests.",
            "Breakfast is included for guests booking directly; others pay $15.",
        ),
        ("Every customer gets a free month.", "Customers paying annually get a free month."),
    ],
)
def test_a_claim_without_its_sentences_condition_is_stated_more_widely(
    claim: str, sentence: str
) -> None:
    assert beyond(claim, sentence) == trust.BROADENED


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("Shipping is free on orders over $50.", "Shipping is free on orders over $50."),
        ("You can change each setting here.", "Settings can be changed here."),
        ("There is a direct flight every day.", "The airline runs a daily direct flight."),
        ("Super Bowl XLVIII", "Smith was named MVP of Super Bowl XLVIII after they won."),
        ("Only admins can delete projects.", "Only admins can delete projects."),
        ("All guests get breakfast.", "Guests get breakfast every morning."),
        (
            "The Pro plan includes phone support.",
            "The Pro plan includes phone support and costs $20 per month.",
        ),
    ],
)
def test_a_claim_that_keeps_its_sentences_conditions_is_not(claim: str, sentence: str) -> None:
    assert beyond(claim, sentence) == ""


def test_a_fact_its_sentence_hedges_is_of_its_own_kind() -> None:
    said = beyond(
        "Rings form from leftover material.", "They may have formed from leftover material."
    )
    assert said == trust.HEDGED
    # An option is no fact of what it comes with.
    ram = "The laptop comes with 8 GB of RAM, upgradable to 16 GB."
    assert beyond("The laptop has 16 GB of RAM.", ram) == trust.HEDGED


def test_a_claim_that_joins_two_sentences_words_is_supported_across_sentences_only() -> None:
    library = "The library opened in 1905. Its first librarian was Mary Cole."
    claim = "The library was opened in 1905 by Mary Cole."
    assert beyond(claim, "The library opened in 1905.", library) == trust.SPREAD
    rates = "Adults pay 12 euros. Children pay 6 euros on weekdays."
    assert beyond("Children pay 12 euros.", "Adults pay 12 euros.", rates) == trust.SPREAD
    # Every word in the sentence, or a word no other sentence has: nothing beyond it.
    assert beyond("Adults pay 12 euros.", "Adults pay 12 euros.", rates) == ""
    assert beyond("Seniors pay 12 euros.", "Adults pay 12 euros.", rates) == ""


def test_a_name_the_contexts_never_write_though_they_hold_its_words_is_composed() -> None:
    clinic = "Lakeside Dental Clinic, on Riverside Road, is open on Saturdays."
    claim = "The Riverside Dental Clinic is open on Saturdays."
    assert beyond(claim, clinic, clinic) == trust.COMPOSED
    # The name as written, or written with other punctuation, is the contexts' own.
    assert beyond("The Lakeside Dental Clinic is open on Saturdays.", clinic, clinic) == ""
    nickname = 'Kenneth "Ken" Leung played the doctor.'
    assert beyond("Kenneth Ken Leung played the doctor.", nickname, nickname) == ""


def test_a_claim_that_puts_a_later_clauses_subject_to_the_first_clauses_word_is_spread() -> None:
    floors = "The cafe is on the ground floor; the first floor has meeting rooms."
    assert beyond("The first floor has the cafe.", floors, floors) == trust.SPREAD
    assert beyond("The first floor has meeting rooms.", floors, floors) == ""
    # A later clause that leaves out the first one's subject shares it.
    bridge = "The bridge is closed to cyclists but open to cars."
    assert beyond("The bridge is open to cars.", bridge, bridge) == ""


def test_a_claim_that_gives_the_first_clauses_subject_a_later_clauses_fact_is_spread() -> None:
    flights = "The Dublin flight is on time; the Cork flight is delayed by two hours."
    assert beyond("The Dublin flight is delayed by two hours.", flights, flights) == trust.SPREAD
    assert beyond("The Cork flight is delayed by two hours.", flights, flights) == ""
    # "Both" takes two things together where the sentence gives one.
    lunch = "Lunch is included on day one; on day two participants buy their own lunch."
    assert beyond("Lunch is included on both days.", lunch, lunch) == trust.BROADENED


def test_a_claim_about_a_thing_the_sentence_only_compares_with_is_of_its_own_kind() -> None:
    teams = "Our Madrid team has grown to 40 people, twice the size of the Rome team."
    assert beyond("Our Rome team has 40 people.", teams, teams) == trust.COMPARED
    assert beyond("Our Madrid team has 40 people.", teams, teams) == ""
    # A share of a whole compares nothing.
    users = "Half of the users chose the annual plan."
    assert beyond("Half of the users chose the annual plan.", users, users) == ""


def test_every_case_of_a_thing_another_sentence_qualifies_is_stated_more_widely() -> None:
    # Read against the sentence about where cards are replaced, "every replacement" says of
    # all of them what the price sentence says of the first.
    contexts = (
        "Lost student cards can be replaced at the Campus Card Office. The first replacement "
        "costs £15 and any further replacements cost £25. Payment is by card only."
    )
    sentence = "Lost student cards can be replaced at the Campus Card Office."
    claim = "Every replacement is £15, paid by card at the Campus Card Office."
    assert beyond(claim, sentence, contexts) == trust.BROADENED
    # Not where the other sentence says it of every one too.
    every = (
        "Lost student cards can be replaced at the Campus Card Office. Every replacement costs £15."
    )
    assert beyond(claim, sentence, every) == ""


@pytest.mark.parametrize(
    ("claim", "sentence", "basis"),
    [
        pytest.param(
            "Most orders ship within 2 days.",
            "Some orders ship within 2 days; most take a week.",
            trust.BROADENED,
            id="most",
        ),
        pytest.param(
            "Some orders ship within 2 days.",
            "Some orders ship within 2 days; most take a week.",
            "",
            id="some",
        ),
        pytest.param(
            "You can park on the street.",
            "You can park on the street during the day but not overnight.",
            trust.BROADENED,
            id="exception-dropped",
        ),
        # A thing the sentence says only after a word that restricts it, or after two kinds
        # of it, said bare.
        pytest.param(
            "Pets are not allowed.",
            "We welcome dogs under 10 kg; other pets are not allowed.",
            trust.BROADENED,
            id="other-pets",
        ),
        pytest.param(
            "Other pets are not allowed.",
            "We welcome dogs under 10 kg; other pets are not allowed.",
            "",
            id="other-pets-kept",
        ),
        pytest.param(
            "Shipping is free for every order.",
            "Standard shipping is free; express shipping costs $9.",
            trust.BROADENED,
            id="kinds",
        ),
        pytest.param(
            "Standard shipping is free.",
            "Standard shipping is free; express shipping costs $9.",
            "",
            id="kind-kept",
        ),
        pytest.param(
            "Customers get 20% off their first order.",
            "New customers get 20% off their first order.",
            trust.BROADENED,
            id="new",
        ),
        pytest.param(
            "New customers get 20% off their first order.",
            "New customers get 20% off their first order when they sign up for the newsletter.",
            trust.BROADENED,
            id="condition-dropped",
        ),
        pytest.param(
            "The gym is free.",
            "The gym is free for hotel guests; day passes cost $15.",
            trust.BROADENED,
            id="free-for-whom",
        ),
        pytest.param(
            "Employees can work remotely two days a week.",
            "After probation, employees can work remotely two days a week.",
            trust.BROADENED,
            id="opening-condition",
        ),
        pytest.param(
            "Breakfast is included.",
            "Breakfast is included in the flexible rate only.",
            trust.BROADENED,
            id="only",
        ),
        pytest.param(
            "The gym is free for hotel guests.",
            "The gym is free for hotel guests; day passes cost $15.",
            "",
            id="free-for-whom-kept",
        ),
    ],
)
def test_a_stronger_word_of_how_many_or_a_dropped_restriction_is_stated_more_widely(
    claim: str, sentence: str, basis: str
) -> None:
    assert beyond(claim, sentence) == basis


def test_a_predicate_of_the_first_of_two_clauses_joined_by_and_given_the_second_is_spread() -> None:
    wifi = "Wi-Fi is free in the lobby and costs $5 per day in rooms."
    assert beyond("Wi-Fi is free in all rooms.", wifi, wifi) == trust.SPREAD
    assert beyond("Wi-Fi is free in the lobby.", wifi, wifi) == ""
    # One subject of two things is no two clauses.
    assert beyond("Tea is free.", "Tea and coffee are free.", "Tea and coffee are free.") == ""


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        (
            "Staff and visitors can park in the garage.",
            "Only staff can park in the garage; visitors use the street.",
        ),
        (
            "The upgrade adds a second screen and more memory.",
            "The upgrade adds more memory; a second screen is sold separately.",
        ),
        (
            "You can pay by cash or card at the counter.",
            "You can pay by card at the counter; cash is not accepted.",
        ),
        # With a number, whose clause the number check binds, too.
        (
            "The $50 fee covers cleaning, linen and towels.",
            "The $50 fee covers cleaning and linen; towels cost $5 extra.",
        ),
    ],
)
def test_a_thing_a_later_clause_says_something_else_of_is_spread(claim: str, sentence: str) -> None:
    assert beyond(claim, sentence, sentence) == trust.SPREAD


def test_a_later_clause_that_only_leaves_words_out_or_a_claim_of_both_clauses_is_not() -> None:
    bridge = "The bridge is closed to cyclists but open to cars."
    assert beyond("The bridge is open to cars.", bridge, bridge) == ""
    fee = "The $50 fee covers cleaning and linen; towels cost $5 extra."
    assert beyond("The $50 fee covers cleaning and linen.", fee, fee) == ""
    garage = "Staff can park in the garage; visitors use the street."
    assert beyond("Staff can park in the garage and visitors use the street.", garage, garage) == ""


def test_a_stop_word_verb_that_says_what_a_later_clause_is_about_counts() -> None:
    app = "The app is free to download; using it costs $3 a month."
    assert beyond("The app is free to download and free to use.", app, app) == trust.SPREAD
    assert beyond("The app is free to download.", app, app) == ""
