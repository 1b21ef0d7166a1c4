"""Facts bound to a role, read from text: here the days of the week a text states."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.roles import day_words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Open Monday to Wednesday.", {"monday", "tuesday", "wednesday"}),
        ("Phone support is available Monday to Friday.", {"weekday"}),
        ("Closed on Saturdays and Sundays.", {"saturday", "sunday", "weekend"}),
        ("Open daily.", {"weekday", "weekend", "thursday"}),
        ("The store is open late.", set()),
    ],
)
def test_a_range_of_days_states_each_day_and_its_span(text: str, words: set[str]) -> None:
    assert words <= day_words(text)
    assert bool(day_words(text)) == bool(words)
