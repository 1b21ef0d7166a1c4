"""pytest's log capture and live logging without secrets or judge request dumps.

At DEBUG (``--log-level=DEBUG``, ``log_cli``), the judge SDKs' loggers print every request:
the ``anthropic`` and ``openai`` SDKs log their "Request options" (the whole prompt, with the
RAG system's answers and contexts), httpx and httpcore their traffic. Those DEBUG records are
kept out of pytest's handlers (the captured log of a report, ``caplog``, live logging and
``--log-file``) unless config ``judge.sdk_debug_logs: true`` lets them in; their INFO and
higher records still pass. Every record that reaches those handlers has the run's known
secrets masked, whichever logger wrote it.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

    from ..redaction import Redactor

SDK_LOGGERS = re.compile(r"(anthropic|openai|httpx\d*|httpcore\d*)(\.|$)")
"""Loggers (with their children) whose DEBUG records dump requests: the SDKs' and those of
their HTTP clients (``httpx2``/``httpcore2`` for newer SDKs)."""

_HANDLERS = ("caplog_handler", "report_handler", "log_cli_handler", "log_file_handler")
"""pytest's logging plugin's handlers, all created with the plugin."""


class CaptureFilter(logging.Filter):
    """Drops the SDKs' DEBUG records (unless ``sdk_debug``) and masks secrets in the rest."""

    def __init__(self, redactor: Redactor, *, sdk_debug: bool) -> None:
        super().__init__("")
        self.redactor = redactor
        self.sdk_debug = sdk_debug

    def filter(self, record: logging.LogRecord) -> bool:
        if self._sdk_debug_record(record):
            return False
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: logging reports it itself
            return True
        masked = self.redactor.text(message)
        if masked != message:
            record.msg, record.args = masked, None
        self._mask_traceback(record)
        return True

    def _sdk_debug_record(self, record: logging.LogRecord) -> bool:
        """A DEBUG record of a judge SDK or its HTTP client, kept out unless let in."""
        if self.sdk_debug or record.levelno >= logging.INFO:
            return False
        return SDK_LOGGERS.match(record.name) is not None

    def _mask_traceback(self, record: logging.LogRecord) -> None:
        """A traceback's text may quote a secret too: formatted now, and masked."""
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redactor.text(record.exc_text)


def install(config: pytest.Config, redactor: Redactor, *, sdk_debug: bool) -> None:
    """Put the filter on each of pytest's log handlers (once)."""
    plugin = config.pluginmanager.get_plugin("logging-plugin")
    if plugin is None:  # -p no:logging
        return
    for name in _HANDLERS:
        handler = getattr(plugin, name, None)
        if isinstance(handler, logging.Handler) and not any(
            isinstance(f, CaptureFilter) for f in handler.filters
        ):
            handler.addFilter(CaptureFilter(redactor, sdk_debug=sdk_debug))
