"""A test's cost does not grow with the dataset: no per-test search through every case, and
a failing test costs the same in a run of many failures as in a run of few."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case

# Counts every pass over the run's list of selected cases, from the session's start.
COUNTING = """
import pytest

PASSES = []

class CountingList(list):
    def __iter__(self):
        PASSES.append(1)
        return super().__iter__()

def pytest_sessionstart(session):
    datasets = session.config.pluginmanager.get_plugin("rag_eval_runner").session.datasets
    datasets.cases = CountingList(datasets.cases)

def pytest_sessionfinish(session):
    session.config.rootpath.joinpath("passes.txt").write_text(str(len(PASSES)))
"""

TEST_TAKING_A_CASE = """
from rag_eval_pytest import assert_metric

def test_retrieval(rag_case):
    assert_metric(rag_case, "retrieval_recall")
"""


def recorded_cases(count: int, expected: Callable[[int], str]) -> list[dict[str, object]]:
    """``count`` pre-recorded cases (``c0000``, ...), each with an answer and one context from
    its own document, expecting the document ``expected`` names for it."""
    return [
        case(
            f"c{i:04d}",
            f"question {i}",
            answer=f"answer {i}",
            contexts=[{"text": f"context {i}", "source": f"doc{i:04d}.md"}],
            expected_contexts=[expected(i)],
        )
        for i in range(count)
    ]


def passes_over_cases(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], cases: int
) -> int:
    """Passes over the selected cases in a run of ``cases`` pre-recorded cases."""
    write_dataset(recorded_cases(cases, lambda i: f"doc{i:04d}.md"))
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=cases)
    return int((pytester.path / "passes.txt").read_text())


@pytest.mark.parametrize("mode", ["zero-code", "rag_case"])
def test_no_test_searches_the_cases(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], mode: str
) -> None:
    """Each test finds its case by key: the run passes over the list of cases as many times
    with 120 cases as with 12 (a search per test made a run quadratic in the dataset's size:
    minutes at tens of thousands of cases)."""
    pytester.makeconftest(COUNTING)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: null\n"})
    if mode == "rag_case":
        pytester.makepyfile(test_retrieval=TEST_TAKING_A_CASE)
    small = passes_over_cases(pytester, write_dataset, 12)
    large = passes_over_cases(pytester, write_dataset, 120)
    assert large == small


# Counts the calls made by the plugin's code and by pytest's terminal reporter (its summary of
# the failures included) from the first test to the end of the run: calls, not seconds, so
# the count is the same on a busy machine.
COUNTING_CALLS = """
import json
import os
import sys

import pytest

CALLS = {"tests": 0, "reports": 0, "summary": 0}
PHASE = ["tests"]
COUNTED = (os.sep + "rag_eval_pytest" + os.sep, os.path.join("_pytest", "terminal.py"))

def count(frame, event, arg):
    if event in ("call", "c_call") and any(p in frame.f_code.co_filename for p in COUNTED):
        CALLS[PHASE[0]] += 1

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session):
    sys.setprofile(count)
    try:
        return (yield)
    finally:
        PHASE[0] = "reports"

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary():
    PHASE[0] = "summary"
    return (yield)

@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config):
    sys.setprofile(None)
    config.rootpath.joinpath("calls.json").write_text(json.dumps(CALLS))
"""


def calls_in_a_failing_run(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], cases: int
) -> dict[str, int]:
    """The calls counted while the tests ran and after them (the reports, the terminal
    summary) in a run of ``cases`` pre-recorded cases, 2 of every 3 failing (they
    expect a document none of their contexts comes from)."""
    write_dataset(
        recorded_cases(cases, lambda i: f"doc{i:04d}.md" if i % 3 == 0 else "elsewhere.md")
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    failed = cases - (cases + 2) // 3
    result.assert_outcomes(passed=cases - failed, failed=failed)
    calls: dict[str, int] = json.loads((pytester.path / "calls.json").read_text())
    return calls


@pytest.mark.parametrize("mode", ["zero-code", "rag_case"])
def test_a_failing_test_costs_as_much_among_many_failures_as_among_few(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], mode: str
) -> None:
    """Four times the cases, two in three failing, make at most about four times the calls
    while the tests run, while the reports are written and in the terminal summary (their
    fixed work makes it fewer). pytest searched its list of every passed setup and teardown
    once per failing test, for the teardown's output: its summary of the failures made 13
    times the calls here, and took minutes at tens of thousands of tests."""
    pytester.makeconftest(COUNTING_CALLS)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: null\n"})
    if mode == "rag_case":
        pytester.makepyfile(test_retrieval=TEST_TAKING_A_CASE)
    few = calls_in_a_failing_run(pytester, write_dataset, 60)
    many = calls_in_a_failing_run(pytester, write_dataset, 240)
    for phase, calls in many.items():
        ratio = calls / few[phase]
        assert ratio <= 4.3, (
            f"{phase}: {calls} calls at 240 cases, {few[phase]} at 60 ({ratio:.2f} x)"
        )


TEARDOWN_PRINTS = """
import pytest

@pytest.fixture(autouse=True)
def goodbye(request):
    yield
    print(f"teardown of {request.node.name}")
"""


def test_a_tests_teardown_output_is_still_shown(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """The passed setups and teardowns the plugin takes out of pytest's list are those that
    print nothing: a failing test's teardown output still follows its failure, and a passing
    test's under ``-rP``."""
    pytester.makeconftest(TEARDOWN_PRINTS)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: null\n"})
    write_dataset(
        [
            case(
                name,
                f"question {name}",
                answer="an answer",
                contexts=[{"text": "a context", "source": "doc.md"}],
                expected_contexts=[expected],
            )
            for name, expected in (("hit", "doc.md"), ("miss", "elsewhere.md"))
        ]
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly", "-rP")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*= FAILURES =*",
            "*_ miss _*",
            "*retrieval_recall 0.00 < 0.80*",
            "*- Captured stdout teardown -*",
            "teardown of miss",
            "*= PASSES =*",
            "*- Captured stdout teardown -*",
            "teardown of hit",
        ]
    )


# What collecting the tests allocates and keeps, per test.
COLLECTION_MEMORY = """
import tracemalloc

import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    tracemalloc.start()

@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    session.config.rootpath.joinpath("collected.txt").write_text(str(size))
"""


def test_the_zero_code_tests_of_a_dataset_file_share_their_fixtures(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Each zero-code test worked out again which fixtures it uses, where pytest's
    parametrized tests share theirs: collecting took 4.2 KB a test (210 MB at 50,000 cases),
    now 2.5 KB."""
    cases = 2000
    write_dataset([case(f"c{i:04d}", f"question {i}", answer=f"answer {i}") for i in range(cases)])
    pytester.makeconftest(COLLECTION_MEMORY)
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--collect-only", "-q")
    assert result.ret == 0 and f"{cases} tests collected" in result.stdout.str()
    assert int((pytester.path / "collected.txt").read_text()) / cases < 3200


# What pytest keeps of each failing test to the end of the run (its report, for the
# terminal's summary), walked from each failure's traceback (``longrepr``).
KEPT_FAILURES = """
import gc, json, sys, types
import pytest

def reachable(root):
    seen, stack, found = set(), [root], []
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        found.append(obj)
        stack.extend(gc.get_referents(obj))
    return found

FIRST = []

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item, call):
    if call.excinfo is not None:  # the traceback pytest's report is made from
        FIRST.append(call.excinfo.traceback[0].name)

@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    failed = config.pluginmanager.get_plugin("terminalreporter").stats["failed"]
    kept = [reachable(report.longrepr) for report in failed]
    frames = (types.FrameType, types.TracebackType)
    config.rootpath.joinpath("kept.json").write_text(json.dumps({
        "failures": len(failed),
        "objects": max(sum(gc.is_tracked(o) for o in objects) for objects in kept),
        "bytes": max(sum(map(sys.getsizeof, objects)) for objects in kept),
        "frames": sum(isinstance(o, frames) for objects in kept for o in objects),
        "first": sorted(set(FIRST)),
    }))
"""


def _failing_suite(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> None:
    """20 cases whose retrieval misses the expected document, each failing its test."""
    pytester.makeconftest(KEPT_FAILURES)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: null\n"})
    pytester.makepyfile(test_retrieval=TEST_TAKING_A_CASE)
    write_dataset(recorded_cases(20, lambda i: "elsewhere.md"))


@pytest.mark.parametrize("tb", ["auto", "line", "native"])
def test_a_failing_test_leaves_its_failures_text_not_its_traceback(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], tb: str
) -> None:
    """pytest keeps each failing test's report to the end of the run, and with it its
    traceback's tree of objects (the exception chain, each entry's source lines, arguments
    and location: 2.5 KB here, about 3.5 KB in a run of several metrics, 120 MB over 33,000
    failures). A failure of the plugin's assertion is kept as the text the terminal shows,
    the same text, compressed. Its traceback starts at the test function, where pytest
    cuts it to show it, not at pytest's own frames, which it walked again to find it;
    ``--tb=native`` shows them, and has them."""
    _failing_suite(pytester, write_dataset)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "-p", "no:randomly", f"--tb={tb}", "-rf"
    )
    result.assert_outcomes(failed=20)
    kept = json.loads((pytester.path / "kept.json").read_text())
    assert kept["failures"] == 20 and kept["frames"] == 0
    assert kept["first"] == (["from_call"] if tb == "native" else ["test_retrieval"])
    # The traceback's tree: 12 objects, 2,500 bytes under --tb=auto (9 and 1,750 under line).
    assert kept["objects"] <= 1 and kept["bytes"] < (1500 if tb == "native" else 700), kept
    crash = "rag_eval_pytest.RagAssertionError: c0019 retrieval_recall 0.00 < 0.80"
    if tb == "line":
        result.stdout.fnmatch_lines([f"*test_retrieval.py:4: {crash}"])
    elif tb == "native":
        result.stdout.fnmatch_lines(["Traceback (most recent call last):", "*", crash])
    else:
        result.stdout.fnmatch_lines(
            [
                "_* test_retrieval[[]c0019[]] _*",
                "",
                "rag_case = <RagCase c0019 critical=False>",
                "",
                "    def test_retrieval(rag_case):",
                '>       assert_metric(rag_case, "retrieval_recall")',
                f"E       {crash}",
                "E         0 of 1 expected documents retrieved; missing: elsewhere.md",
                "*",
                "test_retrieval.py:4: RagAssertionError",
            ]
        )
    result.stdout.fnmatch_lines(["FAILED test_retrieval.py::test_retrieval[[]c0019[]] - rag_eval*"])


def test_a_workers_failure_is_kept_as_its_text_where_it_arrives(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Under xdist a worker sends each report to the aggregating process, which kept every
    failure's traceback as pytest's tree of objects; it keeps the text, as a plain run."""
    _failing_suite(pytester, write_dataset)
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly", "-n", "2")
    result.assert_outcomes(failed=20)
    kept = json.loads((pytester.path / "kept.json").read_text())
    assert kept["failures"] == 20 and kept["objects"] <= 1 and kept["bytes"] < 700, kept
    crash = "rag_eval_pytest.RagAssertionError: c0019 retrieval_recall 0.00 < 0.80"
    result.stdout.fnmatch_lines(
        [
            "*def test_retrieval(rag_case):",
            f"E       {crash}",
            "test_retrieval.py:4: RagAssertionError",
        ]
    )
    result.stdout.fnmatch_lines(["FAILED test_retrieval.py::test_retrieval[[]c0019[]] - rag_eval*"])
