"""Statements placed in the answer (:func:`statement_spans`) and the answer cut into marked
pieces (:func:`marked_pieces`)."""

from __future__ import annotations

from rag_eval_pytest.judges.local.claims import split_claims
from rag_eval_pytest.text.spans import (
    MIN_OVERLAP,
    Span,
    marked_pieces,
    merged,
    statement_spans,
)

ANSWER = (
    "Our warranty runs for five years, but it does not cover water damage. "
    "The store opened in 1998.\n- Returns take\n  30 days.\n\nShipping is free on orders over $50."
)


def texts(answer: str, spans: list[Span | None]) -> list[str | None]:
    return [None if s is None else answer[s.start : s.end] for s in spans]


def test_the_local_judges_claims_are_found_exactly_despite_the_changes_made_to_them() -> None:
    claims = split_claims(ANSWER)
    # The clause lost its "but" and gained a capital and a period; the list item lost its
    # bullet and its line break.
    assert "It does not cover water damage." in claims
    assert "Returns take 30 days." in claims
    assert texts(ANSWER, statement_spans(ANSWER, claims)) == [
        "Our warranty runs for five years",
        "it does not cover water damage.",
        "The store opened in 1998.",
        "Returns take\n  30 days.",
        "Shipping is free on orders over $50.",
    ]


def test_case_white_space_and_punctuation_do_not_matter() -> None:
    spans = statement_spans(ANSWER, ["the STORE opened in 1998", "returns take 30 days!"])
    assert texts(ANSWER, spans) == ["The store opened in 1998", "Returns take\n  30 days."]


def test_a_paraphrase_is_placed_on_the_sentence_holding_most_of_its_content_words() -> None:
    spans = statement_spans(
        ANSWER, ["The warranty runs 5 years and covers no water damage.", "Free shipping over $50."]
    )
    assert texts(ANSWER, spans) == [
        "Our warranty runs for five years, but it does not cover water damage.",
        "Shipping is free on orders over $50.",
    ]


def test_a_statement_not_in_the_answer_is_left_unmatched_never_guessed() -> None:
    spans = statement_spans(
        ANSWER,
        [
            "The moon is made of cheese.",
            # 2 of its 5 content words (shipping, order) are in a sentence: under the bar.
            "Shipping costs nothing for orders above fifty dollars.",
            "",
            "...",
        ],
    )
    assert spans == [None, None, None, None]
    assert MIN_OVERLAP == 0.6


def test_a_repeated_statement_takes_the_next_place_it_occurs() -> None:
    answer = "It is free. It is not. It is free."
    spans = statement_spans(answer, ["It is free.", "It is free.", "It is free."])
    assert spans == [Span(0, 11), Span(23, 34), Span(0, 11)]


def test_overlapping_statements_keep_their_spans_and_are_merged_for_marking() -> None:
    sentence = "Our warranty runs for five years, but it does not cover water damage."
    spans = statement_spans(ANSWER, [sentence, "it does not cover water damage"])
    assert spans == [Span(0, 69), Span(38, 68)]
    assert merged([s for s in spans if s is not None]) == [Span(0, 69)]
    assert merged([Span(5, 7), Span(0, 2), Span(2, 4)]) == [Span(0, 4), Span(5, 7)]


def test_hostile_text_is_found_where_it_stands() -> None:
    answer = "Fine. Click **here** | <script>alert(1)</script> \u202eexe.txt now."
    statement = "Click **here** | <script>alert(1)</script> \u202eexe.txt now."
    (span,) = statement_spans(answer, [statement])
    assert span is not None
    assert answer[span.start : span.end] == statement


def test_marked_pieces_cover_the_answer_and_an_excerpt_keeps_every_mark() -> None:
    answer = "a" * 50 + " Wrong one. " + "b" * 50 + " Wrong two. " + "c" * 50
    first, second = answer.index("Wrong one."), answer.index("Wrong two.")
    spans = [Span(first, first + 10), Span(second, second + 10), Span(0, 10_000)]
    pieces = marked_pieces(answer, spans[:2])
    assert "".join(text for text, _ in pieces) == answer
    assert [text for text, marked in pieces if marked] == ["Wrong one.", "Wrong two."]
    # A span beyond the answer (a report edited by hand) is left out.
    assert marked_pieces(answer, spans[2:]) == [(answer, False)]
    excerpt = marked_pieces(answer, spans[:2], context=5)
    assert excerpt == [
        ("…aaaa ", False),
        ("Wrong one.", True),
        (" bbbb…bbbb ", False),
        ("Wrong two.", True),
        (" cccc…", False),
    ]
