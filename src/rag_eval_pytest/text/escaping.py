"""Making untrusted text inert: answers, contexts, sources, case ids, dataset names, judge
reasons and error messages come from the RAG system, the dataset or a judge, and are shown
on a terminal, in Markdown rendered by GitHub, in a CI job's step summary and in the HTML
report.

:func:`strip_control` removes terminal control sequences (ANSI colours, screen clears,
OSC-8 hyperlinks, bare control characters) and the bidirectional controls that reorder
what a reader sees (U+202E shows ``txt.exe`` as ``exe.txt``); :func:`inline` also makes the
text one line of inert Markdown: HTML tags and entities, links, images, code spans, fences
and the bare URLs GitHub would link by itself are shown as the characters they are, never
rendered. Every renderer uses these two; :func:`html_text` makes text inert in HTML.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from .shorten import LONG_TEXT, cut, long_note, one_line

if TYPE_CHECKING:
    from collections.abc import Iterable

# ESC ] ... (BEL | ESC \ | ST): OSC, e.g. an OSC-8 hyperlink; ESC [ ... final: CSI
# (colours, cursor moves, screen clears); ESC and one more character; then every other C0/C1
# control character but tab and newline, one at a time, and the bidirectional controls: the
# embeddings and overrides (U+202A-U+202E), the isolates (U+2066-U+2069) and the marks
# (U+200E, U+200F, U+061C).
# An OSC without its terminator loses only its introducer, and the 8-bit introducers (U+009B,
# U+009D) are single characters: in text they are nearly always UTF-8 read with the wrong
# charset (a curly quote as "\u00e2" U+0080 U+009C), and reading them as the start of a sequence
# dropped the rest of a context, the sentence that supports the answer included. What is left
# of such a sequence is printable text, inert on every output.
_CONTROL = re.compile(
    r"\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)

# Backslash first, so that an escape already in the text cannot undo the next one.
_MARKDOWN = str.maketrans(
    {
        "\\": "\\\\",
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "[": "\\[",
        "]": "\\]",
        "`": "\\`",
        "|": "\\|",
    }
)


# What GitHub links without any Markdown (its autolinks): "http://", "https://" (any
# "scheme://"), "www." and an e-mail address. A character reference in place of ":", "." or
# "@" shows the same character, but the text no longer reads as a link to the autolinker.
_AUTOLINK = re.compile(r"://|(?<![A-Za-z0-9])(www)\.|@", re.IGNORECASE)
_INERT = {"://": "&#58;//", "@": "&#64;"}


def _unlinked(match: re.Match[str]) -> str:
    return _INERT.get(match.group()) or f"{match.group(1)}&#46;"


# What a JSON encoder writing UTF-8 (``ensure_ascii=False``) leaves as it is, but a reader of
# the file should not meet raw: C1 controls, the bidirectional controls, the line and
# paragraph separators.
_RAW_IN_JSON = re.compile(r"[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_inert(encoded: str) -> str:
    """JSON text with those characters written as ``\\uXXXX`` escapes: they only occur
    inside strings, so the data read back is the same, and the file shows nothing
    reordered (a JSON report or a history line opened in an editor or on GitHub)."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)


def strip_control(text: str) -> str:
    """``text`` without terminal control sequences or control characters (tab and newline
    are kept; a carriage return is dropped, as it would overwrite the line before it)."""
    if text.isprintable():  # what the pattern removes starts with a non-printable character
        return text
    return _CONTROL.sub("", text)


def html_text(text: object, limit: int | None = None) -> str:
    """``text`` as inert HTML, for an element's content or a quoted attribute's value:
    control sequences and bidirectional controls removed (:func:`strip_control`), cut at
    ``limit`` characters (with "…"; a text longer than :data:`~.shorten.LONG_TEXT` is cut
    there with a note of its length, whatever the limit), then ``& < > " '`` written as
    character references.
    Newlines are kept (a block styled ``white-space: pre-wrap`` shows them); a URL stays
    text, as HTML links nothing by itself."""
    flat = strip_control(str(text))
    escaped = html.escape(cut(flat, _bound(limit)), quote=True)
    return escaped + long_note(len(flat)) if len(flat) > LONG_TEXT else escaped


def inline(text: object, limit: int | None = None) -> str:
    """``text`` as one line of inert Markdown, usable in a table cell: control sequences
    removed, whitespace collapsed, cut at ``limit`` characters (with "…"; a text longer than
    :data:`~.shorten.LONG_TEXT` is cut there with a note of its length), then HTML and
    the characters of links, images, code and table cells escaped, and bare URLs and
    e-mail addresses written so that GitHub does not link them (``http&#58;//``)."""
    stripped = strip_control(str(text))
    flat = one_line(stripped, _bound(limit))
    escaped = _AUTOLINK.sub(_unlinked, flat.translate(_MARKDOWN))
    return escaped + long_note(len(stripped)) if len(stripped) > LONG_TEXT else escaped


def _bound(limit: int | None) -> int:
    """The most characters shown: ``limit``, and never more than :data:`LONG_TEXT` (a
    longer text is shown cut, with a note of its length)."""
    return LONG_TEXT if limit is None else min(limit, LONG_TEXT)


def code(text: object) -> str:
    """``text`` as an inline code span: control sequences removed and backticks replaced,
    so the span cannot be closed early (HTML inside a code span is already inert)."""
    return "`" + " ".join(strip_control(str(text)).split()).replace("`", "'") + "`"


def _inline_piece(text: str) -> str:
    """A piece of a line as :func:`inline` writes it, ``*`` and ``_`` escaped too (they
    would open or close emphasis), keeping one space at an edge that had white space."""
    body = inline(text).replace("*", "\\*").replace("_", "\\_")
    if not body:
        return " " if text[:1].isspace() else ""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return lead + body + trail


def marked_inline(pieces: Iterable[tuple[str, bool]]) -> str:
    """Pieces of untrusted text ``(text, marked)`` as one line of inert Markdown, the marked
    ones in bold: every piece is escaped first and the ``**`` added after, so no text can
    open or close a mark, a cell or a link."""
    return "".join(
        f"**{_inline_piece(text).strip()}**" if marked and text.strip() else _inline_piece(text)
        for text, marked in pieces
    )


def marked_html(pieces: Iterable[tuple[str, bool]]) -> str:
    """Pieces of untrusted text ``(text, marked)`` as inert HTML, the marked ones in
    ``<mark>``: every piece escaped (:func:`html_text`), then the element added."""
    return "".join(
        f"<mark>{html_text(text)}</mark>" if marked else html_text(text) for text, marked in pieces
    )


def marked_plain(pieces: Iterable[tuple[str, bool]]) -> str:
    """Pieces of untrusted text ``(text, marked)`` for a terminal, the marked ones between
    ``>>>`` and ``<<<``: control sequences removed from every piece first."""
    return "".join(
        f">>>{strip_control(text)}<<<" if marked else strip_control(text) for text, marked in pieces
    )
