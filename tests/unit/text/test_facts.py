"""Words as the local judge compares them: stems that meet across inflections and spellings,
negation cues, dates."""

from __future__ import annotations

import pytest

from rag_eval_pytest.text.facts import (
    Date,
    Quantity,
    coverage,
    dates,
    known_name,
    names,
    negation_cues,
    quantities,
    stem,
)


@pytest.mark.parametrize(
    ("inflected", "base"),
    [
        ("submitted", "submit"),
        ("submitting", "submit"),
        ("planned", "plan"),
        ("shipped", "ship"),
        ("refunded", "refund"),
        ("called", "call"),
        ("passed", "pass"),
    ],
)
def test_an_inflection_that_doubles_a_consonant_meets_its_base(inflected: str, base: str) -> None:
    assert stem(inflected) == stem(base)


def test_a_claim_in_another_inflection_covers_the_context_s_words() -> None:
    assert coverage("You submit the timesheet.", "Timesheets are submitted weekly.") == 1.0


def test_a_bound_is_no_negation_and_a_stated_non_word_is_one() -> None:
    assert negation_cues("Each user can create no more than 5 projects.") == []
    assert negation_cues("Arrive not later than 9 am.") == []
    assert negation_cues("It is no longer available.") == ["no"]
    assert negation_cues("Digital goods are non-refundable.") == ["non-refundable"]
    assert negation_cues("It studies Muslims in non-Muslim nations.") == []


def test_a_plural_of_a_three_letter_word_is_the_word() -> None:
    for plural, word in [("dogs", "dog"), ("days", "day"), ("fees", "fee"), ("bags", "bag")]:
        assert stem(plural) == stem(word), plural
    for word in ("news", "plus", "bus", "yes"):  # no plurals
        assert stem(word) == word


def test_british_and_american_spellings_are_one_word() -> None:
    for british, american in [
        ("colour", "color"),
        ("grey", "gray"),
        ("centre", "center"),
        ("litres", "liters"),
        ("licence", "license"),
        ("defence", "defense"),
        ("programme", "program"),
    ]:
        assert stem(british) == stem(american), british
    assert stem("hours") == "hour"  # a short word keeps its "our"


def test_dates_written_in_digits_are_read_where_their_order_is_known() -> None:
    assert dates("on 03/15/2025") == [Date(2025, 3, 15)]
    assert dates("on 15/03/2025") == [Date(2025, 3, 15)]
    assert dates("on 15.03.2025") == [Date(2025, 3, 15)]
    assert dates("on 03/04/2025") == [Date(2025)]  # March 4 or 3 April: the year is known


def test_names_end_at_a_comma_and_a_two_letter_acronym_is_its_name() -> None:
    assert names("We do ship to the UK, Norway and Switzerland.") == ["UK", "Norway", "Switzerland"]
    ships = "We ship to the United Kingdom, Norway and Switzerland."
    assert known_name("UK", ships)
    assert not known_name("EU", ships)


def test_a_number_word_joined_to_what_it_counts_is_a_number() -> None:
    assert quantities("a three-point advantage") == [Quantity(3.0, "point", "three point")]
    assert quantities("twenty-five days") == [Quantity(25.0, "day", "twenty-five days")]
    assert quantities("a one-off fee") == []
