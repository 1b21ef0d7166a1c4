"""SIGTERM ends a run as Ctrl-C does.

CI timeouts and job cancels send SIGTERM, whose default action kills the process at once:
no partial report, no history line. While the plugin is active, the main thread's SIGTERM
handler raises ``KeyboardInterrupt`` instead, so the run stops the way Ctrl-C stops it (the
finished cases are reported, marked partial) and exits with the fatal code, as an
interrupted run does. The previous handler is restored at the end of the run.
"""

from __future__ import annotations

import signal
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import FrameType


class SigtermAsInterrupt:
    def __init__(self) -> None:
        self.received = False
        self._previous: Any = None
        self._installed = False

    def install(self) -> None:
        """Handle SIGTERM from now on (only in the main thread, where signals are handled)."""
        sigterm = getattr(signal, "SIGTERM", None)
        if sigterm is None or threading.current_thread() is not threading.main_thread():
            return
        try:
            self._previous = signal.signal(sigterm, self._handle)
        except (ValueError, OSError):  # not allowed here: keep the default behaviour
            return
        self._installed = True

    def restore(self) -> None:
        """Put back the handler there was before :meth:`install`."""
        if not self._installed:
            return
        self._installed = False
        try:
            signal.signal(signal.SIGTERM, self._previous)
        except (ValueError, OSError, TypeError):
            return

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.received:  # already stopping: let the reports be written
            return
        self.received = True
        raise KeyboardInterrupt("SIGTERM: the run was terminated")
