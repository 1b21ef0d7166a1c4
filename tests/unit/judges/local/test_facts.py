"""Facts the local judge reads as written: coverage across inflections, negation cues, and
names known to a text."""

from __future__ import annotations

from rag_eval_pytest.judges.local.facts import coverage, known_name, negation_cues, spelled_out


def test_a_claim_in_another_inflection_covers_the_context_s_words() -> None:
    assert coverage("You submit the timesheet.", "Timesheets are submitted weekly.") == 1.0


def test_a_claim_in_the_singular_or_another_spelling_covers_the_context_s_words() -> None:
    assert coverage("Every building has a cafeteria.", "All buildings have cafeterias.") == 1.0
    assert coverage("The tour visits a city in Spain.", "The tour visits cities in Spain.") == 1.0
    assert coverage("The pediatric ward is organized.", "The paediatric ward is organised.") == 1.0


def test_a_bound_is_no_negation_and_a_stated_non_word_is_one() -> None:
    assert negation_cues("Each user can create no more than 5 projects.") == []
    assert negation_cues("Arrive not later than 9 am.") == []
    assert negation_cues("It is no longer available.") == ["no"]
    assert negation_cues("Digital goods are non-refundable.") == ["non-refundable"]
    assert negation_cues("It studies Muslims in non-Muslim nations.") == []
    # A bound is followed by an amount; a comparison of two things is denied.
    assert negation_cues("Bags no bigger than a shoebox fly free.") == []
    assert negation_cues("The Standard room is not larger than the Economy room.") == ["not"]


def test_a_denying_word_of_a_name_denies_nothing() -> None:
    assert negation_cues("They toured with Never Shout Never in May.") == []
    assert negation_cues("Not Fade Away was reissued.", "They reissued Not Fade Away.") == []
    assert negation_cues("Not Fade Away was reissued.") == ["not"]
    assert negation_cues("No Americans were hurt.", "Two Americans were hurt.") == ["no"]
    assert negation_cues("The shop is open. Never on Sundays.") == ["never"]


def test_a_two_letter_acronym_is_its_name() -> None:
    ships = "We ship to the United Kingdom, Norway and Switzerland."
    assert known_name("UK", ships)
    assert not known_name("EU", ships)


def test_a_number_in_a_name_is_known_in_words_or_in_digits() -> None:
    assert known_name("Tier-two", "Refunds are handled by the Tier-2 support team.")
    assert known_name("Tier-2", "Refunds are handled by the Tier-two support team.")
    assert known_name("Terminal Two", "Flights to Oslo leave from Terminal 2.")
    assert not known_name("Tier-three", "Refunds are handled by the Tier-2 support team.")
    assert not known_name("Terminal Three", "Flights to Oslo leave from Terminal 2.")


def test_an_acronym_a_context_spells_out_is_read_as_its_words() -> None:
    ships = "We ship to the United Kingdom, Norway and the United States."
    assert spelled_out("We ship to the UK and the US.", ships) == (
        "We ship to the United Kingdom and the United States."
    )
    # One the context writes, or spells out nowhere, stays as it is.
    assert spelled_out("The EU and the UK.", "The UK left the EU.") == "The EU and the UK."
    assert spelled_out("We ship to the EU.", ships) == "We ship to the EU."


def test_an_acronym_a_context_writes_and_another_defines_is_read_as_its_definition() -> None:
    leave = "Staff receive 12 days of sick leave.\nUnused SL carries over."
    assert spelled_out("Staff get 12 days of SL.", leave) == "Staff get 12 days of sick leave."
    # Stop words define nothing ("in the" is not what "IT" stands for), nor words of the
    # sentence that writes it, unless they bracket it.
    assert spelled_out("Ask IT.", "Ask IT in the morning.") == "Ask IT."
    hr = "HR handles requests for leave."
    assert spelled_out("Ask HR about leave.", hr) == "Ask HR about leave."
    defined = "Human resources (HR) handles requests."
    assert spelled_out("Ask HR.", defined) == "Ask Human resources."


def test_a_day_in_a_name_is_a_word_the_contexts_must_write() -> None:
    lineup = "The festival line-up adds Hey Sunday and Tide Lines."
    assert known_name("Hey Sunday", lineup)
    assert not known_name("Hey Saturday", lineup)


def test_a_word_of_a_name_of_several_words_is_known_as_its_plural() -> None:
    timetable = "Flight LX 318 departs from Terminal 2."
    assert known_name("Flights LX", timetable)
    # A name of one word is matched as written ("Williams" is not "William").
    assert not known_name("Flights", timetable)


def test_a_day_alone_is_no_name_to_know() -> None:
    # "Your Friday flight" after "I'm flying from Boston to Denver on Friday.": no name.
    assert known_name("Friday", "I'm flying from Boston to Denver.")
