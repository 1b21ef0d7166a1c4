"""Names a text gives."""

from __future__ import annotations

from rag_eval_pytest.text.names import names


def test_names_end_at_a_comma() -> None:
    assert names("We do ship to the UK, Norway and Switzerland.") == ["UK", "Norway", "Switzerland"]


def test_a_verb_that_opens_an_instruction_is_no_word_of_a_name() -> None:
    assert names("Tap Settings, then Wi-Fi.") == ["Settings", "Wi-Fi"]
    assert names("Visit Northgate Library on Fridays.") == ["Northgate Library"]
    assert names("Alexandre Dumas wrote it.") == ["Alexandre Dumas"]
