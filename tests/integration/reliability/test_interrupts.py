"""A real Ctrl-C (SIGINT) while the RAG system is still answering: the run stops promptly,
the reports hold every case that finished, marked partial, and the history line says so."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import case
from tests.integration.adapters.server import Fault, FaultServer, Request, answer_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")

CASES = [
    case("done", "refund policy?", expected_contexts=["policy.md"]),
    case("stuck", "stuck question?", expected_contexts=["policy.md"]),
    case("never", "refund again?", expected_contexts=["policy.md"]),
]
HTTP_CONFIG = """
http:
  response:
    answer: data.answer
    contexts: data.documents[*].text
    sources: data.documents[*].metadata.source
metrics:
  retrieval_recall: 1.0
"""
HANGING_CALLABLE = """
import pathlib, time

def answer(question):
    if "stuck" in question:
        pathlib.Path("stuck.started").touch()
        time.sleep(10)  # a RAG call that hangs far longer than anyone waits for Ctrl-C
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]
"""


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _hear_ctrl_c() -> None:
    """In the child: Ctrl-C as a terminal sends it, even where this suite runs as a
    background job of a shell, whose children inherit SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_when_stuck(
    pytester: pytest.Pytester,
    started: Callable[[], bool],
    *args: str,
    send: signal.Signals = signal.SIGINT,
    finished: bytes | None = b"::done PASSED",
) -> tuple[int, float, str]:
    """Run pytest in a child process, signal it (SIGINT) once ``stuck`` hangs (and ``done``
    passed, unless ``finished`` is ``None``); return its exit code, the seconds it took to
    stop, and its output."""
    log = pytester.path / "stdout.txt"
    command = [sys.executable, "-m", "pytest", "--rag-dataset=dataset.json", *args]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, "--rag-concurrency=1", "-p", "no:randomly", "-v"],
            cwd=pytester.path,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            preexec_fn=_hear_ctrl_c,
        )
        try:
            ready = wait_for(
                lambda: started() and (finished is None or finished in log.read_bytes()), 60
            )
            assert ready, log.read_text(errors="replace")
            interrupted_at = time.monotonic()
            process.send_signal(send)
            code = process.wait(timeout=60)
            stopped_after = time.monotonic() - interrupted_at
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    return code, stopped_after, log.read_text(errors="replace")


def assert_partial_reports_kept_the_finished_case(pytester: pytest.Pytester) -> None:
    results = pytester.path / "results"
    report = json.loads((results / "eval_report.json").read_text(encoding="utf-8"))
    assert report["run"]["partial"] is True
    assert [c["id"] for c in report["cases"]] == ["done"]
    assert report["cases"][0]["metrics"]["retrieval_recall"]["score"] == 1.0
    [line] = (results / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["partial"] is True
    assert "**Partial run:**" in (results / "eval_report.md").read_text(encoding="utf-8")


@pytest.fixture
def hanging_server() -> Iterator[FaultServer]:
    server = FaultServer()
    server._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]

    def route(request: Request) -> Fault:
        if "stuck" in request.json()["question"]:
            return Fault(body=answer_for, delay=60)  # ends early when the server stops
        return Fault(body=answer_for)

    server.route = route
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_ctrl_c_while_an_http_request_hangs_stops_at_once_and_keeps_the_finished_cases(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], hanging_server: FaultServer
) -> None:
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": HTTP_CONFIG})

    def stuck_request_sent() -> bool:
        return any("stuck" in r.json()["question"] for r in list(hanging_server.requests))

    code, stopped_after, output = interrupt_when_stuck(
        pytester, stuck_request_sent, "--rag-adapter=http", f"--rag-endpoint={hanging_server.url}"
    )
    assert code == 3, output  # pytest's 2 (interrupted) would read as "a critical case failed"
    assert "rag-eval: exit 3: fatal: pytest: interrupted" in output
    assert stopped_after < 8, f"{stopped_after:.1f} s to stop after Ctrl-C\n{output}"
    assert "KeyboardInterrupt" in output
    assert "partial run: interrupted before every case finished" in output
    assert_partial_reports_kept_the_finished_case(pytester)
    assert not [r for r in hanging_server.requests if "again" in r.json()["question"]]


def signal_a_hanging_callable(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], send: signal.Signals
) -> tuple[int, float, str]:
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\n"})
    pytester.makepyfile(app=HANGING_CALLABLE)
    code, stopped_after, output = interrupt_when_stuck(
        pytester, (pytester.path / "stuck.started").exists, "--rag-target=app.py:answer", send=send
    )
    assert code == 3, output  # pytest's 2 (interrupted) would read as "a critical case failed"
    assert "rag-eval: exit 3: fatal: pytest: interrupted" in output
    assert_partial_reports_kept_the_finished_case(pytester)
    assert stopped_after < 5, f"{stopped_after:.1f} s to stop after {send.name}"
    return code, stopped_after, output


def test_ctrl_c_while_a_sync_callable_hangs_stops_at_once(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    signal_a_hanging_callable(pytester, write_dataset, signal.SIGINT)


SLOW_FINISHING_CALLABLE = """
import pathlib, time

def answer(question):
    if "stuck" in question:
        time.sleep(1.5)
        pathlib.Path("stuck.finished").touch()
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "nowhere.md"}]
"""


def test_a_run_that_ends_normally_lets_blocking_calls_in_flight_finish(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    # -x stops after the first failing case while the next one is still inside a sync RAG
    # call in a worker thread: without Ctrl-C the process waits for it instead of cutting it
    # off at exit (a model still loading in native code would abort the process).
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\n"})
    pytester.makepyfile(app=SLOW_FINISHING_CALLABLE)
    result = pytester.runpytest_subprocess(
        "--rag-dataset=dataset.json", "--rag-target=app.py:answer", "-x", "-p", "no:randomly"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.assert_outcomes(failed=1)
    assert (pytester.path / "stuck.finished").exists()


def test_sigterm_while_a_sync_callable_hangs_writes_the_partial_reports_as_ctrl_c_does(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    # CI timeouts and job cancels send SIGTERM, whose default action kills the process at
    # once (exit 143) with no report and no history line.
    _, _, output = signal_a_hanging_callable(pytester, write_dataset, signal.SIGTERM)
    assert "SIGTERM" in output


def test_the_sigterm_handler_is_the_previous_one_again_after_the_run(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    before = signal.getsignal(signal.SIGTERM)
    # The local judge named: a run that falls back to it from `auto` is fatal on an unsure
    # verdict (exit 3), which is not what this test is about.
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", f"--rag-target={rag_app}", "--rag-judge=local"
    )
    assert result.ret in (0, 1, 2), result.stdout.str()
    assert signal.getsignal(signal.SIGTERM) is before


BLOCKING_ASYNC_CALLABLE = """
import pathlib, time

async def answer(question):
    if "stuck" in question:
        pathlib.Path("stuck.started").touch()
        time.sleep(3600)  # blocks the event loop it runs on
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]
"""


def test_sigterm_while_an_async_callable_blocks_the_event_loop_exits_at_once_with_a_report(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    # A CI timeout sends SIGTERM, then SIGKILL about 10 s later. The run used to take 31 to
    # 33 s to exit (every wait at the end of the run on the blocked loop ran out), and wrote
    # nothing when no case had finished.
    write_dataset([CASES[1], CASES[0], CASES[2]])  # the stuck case first: none finishes
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\n"})
    pytester.makepyfile(app=BLOCKING_ASYNC_CALLABLE)
    code, stopped_after, output = interrupt_when_stuck(
        pytester,
        (pytester.path / "stuck.started").exists,
        "--rag-target=app.py:answer",
        send=signal.SIGTERM,
        finished=None,
    )
    assert code == 3, output
    assert "rag-eval: exit 3: fatal: pytest: interrupted: SIGTERM" in output
    assert stopped_after < 5, f"{stopped_after:.1f} s to stop after SIGTERM\n{output}"
    report = json.loads((pytester.path / "results" / "eval_report.json").read_text())
    assert report["run"]["partial"] is True
    assert report["run"]["exit_code"] == 3
    assert report["cases"] == []
    assert "**Partial run:**" in (pytester.path / "results" / "eval_report.md").read_text()


CTRL_C_AT_PASSED = """
def pytest_runtest_logreport(report):
    # Ctrl-C as the terminal shows the first case's outcome (a plugin in the default order).
    if report.when == "call" and report.nodeid.endswith("done"):
        raise KeyboardInterrupt
"""


def test_ctrl_c_as_a_case_shows_passed_keeps_that_case(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\n"})
    pytester.makepyfile(app=HANGING_CALLABLE.replace("10)", "0)"))
    pytester.makeconftest(CTRL_C_AT_PASSED)
    result = pytester.runpytest_subprocess(
        "--rag-dataset=dataset.json", "--rag-target=app.py:answer", "-p", "no:randomly"
    )
    assert result.ret == 3, result.stdout.str()
    # The results were taken before any other plugin saw the report.
    assert_partial_reports_kept_the_finished_case(pytester)
