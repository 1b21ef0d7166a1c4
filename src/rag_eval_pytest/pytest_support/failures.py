"""A failing test's traceback, kept to the end of the run as the text it shows.

pytest keeps every failing test's report until the terminal's summary at the end of the run,
and with it the report's ``longrepr``: a tree of objects (the exception chain, each entry's
source lines, arguments and location) of about 3.5 KB, 120 MB over 33,000 failures. A failure
raised by the plugin's own assertion (:class:`RagAssertionError`) has it rendered once, as the
test ends, under the run's ``--tb`` and colours (:class:`RenderedFailure`): the same text
written at the end, kept compressed (about 0.5 KB).
"""

from __future__ import annotations

import inspect
import struct
import sys
import zlib
from io import StringIO
from typing import TYPE_CHECKING

import pytest
from _pytest._code.code import ExceptionInfo, ExceptionRepr, ReprFileLocation, TerminalRepr
from _pytest._io import TerminalWriter

from ..engine.assertions import RagAssertionError

if TYPE_CHECKING:
    from types import TracebackType


class RenderedFailure(TerminalRepr):
    """A failure's traceback as the terminal writes it: its plain text, and its text with
    the terminal's colours where the terminal has them. Its :attr:`reprcrash` (the location
    and the message of the error) stays for the short summary (``-r``) and JUnit XML. The
    texts are kept compressed together (the message repeats the traceback's last lines)."""

    __slots__ = ("_lineno", "_packed", "_path")

    def __init__(self, plain: str, marked: str | None, reprcrash: ReprFileLocation | None):
        texts = [plain, marked or "", reprcrash.message if reprcrash else ""]
        self._packed = _packed(texts, marked=marked is not None)
        self._path = None if reprcrash is None else sys.intern(reprcrash.path)  # a file's
        self._lineno = 0 if reprcrash is None else reprcrash.lineno

    @property
    def reprcrash(self) -> ReprFileLocation | None:
        if self._path is None:
            return None
        return ReprFileLocation(self._path, self._lineno, _unpacked(self._packed)[2])

    def toterminal(self, tw: TerminalWriter) -> None:
        plain, marked, _ = _unpacked(self._packed)
        tw.write(marked if tw.hasmarkup and marked is not None else plain)


_SIZES = struct.Struct("<II?")


def _packed(texts: list[str], *, marked: bool) -> bytes:
    """The texts in one compressed piece, their sizes first."""
    encoded = [text.encode("utf-8") for text in texts]
    sizes = _SIZES.pack(len(encoded[0]), len(encoded[1]), marked)
    return zlib.compress(sizes + b"".join(encoded), 1)


def _unpacked(data: bytes) -> tuple[str, str | None, str]:
    """The plain text, the marked one (``None`` without colours) and the message."""
    raw = zlib.decompress(data)
    plain, marked, has_marked = _SIZES.unpack_from(raw)
    at = _SIZES.size
    texts = raw[at : at + plain], raw[at + plain : at + plain + marked], raw[at + plain + marked :]
    decoded = [text.decode("utf-8") for text in texts]
    return decoded[0], decoded[1] if has_marked else None, decoded[2]


SENT_MARK = "rag_assertion_failed"
"""An attribute of a worker's report of a failure of the plugin's assertion: it travels with
the report (xdist sends a report's attributes), so the aggregating process keeps that failure
as its text too (:func:`compact_sent_failure`)."""


def compact_failure(
    config: pytest.Config, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    """Replace a failing report's traceback by its rendered text (:class:`RenderedFailure`)
    when the failure is the plugin's own assertion."""
    if _assertion_failed(call, report):
        _compacted(config, report)


def mark_failure(call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """On a worker: say in the report whether its failure is the plugin's own assertion (its
    traceback travels as pytest's objects, and is compacted where it arrives)."""
    if _assertion_failed(call, report):
        setattr(report, SENT_MARK, True)


def compact_sent_failure(config: pytest.Config, report: pytest.TestReport) -> None:
    """In the aggregating process, once every plugin has seen a worker's report: its
    failure of the plugin's assertion kept as its text, as a plain run keeps it."""
    if report.__dict__.pop(SENT_MARK, False):
        _compacted(config, report)


def _compacted(config: pytest.Config, report: pytest.TestReport) -> None:
    longrepr = report.longrepr
    if not isinstance(longrepr, ExceptionRepr):
        return
    terminal = _terminal_writer(config)
    marked = terminal is not None and terminal.hasmarkup
    report.longrepr = RenderedFailure(
        plain=_render(longrepr, terminal, markup=False),
        marked=_render(longrepr, terminal, markup=True) if marked else None,
        reprcrash=longrepr.reprcrash,
    )


def trim_traceback(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    """Start a failing assertion's traceback at the test function, where pytest cuts it
    before it shows it: the frames above it (pytest's and pluggy's, some 25) were each looked
    at again to find it, the costliest part of a failure. Not with ``--full-trace``,
    ``--tb=native`` or ``--pdb``, which show or step through those frames."""
    excinfo = call.excinfo
    if excinfo is None or not _cut_by_pytest(item, excinfo):
        return
    test = getattr(item, "obj", None)
    code = getattr(inspect.unwrap(test), "__code__", None) if callable(test) else None
    first = _frame_of(excinfo.tb, code)
    if first is not None and first is not excinfo.tb:
        call.excinfo = ExceptionInfo.from_exc_info((excinfo.type, excinfo.value, first))


def _cut_by_pytest(item: pytest.Item, excinfo: ExceptionInfo[BaseException]) -> bool:
    """Whether the failure is the plugin's assertion and pytest shows it from the test
    function on."""
    if not isinstance(item, pytest.Function) or not excinfo.errisinstance(RagAssertionError):
        return False
    config = item.config
    if config.getoption("fulltrace", False) or config.getoption("usepdb", False):
        return False
    return bool(config.getoption("tbstyle", "auto") != "native")


def _frame_of(tb: TracebackType | None, code: object) -> TracebackType | None:
    """The traceback from the frame running ``code`` on (``None``: none runs it)."""
    while tb is not None and tb.tb_frame.f_code is not code:
        tb = tb.tb_next
    return tb


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
