"""Escaping untrusted text for Markdown and the terminal cannot be undone by the text itself."""

from __future__ import annotations

from rag_eval_pytest.text.escaping import inline, strip_control


def test_escaping_cannot_be_undone_by_the_text_itself() -> None:
    # A backslash in the text does not cancel the escape of the bracket after it.
    assert inline("\\[a](b)") == "\\\\\\[a\\](b)"
    assert inline("a | b") == "a \\| b"
    assert inline("x" * 10, limit=5) == "xxxx…"
    assert strip_control("a\x1b[1;31mb\x1b]8;;u\x1b\\c\x9b2Jd\te\nf") == "abcd\te\nf"
    # A bare URL's escape cannot be written by the text either: its "&" is escaped first.
    assert inline("http://x.example &#58;//y") == "http&#58;//x.example &amp;#58;//y"
    assert inline("\u202eabc\u2069") == "abc"
