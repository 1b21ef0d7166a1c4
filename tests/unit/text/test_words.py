"""Words as the metrics and the local judge compare them: stems that meet across inflections
and spellings."""

from __future__ import annotations

import pytest

from rag_eval_pytest.text.words import content_words, stem


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
        ("organised", "organized"),
        ("analysing", "analyzing"),
        ("paediatric", "pediatric"),
        ("jewellery", "jewelry"),
        ("favourites", "favorite"),
    ]:
        assert stem(british) == stem(american), british
    assert stem("hours") == "hour"  # a short word keeps its "our"


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("buildings", "building"),
        ("cities", "city"),
        ("settings", "setting"),
        ("copies", "copy"),
        ("meetings", "meeting"),
        ("policies", "policy"),
    ],
)
def test_a_plural_and_its_singular_are_one_stem(plural: str, singular: str) -> None:
    assert stem(plural) == stem(singular)


def test_a_short_acronym_is_a_word_but_a_pronoun_and_a_time_of_day_are_not() -> None:
    assert content_words("Shipping to the US and the EU") == {"ship", "us", "eu"}
    assert content_words("Let us know by 10 AM") == {"know"}
    # A text all in capitals is shouted, not spelled out: its short words stay short words.
    assert content_words("CALL US NOW") == {"call", "now"}
