"""SIGTERM ends a run as Ctrl-C does: the handler raises ``KeyboardInterrupt`` once, a second
SIGTERM while the reports are written is ignored, and the handler there was comes back."""

from __future__ import annotations

import signal
import threading

import pytest

from rag_eval_pytest.pytest_support.termination import SigtermAsInterrupt


@pytest.fixture
def handler() -> SigtermAsInterrupt:
    sigterm = SigtermAsInterrupt()
    yield sigterm
    sigterm.restore()


def test_sigterm_stops_the_run_as_ctrl_c_does_and_the_old_handler_comes_back(
    handler: SigtermAsInterrupt,
) -> None:
    before = signal.getsignal(signal.SIGTERM)
    handler.install()
    assert signal.getsignal(signal.SIGTERM) == handler._handle
    with pytest.raises(KeyboardInterrupt, match="SIGTERM: the run was terminated"):
        signal.raise_signal(signal.SIGTERM)
    assert handler.received
    handler.restore()
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_second_sigterm_lets_the_reports_be_written(handler: SigtermAsInterrupt) -> None:
    with pytest.raises(KeyboardInterrupt):
        handler._handle(signal.SIGTERM, None)
    handler._handle(signal.SIGTERM, None)  # no second interrupt while the run is stopping
    assert handler.received


def test_outside_the_main_thread_nothing_is_installed(handler: SigtermAsInterrupt) -> None:
    before = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=handler.install)
    thread.start()
    thread.join()
    assert signal.getsignal(signal.SIGTERM) == before
    handler.restore()  # nothing to give back
    assert signal.getsignal(signal.SIGTERM) == before


def test_restoring_twice_gives_back_the_handler_once(handler: SigtermAsInterrupt) -> None:
    before = signal.getsignal(signal.SIGTERM)
    handler.install()
    handler.restore()

    def other(signum: int, frame: object) -> None:
        pass

    signal.signal(signal.SIGTERM, other)
    try:
        handler.restore()  # already given back: another handler set since is kept
        assert signal.getsignal(signal.SIGTERM) == other
    finally:
        signal.signal(signal.SIGTERM, before)
