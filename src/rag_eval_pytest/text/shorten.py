"""Text cut to fit a message, a report cell or a terminal line, with "…" where it was cut.

A text longer than :data:`LONG_TEXT` (a 10 MB answer, a judge's runaway reason) is shown cut
wherever it appears, with a note of its length (:func:`cut_long`): ``eval_report.json`` has it
whole. Cutting reads no further into a text than the part shown needs (:func:`one_line`)."""

from __future__ import annotations

import re

LONG_TEXT = 65_536
"""Characters of untrusted text shown at most: a longer one is cut, with a note."""

_WORD = re.compile(r"\S+")


def cut(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its start and "…" in
    ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line (runs of white space as one space), :func:`cut` to ``limit``:
    the words past the cut are never read (a huge text is not split whole)."""
    if limit is None or len(text) <= limit:
        return " ".join(text.split())
    words: list[str] = []
    size = -1
    for word in _WORD.finditer(text):
        words.append(word.group())
        size += len(words[-1]) + 1
        if size > limit:
            break
    return cut(" ".join(words), limit)


def shorten(text: str, limit: int) -> str:
    """``text`` on one line (runs of white space as one space), :func:`cut` to ``limit``."""
    return one_line(text, limit)


def long_note(length: int, where: str = "eval_report.json") -> str:
    """What a text cut for being longer than :data:`LONG_TEXT` says after its start."""
    return f" ({length:,} characters in all; the whole text is in {where})"


def cut_noted(text: str, where: str) -> str:
    """A long text stored again where ``where`` holds it whole: its start, "…" and a note of
    its length and of ``where``, at most :data:`LONG_TEXT` characters in all (so that it is
    shown as it is, without a second note)."""
    note = long_note(len(text), where)
    return cut(text, LONG_TEXT - len(note)) + note


def cut_long(text: str) -> str:
    """``text``, or when longer than :data:`LONG_TEXT` its start, "…" and a note of its
    length (:func:`long_note`)."""
    if len(text) <= LONG_TEXT:
        return text
    return cut(text, LONG_TEXT) + long_note(len(text))
