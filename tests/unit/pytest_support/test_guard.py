"""The hook guard: an unexpected exception in plugin code becomes one fatal line naming the
hook and the cause, with the fatal exit code, its secrets masked; deliberate outcomes pass
through. When it stops the run depends on when the hook runs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rag_eval_pytest.engine.running import RUNNER_PLUGIN
from rag_eval_pytest.pytest_support.guard import (
    AGGREGATING_PLUGIN,
    DEFERRED_KEY,
    HINT,
    SingleExitMessage,
    exit_if_deferred,
    guarded,
)
from rag_eval_pytest.redaction import Redactor
from tests.unit.pytest_support.fakes import Config

SECRET = "sk-ant-0123456789abcdef"


def failing(hook: str, exc: BaseException, **stop: Any) -> Any:
    @guarded(hook, **stop)
    def hook_impl(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return hook_impl


def session() -> pytest.Session:
    """A session without a collection tree: the guard sets its exit status."""
    made = object.__new__(pytest.Session)
    made.exitstatus = 0
    return made


def test_a_failing_hook_ends_the_run_with_one_line_and_the_fatal_code(tmp_path: Path) -> None:
    config = Config(tmp_path, ini={"rag_fatal_exit_code": "5"})
    hook = failing("pytest_report_header", KeyError("missing"))
    with pytest.raises(pytest.exit.Exception) as stopped:
        hook(config)
    assert stopped.value.returncode == 5
    assert stopped.value.msg == (
        f"rag-eval: internal error in pytest_report_header: KeyError: 'missing' ({HINT})"
    )
    assert config.terminal.lines == []  # no traceback unless asked for


def test_a_multi_line_error_is_named_by_its_first_line(tmp_path: Path) -> None:
    hook = failing("pytest_configure", ValueError("first\nsecond"))
    with pytest.raises(pytest.exit.Exception, match="ValueError: first \\("):
        hook(Config(tmp_path))


@pytest.mark.parametrize(("verbose", "tbstyle"), [(1, "auto"), (0, "long")])
def test_the_traceback_follows_when_asked_for(tmp_path: Path, verbose: int, tbstyle: str) -> None:
    config = Config(tmp_path, verbose=verbose, tbstyle=tbstyle)
    with pytest.raises(pytest.exit.Exception):
        failing("pytest_configure", RuntimeError("boom"))(config)
    assert config.terminal.lines[0] == "Traceback (most recent call last):"
    assert config.terminal.lines[-1] == "RuntimeError: boom"


def test_the_sessions_secrets_are_masked_in_the_message_and_the_traceback(
    tmp_path: Path,
) -> None:
    role = SimpleNamespace(session=SimpleNamespace(redactor=Redactor([SECRET])))
    config = Config(tmp_path, verbose=1, plugins={RUNNER_PLUGIN: role})
    with pytest.raises(pytest.exit.Exception) as stopped:
        failing("pytest_sessionstart", RuntimeError(f"key {SECRET} refused"))(config)
    assert SECRET not in stopped.value.msg and "key [REDACTED] refused" in stopped.value.msg
    assert not any(SECRET in line for line in config.terminal.lines)


def test_before_any_session_the_environments_secrets_are_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with pytest.raises(pytest.exit.Exception) as stopped:
        failing("pytest_configure", RuntimeError(f"bad {SECRET}"))(Config(tmp_path))
    assert SECRET not in stopped.value.msg


def test_without_a_config_the_code_is_3_and_the_traceback_goes_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    @guarded("pytest_sessionfinish", stop="at the end")
    def hook_impl(session: Any) -> None:
        raise RuntimeError("boom")

    finished = session()
    assert hook_impl(finished) is None
    assert finished.exitstatus == 3
    assert capsys.readouterr().err.startswith(
        "rag-eval: internal error in pytest_sessionfinish: RuntimeError: boom"
    )


@pytest.mark.parametrize(
    "outcome",
    [
        pytest.exit.Exception("rag-eval: bad dataset", returncode=3),
        pytest.UsageError("bad option"),
        pytest.skip.Exception("no dataset"),
        pytest.fail.Exception("threshold not met"),
        KeyboardInterrupt(),
    ],
)
def test_deliberate_outcomes_pass_through(tmp_path: Path, outcome: BaseException) -> None:
    with pytest.raises(type(outcome)) as raised:
        failing("pytest_runtest_call", outcome)(Config(tmp_path))
    assert raised.value is outcome


def test_a_hook_that_works_returns_its_value(tmp_path: Path) -> None:
    @guarded("pytest_report_header")
    def header(config: pytest.Config) -> list[str]:
        return ["rag-eval: dataset qa.json"]

    assert header(Config(tmp_path)) == ["rag-eval: dataset qa.json"]


def test_during_collection_the_first_failure_waits_for_the_end_of_collection(
    tmp_path: Path,
) -> None:
    config = Config(tmp_path)
    metafunc = SimpleNamespace(config=config)  # the config is found through an argument
    exit_if_deferred(config)  # nothing deferred: the run goes on
    assert (
        failing("pytest_generate_tests", ValueError("one"), stop="after collection")(metafunc)
        is None
    )
    failing("pytest_generate_tests", ValueError("two"), stop="after collection")(metafunc)
    message, code = config.stash[DEFERRED_KEY]
    assert "ValueError: one" in message and code == 3
    with pytest.raises(pytest.exit.Exception) as stopped:
        exit_if_deferred(config)
    assert (stopped.value.msg, stopped.value.returncode) == (message, code)


def test_at_the_end_the_message_is_printed_and_the_exit_status_set(tmp_path: Path) -> None:
    config = Config(tmp_path, ini={"rag_fatal_exit_code": "7"})
    finished = session()
    finished.config = config
    hook = failing("pytest_sessionfinish", RuntimeError("boom"), stop="at the end")
    assert hook(finished) is None
    assert finished.exitstatus == 7
    assert config.terminal.lines == [
        f"rag-eval: internal error in pytest_sessionfinish: RuntimeError: boom ({HINT})"
    ]


def test_at_unconfigure_pytests_own_session_gets_the_exit_status(tmp_path: Path) -> None:
    finished = session()
    config = Config(tmp_path, plugins={"session": finished})
    failing("pytest_unconfigure", RuntimeError("boom"), stop="at the end")(config)
    assert finished.exitstatus == 3


def test_the_aggregating_processs_session_masks_too(tmp_path: Path) -> None:
    role = SimpleNamespace(session=SimpleNamespace(redactor=Redactor([SECRET])))
    config = Config(tmp_path, plugins={AGGREGATING_PLUGIN: role})
    failing("pytest_unconfigure", RuntimeError(SECRET), stop="at the end")(config)
    assert config.terminal.lines == [
        f"rag-eval: internal error in pytest_unconfigure: RuntimeError: [REDACTED] ({HINT})"
    ]


class Reporter:
    _keyboardinterrupt_memo: object = "Exit: rag-eval: bad dataset"


def interrupted(single: SingleExitMessage, exc: BaseException) -> None:
    try:
        raise exc
    except BaseException:
        single.pytest_keyboard_interrupt(pytest.ExceptionInfo.from_current())


def test_an_exit_before_the_session_is_printed_once(tmp_path: Path) -> None:
    reporter = Reporter()
    single = SingleExitMessage(Config(tmp_path, plugins={"terminalreporter": reporter}))
    interrupted(single, pytest.exit.Exception("rag-eval: bad dataset", returncode=3))
    assert reporter._keyboardinterrupt_memo is None


def test_an_exit_once_the_session_runs_or_ctrl_c_is_left_to_pytest(tmp_path: Path) -> None:
    reporter = Reporter()
    single = SingleExitMessage(Config(tmp_path, plugins={"terminalreporter": reporter}))
    interrupted(single, KeyboardInterrupt())
    assert reporter._keyboardinterrupt_memo is not None
    wrapper = single.pytest_sessionstart()
    next(wrapper)
    with pytest.raises(StopIteration):
        next(wrapper)
    interrupted(single, pytest.exit.Exception("rag-eval: stopped", returncode=3))
    assert reporter._keyboardinterrupt_memo is not None
