"""``$GITHUB_STEP_SUMMARY``: the run's Markdown summary on the CI job's page (rendered by
:func:`.markdown.render_step_summary`), and the summary of a run that ended before its tests.

Appended, never raised: a summary that cannot be written is reported by the caller and never
changes the exit code.
"""

from __future__ import annotations

import os

from ..text.escaping import inline
from .wording import verdict_line

SUMMARY_FILE = "eval_summary.md"
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def append_step_summary(text: str) -> str | None:
    """Append ``text`` when the variable is set; the problem, if the file cannot be written."""
    target = os.environ.get(STEP_SUMMARY_ENV)
    if not target:
        return None
    try:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(text.rstrip("\n") + "\n")
    except OSError as exc:
        return f"{target} ({STEP_SUMMARY_ENV}): {exc.strerror or exc}"
    return None


def render_fatal_summary(reason: str, code: int) -> str:
    """The step summary of a run that ended before any test: the one-line reason."""
    return f"## {verdict_line(code, 'fatal')}\n\n{inline(reason)}\n"


def append_fatal_summary(reason: str, code: int) -> None:
    """A run that ends before any test (bad input) still says why on the job's page."""
    append_step_summary(render_fatal_summary(reason, code))
