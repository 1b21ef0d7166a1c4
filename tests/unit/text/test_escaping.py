"""Escaping untrusted text for Markdown and the terminal cannot be undone by the text itself."""

from __future__ import annotations

import tracemalloc

from rag_eval_pytest.text.escaping import html_text, inline, strip_control
from rag_eval_pytest.text.shorten import LONG_TEXT


def test_escaping_cannot_be_undone_by_the_text_itself() -> None:
    # A backslash in the text does not cancel the escape of the bracket after it.
    assert inline("\\[a](b)") == "\\\\\\[a\\](b)"
    assert inline("a | b") == "a \\| b"
    assert inline("x" * 10, limit=5) == "xxxx…"
    assert strip_control("a\x1b[1;31mb\x1b]8;;u\x1b\\cd\te\nf") == "abcd\te\nf"
    # A bare URL's escape cannot be written by the text either: its "&" is escaped first.
    assert inline("http://x.example &#58;//y") == "http&#58;//x.example &amp;#58;//y"
    assert inline("\u202eabc\u2069") == "abc"


def test_text_read_with_the_wrong_charset_keeps_every_word() -> None:
    # UTF-8 curly quotes read as Latin-1: each holds a C1 character, U+009D among them (the
    # 8-bit start of an OSC sequence). Only the control characters go.
    mojibake = "in old times, \u00e2\x80\x9cfelt\u00e2\x80\x9d the effects of a few events."
    assert strip_control(mojibake) == "in old times, \u00e2felt\u00e2 the effects of a few events."
    # An 8-bit CSI or an OSC without its end is one character gone, the text after it kept.
    assert strip_control("a\x9b2Jb") == "a2Jb"
    assert strip_control("a\x1b]8;;never closed") == "a8;;never closed"
    assert strip_control("a\x1b]8;;https://x\x07link\x1b]8;;\x07") == "alink"


def test_a_huge_text_is_shown_cut_with_a_note_in_markdown_and_html() -> None:
    text = "Refunds <b>take</b> [thirty](x) days.\n" * 300_000  # 11 MB
    note = f" ({len(text):,} characters in all; the whole text is in eval_report.json)"
    tracemalloc.start()
    try:
        markdown, page = inline(text), html_text(text, 2000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert markdown.endswith("…" + note) and markdown.startswith("Refunds &lt;b&gt;take")
    assert len(markdown) < 2 * LONG_TEXT
    assert page == html_text(text[:2000], 2000)[:-1] + "…" + note  # cut where it was
    assert peak < 4 * len(text)  # a copy or two of the text, never a list of its words
    assert inline("short") == "short" and html_text("<short>") == "&lt;short&gt;"
