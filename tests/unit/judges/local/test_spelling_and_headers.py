"""Names read whatever their spelling (accents composed, decomposed or left out), a
sentence's first word that is no name, and long lead-in lines of a summary. No model is
loaded here."""

from __future__ import annotations

import unicodedata

from rag_eval_pytest.judges.local.checks import check_swaps, missing_name_share
from rag_eval_pytest.judges.local.claims import split_claims
from rag_eval_pytest.judges.local.facts import known_name, plain_form
from rag_eval_pytest.text.words import tokens

CONTEXT = "Francis I was the first King of France from the Angoulême branch of the House of Valois."


def test_a_decomposed_accent_is_one_word_in_plain_form() -> None:
    decomposed = unicodedata.normalize("NFD", "Angoulême")
    assert len(tokens(decomposed)) == 2  # "Angoule" and "me": the accent splits the word
    assert tokens(plain_form(decomposed)) == ["Angoulême"]


def test_a_name_written_without_its_accents_is_the_contexts_name() -> None:
    assert known_name("Francois", "Francis I (François Ier) was King of France.")
    assert known_name("Royal Mouscron-Peruwelz", "Royal Mouscron-Péruwelz is a Belgian club.")
    assert missing_name_share("François Étienne was emperor.", "Francois Etienne was emperor.") == 0


def test_a_name_with_other_letters_is_still_missing() -> None:
    assert not known_name("Lyon", "Francis I (François Ier) was King of France.")


def test_another_starting_a_clause_is_no_replaced_name() -> None:
    claim = "Another who was the first King of France from the Angoulême branch."
    assert check_swaps(claim, CONTEXT, CONTEXT, CONTEXT) == []


def test_a_long_lead_in_line_ending_with_a_colon_is_no_claim() -> None:
    answer = (
        "Here is a concise summary of the passage, covering the core pieces of information "
        "described:\n\nChelsea are in early discussions with a Belgian club."
    )
    assert split_claims(answer) == ["Chelsea are in early discussions with a Belgian club."]


def test_text_taken_from_a_pdf_or_a_web_page_reads_as_its_words() -> None:
    # A ligature, a soft hyphen, a zero-width space, full-width digits, a no-break space.
    assert plain_form("The \ufb01nal inter\u00adnational\u200b fee is \uff13\uff10\u00a0EUR.") == (
        "The final international fee is 30 EUR."
    )
    # Digits grouped by a thin or no-break space are one number; a plain space parts two.
    assert plain_form("1\u202f000 euros, 12\u00a0500\u00a0000 people") == (
        "1000 euros, 12500000 people"
    )
    assert plain_form("in 2019 200 people") == "in 2019 200 people"
    # A word broken at a line's end is joined; a hyphen in the middle of a line stays.
    assert plain_form("with-\nin 30 days of pur- \n chase") == "within 30 days of purchase"
    assert plain_form("a well-known, part-time job\nNew-\nYork") == (
        "a well-known, part-time job\nNew-\nYork"
    )
