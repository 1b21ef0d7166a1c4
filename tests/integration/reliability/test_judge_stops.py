"""A judge that hangs, stays overloaded or asks to wait an hour cannot hold the run: real
pytest runs in a fresh process, bounded by a timeout so that a regression fails instead of
hanging, against a loopback fake of the Messages API.

The judge stops after 3 requests in a row timed out (at the default settings too, in
minutes), after 5 requests in a row ran out of retries, or when the run's judge
deadline (``judge.deadline``, ``--rag-judge-deadline``) passes, also while requests wait to
retry or are in flight; either stop ends the run with the fatal code and the reason, also
when some cases were judged before it. ``Retry-After`` is capped by ``max_delay``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import case, read_report
from tests.integration.reliability.test_judge_faults_plugin import FAST, SUPPORTED, run
from tests.integration.reliability.test_retry_policy import serving
from tests.servers.fake_llm import (
    FakeLLMServer,
    LoggedRequest,
    Step,
    anthropic_error,
    anthropic_tool,
)

FAITHFULNESS = "metrics:\n  faithfulness: null\n"
HOUR = {"retry-after": "3600"}
RUN_TIMEOUT = 90  # seconds: a run that hangs fails the test instead of hanging it


class AnswersThen(FakeLLMServer):
    """Answers the first ``good`` requests with a verdict, every later one with ``then``."""

    def __init__(self, good: int, then: Step) -> None:
        super().__init__()
        self.good, self.then = good, then

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
            count = len(self.requests)
        return anthropic_tool(SUPPORTED) if count <= self.good else self.then


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int, Step], AnswersThen]]:
    servers: list[Iterator[FakeLLMServer]] = []

    def start(good: int, then: Step) -> AnswersThen:
        running = serving(monkeypatch, AnswersThen(good, then))
        servers.append(running)
        server = next(running)
        assert isinstance(server, AnswersThen)
        return server

    yield start
    for running in servers:
        next(running, None)  # stops it


def cases(write_dataset: Callable[..., Path], count: int) -> None:
    write_dataset(
        [
            case(f"c{i}", f"Question {i}?", "truth", answer=f"Answer {i}.", contexts=["ctx"])
            for i in range(count)
        ]
    )


def timed_run(pytester: pytest.Pytester, *args: str, config: str) -> tuple[pytest.RunResult, float]:
    started = time.monotonic()
    result = run(pytester, *args, config=config, timeout=RUN_TIMEOUT)
    return result, time.monotonic() - started


def assert_clean(result: pytest.RunResult) -> None:
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output and "INTERNALERROR" not in output, output


def test_a_stop_after_some_cases_were_judged_ends_the_run_with_the_fatal_code(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    judge: Callable[[int, Step], AnswersThen],
) -> None:
    judge(2, anthropic_error(500, "api_error", FAST))  # then an outage
    cases(write_dataset, 9)
    # one request at a time, so that the two answers go to two cases whatever the machine's load
    config = "judge:\n  retry:\n    max_attempts: 1\nconcurrency:\n  judge: 1\n"
    result = run(pytester, config=FAITHFULNESS + config)
    assert result.ret == 3, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 3: fatal: judge unreachable: 5 requests in a row ran out of retries"
            "*; 7 of 9 cases not judged"
        ]
    )
    assert_clean(result)
    report = read_report(pytester)
    assert report["run"]["exit_code"] == 3
    statuses = sorted(c["status"] for c in report["cases"])
    assert statuses == ["passed"] * 2 + ["skipped"] * 7  # the judged ones are kept


@pytest.mark.parametrize(
    "then",
    [
        # every request hangs (the request timeout is 60 s, 4 attempts)
        Step(body={}, delay=30),
        # 429 asking for an hour: every request waits the 60 s cap between its tries
        anthropic_error(429, "rate_limit_error", HOUR),
    ],
    ids=["hung", "retry-after-3600"],
)
def test_the_judge_deadline_stops_a_judge_that_hangs_or_waits(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    judge: Callable[[int, Step], AnswersThen],
    then: Step,
) -> None:
    # (A stop after some cases were judged is fatal as well: see the test above.)
    judge(0, then)
    cases(write_dataset, 6)
    # 5 s: time enough for the first request on a busy machine (the SDK loads), far less
    # than the minutes the judge would take without the deadline.
    result, took = timed_run(pytester, "--rag-judge-deadline=5", config=FAITHFULNESS)
    assert result.ret == 3, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 3: fatal: judge deadline: judging took longer than 5 s in all "
            "(judge.deadline, --rag-judge-deadline), the judge is stopped for this run; "
            "no case could be judged on faithfulness"
        ]
    )
    assert_clean(result)
    assert took < 45, f"{took:.0f} s"  # minutes without the deadline
    result.assert_outcomes(skipped=6)


def test_the_deadline_stops_a_fixture_judge_that_hangs_after_judging_one_case(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    judge: Callable[[int, Step], AnswersThen],
) -> None:
    judge(0, anthropic_error(500, "api_error", FAST))  # the configured judge: never asked
    cases(write_dataset, 6)
    pytester.makeconftest(
        f"""
        import asyncio, json
        import pytest
        from rag_eval_pytest.judges.callable import CallableJudge

        calls = []

        async def answer_once_then_hang(prompt):
            calls.append(prompt)
            if len(calls) > 1:
                await asyncio.sleep(3600)
            return json.dumps({SUPPORTED!r})

        @pytest.fixture(scope="session")
        def rag_judge():
            return CallableJudge(answer_once_then_hang, model="hangs-after-one")
        """
    )
    result, took = timed_run(pytester, "--rag-judge-deadline=2", config=FAITHFULNESS)
    assert result.ret == 3, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 3: fatal: judge deadline: judging took longer than 2 s in all "
            "*; 5 of 6 cases not judged"
        ]
    )
    assert_clean(result)
    result.assert_outcomes(passed=1, skipped=5)
    assert took < 45, f"{took:.0f} s"


def test_retry_after_is_capped_so_an_hour_long_wait_does_not_hang_the_run(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    judge: Callable[[int, Step], AnswersThen],
) -> None:
    server = judge(0, anthropic_error(429, "rate_limit_error", HOUR))
    cases(write_dataset, 2)
    # The cap is max_delay (60 s by default), made small here; the deadline stays far away.
    config = FAITHFULNESS + "judge:\n  retry:\n    max_attempts: 3\n    max_delay: 0.2\n"
    result, took = timed_run(pytester, config=config)
    assert result.ret == 3, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["rag-eval: exit 3: fatal: the judge request failed after 3 attempts: HTTP 429*"]
    )
    assert_clean(result)
    assert len(server.requests) == 2 * 3  # each case's 3 attempts, 2 capped waits each
    assert took < 45, f"{took:.0f} s"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (("--rag-judge-deadline=0",), "--rag-judge-deadline: 0 must be greater than 0"),
        ((), "key 'judge.deadline': -1 must be greater than 0"),
    ],
    ids=["option", "config"],
)
def test_a_bad_deadline_is_one_fatal_message_naming_its_source(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    judge: Callable[[int, Step], AnswersThen],
    source: tuple[str, ...],
    message: str,
) -> None:
    server = judge(0, anthropic_error(500, "api_error", FAST))
    cases(write_dataset, 1)
    config = FAITHFULNESS + ("" if source else "judge:\n  deadline: -1\n")
    result = run(pytester, *source, config=config)
    assert result.ret == 3
    assert message in result.stdout.str() + result.stderr.str()
    assert server.requests == []


def test_a_judge_that_never_answers_ends_the_run_at_the_default_settings(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    judge: Callable[[int, Step], AnswersThen],
) -> None:
    # Every setting at its default (the judge chosen by `auto` from ANTHROPIC_API_KEY, 3
    # passes, the disk cache, 4 attempts, the concurrency) but judge.timeout, scaled down from
    # its default 60 s to 1 s; the defaults themselves (about 2 minutes) are run on virtual
    # time by tests/unit/judges/test_llm.py::
    # test_a_judge_that_never_answers_stops_within_the_documented_time.
    server = judge(0, Step(body={}, delay=60))  # never answers within any timeout
    cases(write_dataset, 6)
    pytester.makefile(".yaml", **{"eval-config": FAITHFULNESS + "judge:\n  timeout: 1\n"})
    started = time.monotonic()
    result = pytester.runpytest_subprocess(
        "--rag-dataset=dataset.json", "-p", "no:randomly", timeout=RUN_TIMEOUT
    )
    took = time.monotonic() - started
    assert result.ret == 3, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 3: fatal: judge unreachable: 3 requests in a row timed out after 1 s "
            "(judge.timeout)*no case could be judged on faithfulness"
        ]
    )
    assert_clean(result)
    result.assert_outcomes(skipped=6)
    assert took < 30, f"{took:.0f} s"  # 42 s before the timeouts stopped the judge
    # Each case's two first passes, and a few retries sent before the stop (41 requests
    # without it): nothing is sent after the stop.
    assert len(server.requests) <= 3 * 6, len(server.requests)


HANGING_JUDGE = """
import threading, pytest
from rag_eval_pytest.judges.callable import CallableJudge

RELEASE = threading.Event()

def hangs(prompt):
    RELEASE.wait(600)  # a sync call that never returns within the run

@pytest.fixture(scope="session")
def rag_judge():
    yield CallableJudge(hangs, model="hangs")
    RELEASE.set()
"""


def test_a_custom_judge_that_hangs_is_bounded_by_judge_timeout(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    # A callable judge was given no timeout at all: a call that hangs held its case (and,
    # with three in flight, the run) until the two-hour judge deadline.
    cases(write_dataset, 4)
    pytester.makeconftest(HANGING_JUDGE)
    pytester.makefile(".yaml", **{"eval-config": FAITHFULNESS + "judge:\n  timeout: 0.5\n"})
    started = time.monotonic()
    result = pytester.runpytest_subprocess(
        "--rag-dataset=dataset.json", "-p", "no:randomly", timeout=RUN_TIMEOUT
    )
    took = time.monotonic() - started
    assert result.ret == 3, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 3: fatal: judge unreachable: 3 requests in a row timed out after "
            "0.5 s (judge.timeout)*"
        ]
    )
    assert_clean(result)
    assert took < 30, f"{took:.0f} s"
