"""Text cut to fit a message, a report cell or a terminal line, with "…" where it was cut."""

from __future__ import annotations


def cut(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its start and "…" in
    ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten(text: str, limit: int) -> str:
    """``text`` on one line (runs of white space as one space), :func:`cut` to ``limit``."""
    return cut(" ".join(text.split()), limit)
