"""A failing test's traceback, kept to the end of the run as the text it shows.

pytest keeps every failing test's report until the terminal's summary at the end of the run,
and with it the report's ``longrepr``: a tree of objects (the exception chain, each entry's
source lines, arguments and location) of about 3.5 KB, 120 MB over 33,000 failures. A failure
raised by the plugin's own assertion (:class:`RagAssertionError`) has it rendered once, as the
test ends, under the run's ``--tb`` and colours (:class:`RenderedFailure`): the same text
written at the end, kept compressed (about 0.5 KB).
"""

from __future__ import annotations

import sys
import zlib
from io import StringIO
from typing import TYPE_CHECKING

from _pytest._code.code import ExceptionRepr, ReprFileLocation, TerminalRepr
from _pytest._io import TerminalWriter

from ..engine.assertions import RagAssertionError

if TYPE_CHECKING:
    import pytest


class RenderedFailure(TerminalRepr):
    """A failure's traceback as the terminal writes it: its plain text, and its text with
    the terminal's colours where the terminal has them, each compressed. Its
    :attr:`reprcrash` (the location and the message of the error) stays for the short
    summary (``-r``) and JUnit XML."""

    __slots__ = ("_crash", "_marked", "_plain")

    def __init__(self, plain: str, marked: str | None, reprcrash: ReprFileLocation | None):
        self._plain = _packed(plain)
        self._marked = None if marked is None else _packed(marked)
        self._crash = None
        if reprcrash is not None:
            path = sys.intern(reprcrash.path)  # one test file's failures share it
            self._crash = (path, reprcrash.lineno, _packed(reprcrash.message))

    @property
    def reprcrash(self) -> ReprFileLocation | None:
        if self._crash is None:
            return None
        path, lineno, message = self._crash
        return ReprFileLocation(path, lineno, _unpacked(message))

    def toterminal(self, tw: TerminalWriter) -> None:
        text = self._plain
        if tw.hasmarkup and self._marked is not None:
            text = self._marked
        tw.write(_unpacked(text))


def _packed(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 1)


def _unpacked(data: bytes) -> str:
    return zlib.decompress(data).decode("utf-8")


def compact_failure(
    config: pytest.Config, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    """Replace a failing report's traceback by its rendered text (:class:`RenderedFailure`)
    when the failure is the plugin's own assertion."""
    longrepr = report.longrepr
    if not isinstance(longrepr, ExceptionRepr) or not _assertion_failed(call, report):
        return
    terminal = _terminal_writer(config)
    marked = terminal is not None and terminal.hasmarkup
    report.longrepr = RenderedFailure(
        plain=_render(longrepr, terminal, markup=False),
        marked=_render(longrepr, terminal, markup=True) if marked else None,
        reprcrash=longrepr.reprcrash,
    )


def _assertion_failed(call: pytest.CallInfo[None], report: pytest.TestReport) -> bool:
    """Whether the test failed on the plugin's own assertion."""
    excinfo = call.excinfo
    return report.failed and excinfo is not None and excinfo.errisinstance(RagAssertionError)


def _terminal_writer(config: pytest.Config) -> TerminalWriter | None:
    """The terminal's writer (``None`` with pytest's terminal plugin off)."""
    if config.pluginmanager.get_plugin("terminalreporter") is None:
        return None
    return config.get_terminal_writer()


def _render(longrepr: TerminalRepr, terminal: TerminalWriter | None, *, markup: bool) -> str:
    """The text ``longrepr`` writes on a writer like the terminal's (its width, its source
    highlighting), with colours or without."""
    text = StringIO()
    tw = TerminalWriter(file=text)
    tw.hasmarkup = markup
    if terminal is not None:
        tw.fullwidth = terminal.fullwidth
        tw.code_highlight = terminal.code_highlight
    longrepr.toterminal(tw)
    return text.getvalue()
