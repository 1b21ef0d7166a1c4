"""The RAG system's and a custom judge's code misbehaving in ways that once hung the run or
lost a case: an exit, an interrupt or another ``BaseException`` raised inside it (a class of
its own, ``GeneratorExit``, a ``CancelledError`` of its own), a call that never returns. Each
is an error of its case (the RAG system) or a judge failure (a custom judge), named; the run
goes on and ends."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

CASES = [
    case("fine", "refund policy?", expected_contexts=["policy.md"]),
    case("broken", "broken question?", expected_contexts=["policy.md"]),
    case("after", "shipping policy?", expected_contexts=["policy.md"]),
]
OWN_CANCELLATION = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="3.10 cannot tell it from a cancellation"
)
CONFIG = "metrics:\n  retrieval_recall: 1.0\n"

EXITING = """
import argparse
import asyncio

class Fault(BaseException):
    pass

def parse():
    parser = argparse.ArgumentParser(prog="app")
    parser.add_argument("--needed", required=True)
    return parser.parse_args([])  # an argparse error: SystemExit(2)

def fault(question):
    if "broken" in question:
        {raise_}
    return "Full refund within 30 days.", [{{"text": "Full refund.", "source": "policy.md"}}]

def answer(question):
    return fault(question)

async def answer_async(question):
    return fault(question)
"""


def run_app(pytester: pytest.Pytester, target: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "--rag-dataset=dataset.json",
        f"--rag-target=app.py:{target}",
        "-p",
        "no:randomly",
        *args,
        timeout=60,
    )


def assert_broken_case_errored(pytester: pytest.Pytester, result: pytest.RunResult, what: str):
    output = result.stdout.str()
    result.assert_outcomes(passed=2, errors=1)
    assert what in output, output
    assert "Traceback" not in output, output
    cases = {c["id"]: c for c in read_report(pytester)["cases"]}
    assert cases["fine"]["status"] == "passed"
    assert cases["broken"]["status"] == "error"
    assert cases["after"]["status"] == "passed"  # the case after it is neither lost nor hurt
    assert what in cases["broken"]["error"]


@pytest.mark.parametrize("target", ["answer", "answer_async"])
@pytest.mark.parametrize(
    ("raise_", "what"),
    [
        ("parse()", "raised SystemExit: 2"),
        ("raise KeyboardInterrupt", "raised KeyboardInterrupt"),
        ("raise Fault('index offline')", "raised Fault: index offline"),
        pytest.param(
            "raise asyncio.CancelledError('upstream gone')",
            "raised CancelledError: upstream gone",
            marks=OWN_CANCELLATION,
        ),
    ],
)
def test_any_base_exception_inside_the_rag_callable_is_an_error_of_its_case(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    target: str,
    raise_: str,
    what: str,
) -> None:
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.makepyfile(app=EXITING.format(raise_=raise_))
    result = run_app(pytester, target)
    assert_broken_case_errored(pytester, result, f"callable app.py:{target} {what}")


HANGING = """
import asyncio, time

def answer(question):
    if "broken" in question:
        time.sleep(60)
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]

async def answer_async(question):
    if "broken" in question:
        await asyncio.sleep(60)
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]
"""


@pytest.mark.parametrize("target", ["answer", "answer_async"])
def test_rag_timeout_bounds_a_callable_that_hangs(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], target: str
) -> None:
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.makepyfile(app=HANGING)
    started = time.monotonic()
    result = run_app(pytester, target, "--rag-timeout=1")
    took = time.monotonic() - started
    assert_broken_case_errored(pytester, result, "did not answer within 1 s (--rag-timeout)")
    abandoned = "a Python thread cannot be stopped" in result.stdout.str()
    assert abandoned is (target == "answer")  # an async call is cancelled, a thread is not
    assert took < 20, f"{took:.1f} s"  # the end of the run does not wait for the thread


BLOCKING_ASYNC = """
import time

async def answer(question):
    if "broken" in question:
        time.sleep(3600)  # a blocking call in async code: a sync HTTP client that never returns
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]
"""


def test_an_async_rag_function_that_blocks_the_event_loop_times_out_and_the_others_go_on(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    # The blocking call stops the event loop it runs on, so no timeout set there can fire:
    # the run never ended and every other case stalled behind it.
    write_dataset(CASES)  # "after" comes after the blocking case
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.makepyfile(app=BLOCKING_ASYNC)
    started = time.monotonic()
    result = run_app(pytester, "answer", "--rag-timeout=1")
    took = time.monotonic() - started
    output = result.stdout.str()
    result.assert_outcomes(passed=2, errors=1)
    what = (
        "callable app.py:answer did not answer within 1 s (--rag-timeout), blocking the event "
        "loop: an async function must not make blocking calls (time.sleep, a sync HTTP "
        "client); use asyncio.sleep or an async client, or make the function sync"
    )
    assert what in output, output
    cases = {c["id"]: c for c in read_report(pytester)["cases"]}
    assert {k: c["status"] for k, c in cases.items()} == {
        "fine": "passed",
        "broken": "error",
        "after": "passed",
    }
    assert what in cases["broken"]["error"]
    assert took < 20, f"{took:.1f} s"  # the end of the run does not wait for the blocked thread


EXITING_JUDGE = """
import sys

def judge(prompt):
    sys.exit("judge: no model configured")

async def judge_async(prompt):
    sys.exit("judge: no model configured")
"""
JUDGED_CASES = [
    case(
        f"c{n}",
        "How many days of paid time off do employees get?",
        answer="Employees receive 20 days of paid time off.",
        contexts=["Full-time employees receive 20 days paid time off annually."],
    )
    for n in (1, 2)
]


@pytest.mark.parametrize("fixture", [False, True])
@pytest.mark.parametrize("name", ["judge", "judge_async"])
def test_a_custom_judge_raising_system_exit_is_a_judge_failure_not_a_hang(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], name: str, fixture: bool
) -> None:
    write_dataset(JUDGED_CASES)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    pytester.makepyfile(judging=EXITING_JUDGE)
    if fixture:  # a rag_judge fixture returning the callable
        pytester.makeconftest(
            "import pytest, judging\n\n@pytest.fixture(scope='session')\n"
            f"def rag_judge():\n    return judging.{name}\n"
        )
        options = ["-p", "no:randomly"]
    else:
        options = [f"--rag-judge=judging.py:{name}", "-p", "no:randomly"]
    result = pytester.runpytest_subprocess("--rag-dataset=dataset.json", *options, timeout=60)
    output = result.stdout.str()
    assert result.ret == 3, output  # no case could be judged: fatal, with the reason
    assert "raised SystemExit: judge: no model configured" in output
    report = read_report(pytester)
    assert [c["metrics"]["faithfulness"]["status"] for c in report["cases"]] == [
        "not_judged",
        "not_judged",
    ]


FAULTY_JUDGE = """
import asyncio

class Fault(BaseException):
    pass

def judge(prompt):
    raise GeneratorExit

async def judge_async(prompt):
    raise Fault("model server gone")

async def judge_cancelled(prompt):
    raise asyncio.CancelledError("request dropped")
"""


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("judge", "judging.py:judge raised GeneratorExit;"),
        ("judge_async", "judging.py:judge_async raised Fault: model server gone"),
        pytest.param(
            "judge_cancelled",
            "judging.py:judge_cancelled raised CancelledError: request dropped",
            marks=OWN_CANCELLATION,
        ),
    ],
)
def test_any_base_exception_in_a_custom_judge_is_a_judge_failure_named(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], name: str, what: str
) -> None:
    write_dataset([{**JUDGED_CASES[0], "critical": True}, JUDGED_CASES[1]])
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    pytester.makepyfile(judging=FAULTY_JUDGE)
    result = pytester.runpytest_subprocess(
        "--rag-dataset=dataset.json",
        f"--rag-judge=judging.py:{name}",
        "-p",
        "no:randomly",
        timeout=60,
    )
    output = result.stdout.str()
    assert result.ret == 3, output  # the judge failed: fatal, not a failed critical case
    assert f"the judge request failed: {what}" in output, output
    report = read_report(pytester)
    assert [c["metrics"]["faithfulness"]["status"] for c in report["cases"]] == [
        "not_judged",
        "not_judged",
    ]
