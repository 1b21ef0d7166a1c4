"""Dates as the local judge reads them."""

from __future__ import annotations

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
    # One of several days is no date of its own.
    assert dates("held on 2-3 September") == []
    assert dates("on September 2 and 3") == []
    assert dates("on 3, 4 or 5 May") == []


def test_a_month_in_lower_case_is_read_but_for_a_verb() -> None:
    # A text written in lower case ("on july 11") dates as a capitalised one does.
    assert dates("the rematch is on july 11 in las vegas") == [Date(None, 7, 11)]
    assert dates("in june 2015") == [Date(2015, 6)]
    assert dates("you may 5 times a day") == []
    assert dates("march 5 miles north") == []
