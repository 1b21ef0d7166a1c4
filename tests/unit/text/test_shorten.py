"""Text cut to fit: one line, at most the limit, "…" where it was cut."""

from __future__ import annotations

from rag_eval_pytest.text.shorten import cut, shorten


def test_cut_keeps_text_that_fits_and_marks_a_cut() -> None:
    assert cut("refund", 6) == "refund"
    assert cut("refunds", 6) == "refun…"
    assert len(cut("x" * 500, 200)) == 200


def test_shorten_puts_the_text_on_one_line_before_cutting() -> None:
    assert shorten("  Refunds\n\tare  available ", 40) == "Refunds are available"
    assert shorten("Refunds\nare available", 10) == "Refunds a…"
