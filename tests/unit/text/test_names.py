"""Names a text gives."""

from __future__ import annotations

from rag_eval_pytest.text.names import names


def test_names_end_at_a_comma() -> None:
    assert names("We do ship to the UK, Norway and Switzerland.") == ["UK", "Norway", "Switzerland"]


def test_a_verb_that_opens_an_instruction_is_no_word_of_a_name() -> None:
    assert names("Tap Settings, then Wi-Fi.") == ["Settings", "Wi-Fi"]
    assert names("Visit Northgate Library on Fridays.") == ["Northgate Library"]
    assert names("Alexandre Dumas wrote it.") == ["Alexandre Dumas"]


def test_a_day_right_after_a_name_word_ends_the_name() -> None:
    # A band, a sale, a holiday; a day alone is no name.
    assert names("The line-up adds Hey Sunday and Tide Lines.") == ["Hey Sunday", "Tide Lines"]
    assert names("Prices drop on Black Friday.") == ["Black Friday"]
    assert names("The desk opens Monday to Friday.") == []
