"""The places check: a claim that puts something in a country the contexts name only by the
word for its people, while they name another country."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.places import check_places

CLINIC = (
    "The clinic is in Porto, Portugal, and its staff speak Spanish and English. "
    "It belongs to a German health group."
)


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        (
            "The clinic is in Spain.",
            "puts it in Spain; the contexts name Spain only in \u201cSpanish\u201d, "
            "and name Portugal",
        ),
        (
            "The clinic is located in Germany.",
            "puts it in Germany; the contexts name Germany only in \u201cGerman\u201d, "
            "and name Portugal",
        ),
    ],
)
def test_a_country_named_only_by_its_peoples_word_is_a_gap(claim: str, message: str) -> None:
    [finding] = check_places(claim, CLINIC)
    assert (finding.kind, finding.severity, finding.message) == ("places", "gap", message)


@pytest.mark.parametrize(
    ("claim", "contexts"),
    [
        # The country the contexts name; where a thing is from; a language.
        ("The clinic is in Portugal.", CLINIC),
        ("The health group is from Germany.", CLINIC),
        ("The staff answer in Spanish.", CLINIC),
        # No other country named; a country that holds the one named.
        ("The gallery is in Italy.", "The gallery is an Italian landmark in Florence."),
        ("The castle is in Britain.", "The British castle stands near Inverness, Scotland."),
    ],
)
def test_a_country_the_contexts_name_or_hold_is_no_gap(claim: str, contexts: str) -> None:
    assert check_places(claim, contexts) == []
