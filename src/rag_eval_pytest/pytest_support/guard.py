"""A guard around the plugin's hooks: an unexpected exception in plugin code becomes one
fatal message naming the plugin, the hook and the cause, never pytest's INTERNALERROR
traceback.

The message: ``rag-eval: internal error in <hook>: <Type>: <message>``, with the fatal exit
code and a hint to report it; the traceback follows only with ``-v`` or ``--tb=long``. Known
secrets (API keys, auth headers) are redacted from both. Deliberate outcomes pass through
untouched: ``pytest.exit``, ``pytest.UsageError``, skips and failures.
"""

from __future__ import annotations

import functools
import sys
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import pytest

from ..engine.running import RUNNER_PLUGIN

if TYPE_CHECKING:
    from collections.abc import Callable, Generator

    from ..engine.session import EvalSession

F = TypeVar("F", bound="Callable[..., Any]")

# A failure while pytest collects: pytest would turn pytest.exit into one more collection
# error, so the run ends at the first hook after collection (exit_if_deferred).
DEFERRED_KEY: pytest.StashKey[tuple[str, int]] = pytest.StashKey()
# The role objects that hold the process's evaluation session (its redactor masks messages).
AGGREGATING_PLUGIN = "rag_eval_aggregator"
"""The plugin name of the process that writes the reports (a plain run, the controller)."""
ROLE_PLUGINS = (AGGREGATING_PLUGIN, RUNNER_PLUGIN)

HINT = (
    "this is a bug in rag-eval-pytest: please report it with the traceback "
    "(shown with -v or --tb=long)"
)


def guarded(
    hook: str, *, stop: Literal["now", "after collection", "at the end"] = "now"
) -> Callable[[F], F]:
    """Guard a hook (or the part of a hook wrapper that runs plugin code) named ``hook``.

    ``stop``: ``now`` ends the run through ``pytest.exit``; ``after collection`` (a hook
    run while pytest collects) remembers the message for :func:`exit_if_deferred`; ``at the
    end`` (the hooks that run while the session finishes, where pytest's own summary is
    still to come) prints the message and sets the session's exit status to the fatal code.
    The failed hook returns ``None`` in the last two cases.
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except (pytest.exit.Exception, pytest.UsageError):
                raise
            except Exception as exc:
                error = exc
            failure = _Failure.of(hook, error, args, kwargs)
            del error  # no frame of the failure outlives the message
            _STOPS[stop](failure)
            return None

        return cast("F", wrapper)

    return decorate


@dataclass(frozen=True)
class _Failure:
    """A guarded hook's failure, said: its message, the traceback lines to show, the fatal
    code, and the config and session of the run it ends."""

    message: str
    details: list[str]
    code: int
    config: pytest.Config | None
    session: object

    @classmethod
    def of(
        cls, hook: str, error: Exception, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> _Failure:
        config = _find(pytest.Config, args, kwargs)
        message, details = describe(config, hook, error)
        session = _find(pytest.Session, args, kwargs)
        if session is None and config is not None:  # pytest_unconfigure: pytest's own
            session = config.pluginmanager.get_plugin("session")
        return cls(message, details, _fatal_code(config), config, session)


def _stop_now(failure: _Failure) -> None:
    _write(failure.config, failure.details)
    pytest.exit(failure.message, returncode=failure.code)


def _stop_after_collection(failure: _Failure) -> None:
    """Remembered for :func:`exit_if_deferred`; without a config, stopped at the end."""
    if failure.config is None:
        _stop_at_the_end(failure)
        return
    _write(failure.config, failure.details)
    failure.config.stash.setdefault(DEFERRED_KEY, (failure.message, failure.code))


def _stop_at_the_end(failure: _Failure) -> None:
    """The message printed, and the fatal code as the session's exit status."""
    _write(failure.config, [failure.message, *failure.details])
    if isinstance(failure.session, pytest.Session):
        failure.session.exitstatus = failure.code


_STOPS: dict[str, Callable[[_Failure], None]] = {
    "now": _stop_now,
    "after collection": _stop_after_collection,
    "at the end": _stop_at_the_end,
}


def exit_if_deferred(config: pytest.Config) -> None:
    """End the run with the message of a hook that failed during collection, if one did."""
    deferred = config.stash.get(DEFERRED_KEY, None)
    if deferred is not None:
        pytest.exit(deferred[0], returncode=deferred[1])


def describe(
    config: pytest.Config | None, hook: str, error: BaseException
) -> tuple[str, list[str]]:
    """The one-line message, and the traceback lines to show (none unless asked for)."""
    redact = _redactor(config)
    cause = redact(f"{type(error).__name__}: {error}".strip().splitlines()[0])
    message = f"rag-eval: internal error in {hook}: {cause} ({HINT})"
    details: list[str] = []
    if config is not None and _verbose(config):
        formatted = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        details = [redact(line) for line in formatted.rstrip().splitlines()]
    return message, details


def _verbose(config: pytest.Config) -> bool:
    option = config.option
    return bool(getattr(option, "verbose", 0) > 0 or getattr(option, "tbstyle", "") == "long")


def _redactor(config: pytest.Config | None) -> Callable[[str], str]:
    from ..redaction import Redactor

    session = _session(config)
    redactor = session.redactor if session is not None else Redactor.from_environment()
    return redactor.text


def _session(config: pytest.Config | None) -> EvalSession | None:
    """The process's evaluation session, from its role object, if it has one yet."""
    for name in ROLE_PLUGINS if config is not None else ():
        role = config.pluginmanager.get_plugin(name)  # type: ignore[union-attr]
        if role is not None:
            return cast("EvalSession", role.session)
    return None


def _fatal_code(config: pytest.Config | None) -> int:
    if config is None:
        return 3
    from .bootstrap import fatal_exit_code

    return fatal_exit_code(config)


def _write(config: pytest.Config | None, lines: list[str]) -> None:
    if not lines:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter") if config else None
    if reporter is not None:
        for line in lines:
            reporter.write_line(line)
    else:
        sys.stderr.write("".join(f"{line}\n" for line in lines))


T = TypeVar("T")


def _find(kind: type[T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T | None:
    """The first argument of type ``kind``, or of an argument's ``config``/``session``."""
    for value in (*args, *kwargs.values()):
        for candidate in (value, getattr(value, "config", None), getattr(value, "session", None)):
            if isinstance(candidate, kind):
                return candidate
    return None


class SingleExitMessage:
    """Show a fatal message once.

    pytest prints a ``pytest.exit`` raised before the session has started (a bad dataset or
    config found in ``pytest_configure``) twice: as ``Exit: <message>`` on stderr, then again
    as ``! _pytest.outcomes.Exit: <message> !`` when its terminal reporter closes. Registered by
    the plugin, this drops the second; an exit once the session runs is printed once already.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = False

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionstart(self) -> Generator[None, None, None]:
        yield
        self.started = True

    @pytest.hookimpl(trylast=True)  # after the terminal reporter has kept the exit
    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        if self.started or not isinstance(excinfo.value, pytest.exit.Exception):
            return
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and hasattr(reporter, "_keyboardinterrupt_memo"):
            reporter._keyboardinterrupt_memo = None
