"""pytest's log handlers: the judge SDKs' DEBUG request dumps are kept out unless asked for,
and every record that gets in has the run's secrets masked, in its message and traceback."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from rag_eval_pytest.pytest_support.log_capture import CaptureFilter, install
from rag_eval_pytest.redaction import Redactor
from tests.unit.pytest_support.fakes import Config

SECRET = "sk-test-0123456789abcdef"


def record(name: str, level: int, msg: str, *args: object, exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            raise RuntimeError(f"refused key {SECRET}")
        except RuntimeError:
            exc_info = sys.exc_info()
    return logging.LogRecord(name, level, __file__, 1, msg, args or None, exc_info)


def capture(*, sdk_debug: bool = False) -> CaptureFilter:
    return CaptureFilter(Redactor([SECRET]), sdk_debug=sdk_debug)


@pytest.mark.parametrize(
    "name", ["anthropic", "anthropic._base_client", "openai", "httpx", "httpcore.http11", "httpx2"]
)
def test_the_sdks_debug_records_are_dropped(name: str) -> None:
    assert not capture().filter(record(name, logging.DEBUG, "Request options: {...}"))


@pytest.mark.parametrize("name", ["anthropic", "httpx"])
def test_the_sdks_info_records_and_asked_for_debug_records_pass(name: str) -> None:
    assert capture().filter(record(name, logging.INFO, "HTTP Request: POST"))
    assert capture(sdk_debug=True).filter(record(name, logging.DEBUG, "Request options"))


@pytest.mark.parametrize("name", ["my_rag", "anthropicish", "rag_eval_pytest"])
def test_other_loggers_debug_records_pass(name: str) -> None:
    assert capture().filter(record(name, logging.DEBUG, "retrieved 3 passages"))


def test_a_secret_in_a_message_or_its_arguments_is_masked() -> None:
    formatted = record("my_rag", logging.INFO, "calling with key %s", SECRET)
    assert capture().filter(formatted)
    assert SECRET not in formatted.getMessage()
    assert formatted.getMessage() == "calling with key [REDACTED]"
    plain = record("my_rag", logging.INFO, "nothing secret: %d passages", 3)
    capture().filter(plain)
    assert (plain.msg, plain.args) == ("nothing secret: %d passages", (3,))  # left as it was


def test_a_secret_in_a_traceback_is_masked() -> None:
    failed = record("my_rag", logging.ERROR, "the call failed", exc=True)
    assert capture().filter(failed)
    assert failed.exc_text is not None
    assert SECRET not in failed.exc_text and "refused key [REDACTED]" in failed.exc_text


def test_a_malformed_record_passes_for_logging_to_report() -> None:
    malformed = record("my_rag", logging.INFO, "%s and %s", "only one")
    assert capture().filter(malformed)


def test_install_puts_one_filter_on_each_of_pytests_handlers(tmp_path: Path) -> None:
    handlers = {
        name: logging.Handler()
        for name in ("caplog_handler", "report_handler", "log_cli_handler", "log_file_handler")
    }
    plugin = SimpleNamespace(**handlers)
    config = Config(tmp_path, plugins={"logging-plugin": plugin})
    install(config, Redactor([SECRET]), sdk_debug=False)
    install(config, Redactor([SECRET]), sdk_debug=False)  # a second activation adds none
    for handler in handlers.values():
        assert [type(f) for f in handler.filters] == [CaptureFilter]
    dump = record("openai", logging.DEBUG, f"Request options: key {SECRET}")
    assert not handlers["report_handler"].filter(dump)


def test_install_without_the_logging_plugin_does_nothing(tmp_path: Path) -> None:
    install(Config(tmp_path), Redactor(), sdk_debug=False)  # -p no:logging
