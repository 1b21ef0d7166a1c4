"""Making untrusted text inert: answers, contexts, sources, case ids, dataset names, judge
reasons and error messages come from the RAG system, the dataset or a judge, and are shown
on a terminal, in Markdown rendered by GitHub, and in a CI job's step summary.

:func:`strip_control` removes terminal control sequences (ANSI colours, screen clears,
OSC-8 hyperlinks, bare control characters); :func:`inline` also makes the text one line of
inert Markdown: HTML tags and entities, links, images, code spans and fences are shown as
the characters they are, never rendered. Every renderer uses these two.
"""

from __future__ import annotations

import re

from .shorten import cut

# ESC ] ... (BEL | ESC \): OSC, e.g. an OSC-8 hyperlink; ESC [ ... final: CSI (colours,
# cursor moves, screen clears); ESC and one more character; the 8-bit CSI/OSC introducers;
# then every other C0/C1 control character but tab and newline.
_CONTROL = re.compile(
    r"(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
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


def strip_control(text: str) -> str:
    """``text`` without terminal control sequences or control characters (tab and newline
    are kept; a carriage return is dropped, as it would overwrite the line before it)."""
    return _CONTROL.sub("", text)


def inline(text: object, limit: int | None = None) -> str:
    """``text`` as one line of inert Markdown, usable in a table cell: control sequences
    removed, whitespace collapsed, cut at ``limit`` characters (with "…"), then HTML and
    the characters of links, images, code and table cells escaped."""
    flat = " ".join(strip_control(str(text)).split())
    if limit is not None:
        flat = cut(flat, limit)
    return flat.translate(_MARKDOWN)


def code(text: object) -> str:
    """``text`` as an inline code span: control sequences removed and backticks replaced,
    so the span cannot be closed early (HTML inside a code span is already inert)."""
    return "`" + " ".join(strip_control(str(text)).split()).replace("`", "'") + "`"
