"""The live progress line of a run that evaluates ahead of its tests.

:class:`RunProgress` counts what the evaluation has done so far: cases finished out of those
scheduled, judge requests, cache hits and cost. It is updated on the event loop thread and
read on the main thread (plain integers and floats: a torn read is at worst one case old).

:class:`ProgressLine` shows it while a test waits for its case, on a terminal only: pytest's
own progress (the dots, ``-v``'s test names) stays as it is, and the status is written after
it on the same line, then erased before pytest writes again::

    tests/test_rag.py ......  rag-eval: 12/30 cases evaluated, 48 judge calls, $0.07

Nothing is written under ``-q``, when the output is not a terminal (CI logs, pipes), on
xdist workers, or before the tests have spent a second waiting in all (a short or fully
cached run never shows it).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..text.shorten import cut

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..judges.base import Usage

# ANSI: save the cursor, go back to it, erase to the end of the line.
SAVE, RESTORE, ERASE = "\x1b7", "\x1b8", "\x1b[K"


@dataclass
class RunProgress:
    cases: int = 0
    finished: set[str] = field(default_factory=set)
    judge_calls: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0
    _pending: dict[str, int] = field(default_factory=dict)

    def add_usage(self, usage: Usage) -> None:
        self.judge_calls += usage.judge_calls
        self.cache_hits += usage.cache_hits
        self.cost_usd += usage.cost_usd

    def track(self, case: str, future: Any) -> None:
        """``future`` is work for ``case``: the case is finished when none is left running."""
        self._pending[case] = self._pending.get(case, 0) + 1
        self.finished.discard(case)

        def done(_: Any) -> None:
            self._pending[case] -= 1
            if not self._pending[case]:
                self.finished.add(case)

        future.add_done_callback(done)

    def line(self) -> str:
        parts = [f"rag-eval: {len(self.finished)}/{self.cases} cases evaluated"]
        if self.judge_calls or self.cache_hits:
            calls = f"{self.judge_calls} judge call{'s' if self.judge_calls != 1 else ''}"
            if self.cache_hits:
                calls += f" ({self.cache_hits} cached)"
            parts.append(calls)
        if self.cost_usd:
            parts.append(f"${self.cost_usd:.2f}")
        return ", ".join(parts)


class ProgressLine:
    """Shows ``progress`` after pytest's output while the main thread waits on the loop.

    ``write`` writes to the terminal (pytest's terminal writer, with output capturing
    suspended); ``room`` says how many columns are left on the current line."""

    def __init__(
        self,
        progress: RunProgress,
        write: Callable[[str], None],
        room: Callable[[], int],
        *,
        after: float = 1.0,
        flicker: float = 0.1,
        interval: float = 0.25,
    ) -> None:
        self.progress = progress
        self._write = write
        self._room = room
        self.after = after
        self.flicker = flicker
        self.interval = interval
        self.waited = 0.0
        self._shown: str | None = None

    def wait(self, future: concurrent.futures.Future[Any]) -> None:
        """Block until ``future`` is done. Once the run has spent ``after`` seconds waiting in
        all (a long run, not a cached one), every wait longer than ``flicker`` shows the line."""
        started = time.monotonic()
        try:
            first = max(self.flicker, self.after - self.waited)
            if concurrent.futures.wait([future], timeout=first).done:
                return
            while True:
                self._show(self.progress.line())
                if concurrent.futures.wait([future], timeout=self.interval).done:
                    return
        finally:
            self._hide()
            self.waited += time.monotonic() - started

    def _show(self, text: str) -> None:
        room = self._room() - 1  # the last column stays free: the cursor must not wrap
        text = "  " + text
        if room < 16:
            return
        text = cut(text, room)
        if text == self._shown:
            return
        prefix = RESTORE + ERASE if self._shown is not None else SAVE
        self._shown = text
        self._write(prefix + text)

    def _hide(self) -> None:
        if self._shown is not None:
            self._shown = None
            self._write(RESTORE + ERASE)


def terminal_line(config: Any, progress: RunProgress) -> ProgressLine | None:
    """The progress line for this pytest run, or ``None`` where it must stay quiet."""
    if config.get_verbosity() < 0 or hasattr(config, "workerinput"):
        return None
    if config.pluginmanager.get_plugin("terminalreporter") is None:
        return None
    writer = config.get_terminal_writer()  # the writer of pytest's own dots
    isatty = getattr(getattr(writer, "_file", None), "isatty", None)
    if not callable(isatty) or not isatty():
        return None
    capture = config.pluginmanager.get_plugin("capturemanager")

    def write(text: str) -> None:
        # The wait happens inside a test, while pytest captures its output.
        suspended = capture.global_and_fixture_disabled() if capture else contextlib.nullcontext()
        with suspended:
            writer.write(text, flush=True)

    def room() -> int:
        return int(writer.fullwidth) - int(writer.width_of_current_line)

    return ProgressLine(progress, write, room)
