"""Escaping untrusted text for Markdown and the terminal cannot be undone by the text itself."""

from __future__ import annotations

from rag_eval_pytest.text.escaping import inline, strip_control


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
