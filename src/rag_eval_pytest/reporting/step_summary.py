"""``$GITHUB_STEP_SUMMARY``: the run's Markdown summary on the CI job's page (rendered by
:func:`.markdown.render_step_summary`), and the summary of a run that ended before its tests.

Appended, never raised: a summary that cannot be written is reported by the caller and never
changes the exit code.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TextIO, cast

from ..text.escaping import inline
from .wording import verdict_line

if TYPE_CHECKING:
    from collections.abc import Callable

SUMMARY_FILE = "eval_summary.md"
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def append_step_summary(text: str | Callable[[TextIO], object]) -> str | None:
    """Append ``text`` (or what it writes, as it writes it) when the variable is set, ending
    in one newline; the problem, if the file cannot be written."""
    target = os.environ.get(STEP_SUMMARY_ENV)
    if not target:
        return None
    try:
        with open(target, "a", encoding="utf-8") as fh:
            ending = _OneNewline(fh)
            if isinstance(text, str):
                ending.write(text)
            else:
                text(cast("TextIO", ending))
            ending.close()
    except OSError as exc:
        return f"{target} ({STEP_SUMMARY_ENV}): {exc.strerror or exc}"
    return None


class _OneNewline:
    """Writes to ``out`` what it is given, its newlines at the end held back and replaced by
    one (:meth:`close`): a summary is appended to a file others append to."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.held = ""

    def write(self, text: str) -> int:
        body = text.rstrip("\n")
        if body:
            self.out.write(self.held + body)
            self.held = ""
        self.held += text[len(body) :]
        return len(text)

    def close(self) -> None:
        self.out.write("\n")


def render_fatal_summary(reason: str, code: int) -> str:
    """The step summary of a run that ended before any test: the one-line reason."""
    return f"## {verdict_line(code, 'fatal')}\n\n{inline(reason)}\n"


def append_fatal_summary(reason: str, code: int) -> None:
    """A run that ends before any test (bad input) still says why on the job's page."""
    append_step_summary(render_fatal_summary(reason, code))
