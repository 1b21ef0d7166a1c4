"""Dates as the local judge reads them."""

from __future__ import annotations

from rag_eval_pytest.judges.local.checks import check_dates
from rag_eval_pytest.judges.local.dates import Date, dates


def test_dates_written_in_digits_are_read_where_their_order_is_known() -> None:
    assert dates("on 03/15/2025") == [Date(2025, 3, 15)]
    assert dates("on 15/03/2025") == [Date(2025, 3, 15)]
    assert dates("on 15.03.2025") == [Date(2025, 3, 15)]
    assert dates("on 03/04/2025") == [Date(2025)]  # March 4 or 3 April: the year is known


def test_a_day_of_a_month_without_its_year_is_a_date_of_no_year() -> None:
    assert dates("Applications close on 15 March.") == [Date(None, 3, 15)]
    assert dates("on March 15 and") == [Date(None, 3, 15)]
    assert dates("the 4th of July") == [Date(None, 7, 4)]
    assert Date(None, 3, 15).compatible(Date(2025, 3, 15))
    assert not Date(None, 3, 15).compatible(Date(None, 2, 1))
    assert Date(None, 3, 15).show() == "15 March"
    # One of several days is no date of its own: their month is.
    assert dates("held on 2-3 September") == [Date(None, 9)]
    assert dates("on September 2 and 3") == [Date(None, 9)]
    assert dates("on 3, 4 or 5 May") == [Date(None, 5)]


def test_several_days_of_another_month_are_a_conflict_of_dates() -> None:
    context = "Campus tours run on June 12 and 13 and must be booked by June 1."
    claim = "Campus tours run on July 12 and 13 and must be booked by June 1."
    [finding] = check_dates(claim, context, context)
    assert finding.message == "claims July; the context says June"
    assert check_dates("Campus tours run on 12-13 June.", context, context) == []


def test_a_month_in_lower_case_is_read_but_for_a_verb() -> None:
    # A text written in lower case ("on july 11") dates as a capitalised one does.
    assert dates("the rematch is on july 11 in las vegas") == [Date(None, 7, 11)]
    assert dates("in june 2015") == [Date(2015, 6)]
    assert dates("you may 5 times a day") == []
    assert dates("march 5 miles north") == []


def test_a_month_named_alone_after_a_word_of_time_is_a_date() -> None:
    assert dates("The fair is held every September.") == [Date(None, 9)]
    assert dates("Waste is collected from March to November.") == [Date(None, 3), Date(None, 11)]
    # A month that is no time: a verb, a name, a march; and a month a date holds is that date's.
    assert dates("May I pay later?") == dates("April Smith runs it.") == []
    assert dates("They joined the March on Washington.") == []
    assert dates("It opened on 5 June and in May 2020.") == [Date(2020, 5), Date(None, 6, 5)]


def test_a_month_no_context_gives_is_a_conflict_with_the_month_it_gives() -> None:
    fair = "The town's book fair is held in the market hall every September."
    [found] = check_dates("The book fair is held every October.", fair, fair)
    assert (found.severity, found.message) == (
        "conflict",
        "claims October; the context says September",
    )
    assert check_dates("Each September, the book fair takes place.", fair, fair) == []


def test_a_number_before_a_word_of_area_is_no_year() -> None:
    assert dates("The flat has 1990 sq ft of floor space.") == []
    assert dates("A 2000 square metre warehouse.") == []
    assert dates("It was built in 1990 on a square plot.") == [Date(1990)]
    assert dates("In 1990 square dancing came back.") == [Date(1990)]


def test_a_date_as_a_tokenised_text_writes_it_is_read() -> None:
    assert dates("Jane Roe ( March 4 , 1950 -- June 9 , 2010 ) was a judge .") == [
        Date(1950, 3, 4),
        Date(2010, 6, 9),
    ]
    assert dates("It opened on 4 March , 1950 .") == [Date(1950, 3, 4)]


def test_a_day_in_a_year_the_passage_dates_in_another_month_is_a_conflict() -> None:
    # 12 May may be in 1971, the year of the first sentence; the passage says 12 March.
    fair = (
        "Leipzig hosted the 1971 fair. The 9th Book Fair was held from March 12 to March 19,"
        " 1971, in Leipzig."
    )
    [held] = check_dates("The 9th Book Fair was held from May 12 to March 19, 1971.", fair, fair)
    assert held.message == "claims 12 May; the context says 12 March"
    [held] = check_dates("The 9th Book Fair was held from March 2 to March 19, 1971.", fair, fair)
    assert held.message == "claims 2 March; the context says 12 March"
    # A day the sentence gives, or one of a sentence that shares too few of the claim's words,
    # is no other day; a year alone dates no day.
    assert check_dates("The fair closed on March 20.", fair, fair) == []
    assert check_dates("It opened in May 1990.", "It opened in 1990.", "It opened in 1990.") == []
