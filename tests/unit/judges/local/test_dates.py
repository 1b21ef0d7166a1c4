"""Dates as the local judge reads them."""

from __future__ import annotations

from rag_eval_pytest.judges.local.dates import Date, dates


def test_dates_written_in_digits_are_read_where_their_order_is_known() -> None:
    assert dates("on 03/15/2025") == [Date(2025, 3, 15)]
    assert dates("on 15/03/2025") == [Date(2025, 3, 15)]
    assert dates("on 15.03.2025") == [Date(2025, 3, 15)]
    assert dates("on 03/04/2025") == [Date(2025)]  # March 4 or 3 April: the year is known
