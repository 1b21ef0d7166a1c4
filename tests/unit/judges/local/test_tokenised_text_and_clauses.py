"""Rules read on text as corpora keep it: tokenised news with the period set apart, and claims
of several clauses whose "not" sits in one of them. No model is loaded here."""

from __future__ import annotations

from rag_eval_pytest.judges.local.pipeline import negation as _negation
from rag_eval_pytest.text.sentences import split_sentences

TOKENISED = (
    "a pit crew member was hit by a car on sunday . todd phillips , a tire changer , was "
    "injured . phillips has received stitches for a cut on his leg and has been released . "
    "dracone did not finish the race ."
)


def test_a_period_set_apart_ends_a_sentence_before_a_lowercase_word() -> None:
    assert split_sentences(TOKENISED) == [
        "a pit crew member was hit by a car on sunday .",
        "todd phillips , a tire changer , was injured .",
        "phillips has received stitches for a cut on his leg and has been released .",
        "dracone did not finish the race .",
    ]


def test_a_period_after_a_word_still_needs_a_capital_to_end_a_sentence() -> None:
    assert split_sentences("See the plans e.g. the gold one. and so on.") == [
        "See the plans e.g. the gold one. and so on."
    ]


def test_another_sentences_not_is_no_negation_of_the_claim() -> None:
    sentences = split_sentences(TOKENISED)
    claim = "Phillips received stitches for a cut on his leg and was released."
    assert _negation(claim, " ".join(sentences[1:])) == []


def test_a_claim_copied_with_its_not_in_a_second_clause_is_no_negation() -> None:
    passage = (
        "This means that the actual task might still be running at 79 percent or 89 percent, "
        "not even close to completion."
    )
    assert _negation(passage, passage) == []


def test_a_not_in_a_clause_too_short_to_read_alone_still_negates() -> None:
    [finding] = _negation(
        "The shop opens at 9 on weekdays, but not on Sundays.",
        "The shop opens at 9 on weekdays and on Sundays.",
    )
    assert finding.severity == "conflict"


def test_a_negated_one_clause_claim_still_conflicts() -> None:
    [finding] = _negation("The store is not open on Sundays.", "The store is open on Sundays.")
    assert finding.severity == "conflict"
