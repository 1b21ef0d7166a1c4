"""Text cut to fit: one line, at most the limit, "…" where it was cut."""

from __future__ import annotations

import tracemalloc

from rag_eval_pytest.text.shorten import LONG_TEXT, cut, cut_long, cut_noted, one_line, shorten


def test_cut_keeps_text_that_fits_and_marks_a_cut() -> None:
    assert cut("refund", 6) == "refund"
    assert cut("refunds", 6) == "refun…"
    assert len(cut("x" * 500, 200)) == 200


def test_shorten_puts_the_text_on_one_line_before_cutting() -> None:
    assert shorten("  Refunds\n\tare  available ", 40) == "Refunds are available"
    assert shorten("Refunds\nare available", 10) == "Refunds a…"


def test_one_line_cut_is_the_whole_text_on_one_line_cut() -> None:
    """Cut while it is put on one line, the text reads the same as put on one line whole
    and then cut, whatever white space it holds (Unicode's included)."""
    pieces = ["ab", " ", "\t", "\n", "\x1c", "\u00a0", "\u3000", "xyz", "é"]
    for n in range(3000):
        text = "".join(pieces[(n * 7 + i * i) % len(pieces)] for i in range(n % 40))
        for limit in (1, 2, 5, 12, 30):
            assert one_line(text, limit) == cut(" ".join(text.split()), limit), (text, limit)


def test_a_huge_text_is_cut_without_being_split_whole() -> None:
    text = "word " * 2_000_000  # 10 MB: split whole, 2 million strings
    tracemalloc.start()
    try:
        shown = shorten(text, 600)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert shown == ("word " * 120)[:599] + "…"
    assert peak < 100_000


def test_a_text_longer_than_long_text_is_cut_with_a_note_of_its_length() -> None:
    assert cut_long("short") == "short"
    long = "x" * (LONG_TEXT + 10)
    assert cut_long(long) == (
        "x" * (LONG_TEXT - 1)
        + f"… ({LONG_TEXT + 10:,} characters in all; the whole text is in eval_report.json)"
    )


def test_a_long_text_stored_again_is_its_start_and_where_the_whole_is() -> None:
    """At most LONG_TEXT characters with its note, so that a report shows it as it is."""
    stored = cut_noted("x" * (3 * LONG_TEXT), "the case's answer")
    note = f"… ({3 * LONG_TEXT:,} characters in all; the whole text is in the case's answer)"
    assert stored.endswith(note) and len(stored) == LONG_TEXT
    assert cut_long(stored) == stored
