"""Evaluating ahead of the tests: concurrency, test order, -x, metrics learned within a run,
and the embedding model loaded only when needed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

# A RAG app that records when each query starts and ends, and takes 0.2 s per query.
SLOW_APP = """
import threading, time, json, os
LOG = os.path.join(os.path.dirname(__file__), "queries.jsonl")
lock = threading.Lock()

async def answer(question):
    import asyncio
    start = time.monotonic()
    await asyncio.sleep(0.2)
    with lock, open(LOG, "a") as fh:
        fh.write(json.dumps({"q": question, "start": start, "end": time.monotonic()}) + "\\n")
    return "answer to " + question, [{"text": "context", "source": "doc.md"}]
"""

RETRIEVAL_ONLY = "metrics:\n  retrieval_recall: null\n"

# A conftest that logs when each test's setup starts (before its rag_case fixture).
SETUP_LOG = """
import json, os, time, pytest

@pytest.fixture(autouse=True)
def setup_started(request):
    with open(os.path.join(os.path.dirname(__file__), "setups.jsonl"), "a") as fh:
        fh.write(json.dumps({"test": request.node.name, "start": time.monotonic()}) + "\\n")
"""


def queries(pytester: pytest.Pytester) -> list[dict[str, float | str]]:
    log = pytester.path / "queries.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def max_overlap(rows: list[dict[str, float | str]]) -> int:
    events = sorted([(r["start"], 1) for r in rows] + [(r["end"], -1) for r in rows])
    best = current = 0
    for _, step in events:
        current += int(step)
        best = max(best, current)
    return best


@pytest.fixture
def slow_app(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> str:
    cases = [case(f"c{i:02d}", f"question {i}", expected_contexts=["doc.md"]) for i in range(12)]
    cases[7]["critical"] = True
    write_dataset(cases)
    pytester.makepyfile(slow_app=SLOW_APP)
    pytester.syspathinsert()
    pytester.makefile(".yaml", **{"eval-config": RETRIEVAL_ONLY})
    return "slow_app:answer"


def test_cases_are_queried_concurrently_within_the_limit_critical_first(
    pytester: pytest.Pytester, slow_app: str
) -> None:
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", slow_app, "--rag-concurrency", "4"
    )
    result.assert_outcomes(passed=12)
    rows = queries(pytester)
    assert len(rows) == 12  # each case once, however it was reached
    assert max_overlap(rows) == 4
    first = min(rows, key=lambda r: float(r["start"]))
    assert first["q"] == "question 7"  # the critical case is scheduled first
    # 12 queries of 0.2 s, 4 at a time: about 0.6 s, not 2.4 s.
    spans = [float(r["end"]) for r in rows] + [float(r["start"]) for r in rows]
    assert max(spans) - min(spans) < 1.5


def test_concurrency_one_queries_one_at_a_time(pytester: pytest.Pytester, slow_app: str) -> None:
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", slow_app, "--rag-concurrency", "1"
    )
    result.assert_outcomes(passed=12)
    assert max_overlap(queries(pytester)) == 1


def test_exitfirst_starts_no_further_work_after_the_stop(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], slow_app: str
) -> None:
    cases = [case(f"c{i:02d}", f"question {i}", expected_contexts=["doc.md"]) for i in range(40)]
    cases[0]["expected_contexts"] = ["elsewhere.md"]  # fails first
    write_dataset(cases)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", slow_app, "--rag-concurrency", "2", "-x"
    )
    result.assert_outcomes(failed=1)
    # The first failure stops scheduling: at most the queries already in flight complete.
    assert len(queries(pytester)) <= 4
    report = read_report(pytester)
    assert report["run"]["partial"] is True


def test_a_test_functions_metrics_are_learned_and_measured_ahead(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [case(f"c{i}", f"refund {i}?", expected_contexts=["policy.md"]) for i in range(5)]
    )
    pytester.makeconftest(
        """
import pytest, threading
calls = []
@pytest.fixture(scope="session")
def rag_adapter():
    def app(question):
        calls.append(threading.current_thread().name)
        ctx = [{"text": "Refunds within 30 days.", "source": "policy.md"}]
        return "Refunds within 30 days.", ctx
    return app
"""
    )
    pytester.makepyfile(
        test_rag="""
import asyncio, time
from rag_eval_pytest import evaluate
from rag_eval_pytest.metrics.base import Measurement, Metric
from rag_eval_pytest.metrics.registry import register_metric

started = []

class Slow(Metric):
    name = "slow_metric"
    async def measure(self, sample, services):
        await asyncio.sleep(0.3)
        return Measurement(score=1.0)

register_metric(Slow)

def test_slow(rag_case):
    started.append(time.monotonic())
    evaluate(rag_case, "slow_metric")

def test_zz_elapsed():
    print(f"ELAPSED {time.monotonic() - started[0]:.2f}")
"""
    )
    args = ("--rag-dataset", "dataset.json", "-s", "-p", "no:randomly")

    def elapsed(result: pytest.RunResult) -> float:
        line = next(x for x in result.outlines if "ELAPSED" in x)
        return float(line.split("ELAPSED ")[1].split()[0])

    # The first case teaches what test_slow measures; the other four are then measured
    # together (0.3 s + 0.3 s), not one after the other (5 x 0.3 s).
    first = pytester.runpytest(*args)
    first.assert_outcomes(passed=6)
    assert elapsed(first) < 1.0
    # Nothing is kept for the next run: each run learns within itself.
    assert not (pytester.path / ".pytest_cache" / "v" / "rag_eval").exists()
    pytester.makefile(".yaml", **{"eval-config": "concurrency:\n  prefetch: false\n"})
    off = pytester.runpytest(*args)  # each test measures its own case: 5 x 0.3 s
    off.assert_outcomes(passed=6)
    assert elapsed(off) > 1.2


def test_a_judged_metric_learned_on_a_first_run_is_judged_ahead_for_the_other_cases(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case(f"c{i}", f"refund {i}?", answer="a", contexts=["c"]) for i in range(5)])
    pytester.makeconftest(
        """
import pytest
@pytest.fixture(scope="session")
def rag_judge():
    return lambda prompt: "unused"
"""
    )
    pytester.makepyfile(
        test_rag="""
import asyncio, time
from rag_eval_pytest import evaluate
from rag_eval_pytest.metrics.base import Measurement, Metric
from rag_eval_pytest.metrics.registry import register_metric

started = []

class SlowJudged(Metric):
    name = "slow_judged"
    requires = frozenset({"judge"})
    async def measure(self, sample, services):
        await asyncio.sleep(0.3)
        return Measurement(score=1.0)

register_metric(SlowJudged)

def test_judged(rag_case):
    started.append(time.monotonic())
    assert evaluate(rag_case, "slow_judged").score == 1.0

def test_zz_elapsed():
    print(f"ELAPSED {time.monotonic() - started[0]:.2f}")
"""
    )
    # The first case teaches that test_judged needs the judge; the judge
    # that test used is then given to the prefetcher, and the other four cases are judged
    # together (0.3 s + 0.3 s), not one test at a time (5 x 0.3 s).
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-s", "-p", "no:randomly")
    result.assert_outcomes(passed=6)
    line = next(x for x in result.outlines if "ELAPSED" in x)
    assert float(line.split("ELAPSED ")[1].split()[0]) < 1.0, line


def test_on_a_first_run_each_metric_a_test_asks_for_is_started_for_the_other_cases_at_once(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """A test function that evaluates metrics one after another: with nothing learned yet,
    each metric its first test asks for is measured for the function's other cases as soon
    as it is asked, while that first test still runs, not after it ends."""
    write_dataset([case(f"c{i}", f"refund {i}?", answer="a", contexts=["c"]) for i in range(4)])
    pytester.makepyfile(
        test_rag="""
import asyncio, json, time
from rag_eval_pytest import evaluate
from rag_eval_pytest.metrics.base import Measurement, Metric
from rag_eval_pytest.metrics.registry import register_metric

starts = {}
ends = {}

def slow(metric_name):
    class Slow(Metric):
        name = metric_name
        async def measure(self, sample, services):
            starts[(sample.case_key, self.name)] = time.monotonic()
            await asyncio.sleep(0.2)
            return Measurement(score=1.0)
    return Slow

register_metric(slow("first_metric"))
register_metric(slow("second_metric"))

def test_two(rag_case):
    evaluate(rag_case, "first_metric")
    evaluate(rag_case, "second_metric")
    ends[rag_case.id] = time.monotonic()

def test_zz_report():
    first_test_end = ends["c0"]
    print("STARTS " + json.dumps(
        {f"{c}/{m}": round(t - first_test_end, 3) for (c, m), t in starts.items()}))
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-s", "-p", "no:randomly")
    result.assert_outcomes(passed=5)
    line = next(x for x in result.outlines if "STARTS " in x)
    starts = json.loads(line.split("STARTS ", 1)[1])  # seconds after the first test ended
    assert len(starts) == 8
    for other in ("c1", "c2", "c3"):
        assert starts[f"{other}/first_metric"] < 0, starts  # started during test c0
        assert starts[f"{other}/second_metric"] < 0, starts


def test_a_functions_judged_metrics_wait_for_its_first_test_to_give_the_judge(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Two test functions ask for judged metrics: the second function's cases are judged
    ahead only once its first test has resolved its judge (a module or class may override
    rag_judge), never before with another function's judge."""
    write_dataset([case(f"c{i}", f"refund {i}?", answer="a", contexts=["c"]) for i in range(3)])
    pytester.makeconftest(
        SETUP_LOG
        + """
@pytest.fixture(scope="session")
def rag_judge():
    return lambda prompt: "unused"
"""
    )
    pytester.makepyfile(
        test_rag="""
import asyncio, json, os, time
from rag_eval_pytest import evaluate
from rag_eval_pytest.metrics.base import Measurement, Metric
from rag_eval_pytest.metrics.registry import register_metric

def slow_judged(metric_name):
    class SlowJudged(Metric):
        name = metric_name
        requires = frozenset({"judge"})
        async def measure(self, sample, services):
            with open(os.path.join(os.path.dirname(__file__), "measured.jsonl"), "a") as fh:
                fh.write(json.dumps({"case": sample.case_key, "metric": self.name,
                                     "start": time.monotonic()}) + "\\n")
            await asyncio.sleep(0.1)
            return Measurement(score=1.0)
    return SlowJudged

register_metric(slow_judged("judged_one"))
register_metric(slow_judged("judged_two"))

def test_one(rag_case):
    evaluate(rag_case, "judged_one")

def test_two(rag_case):
    evaluate(rag_case, "judged_two")
"""
    )

    def second_function_judged_ahead() -> list[bool]:
        setups = [json.loads(x) for x in (pytester.path / "setups.jsonl").read_text().splitlines()]
        measured = [
            json.loads(x) for x in (pytester.path / "measured.jsonl").read_text().splitlines()
        ]
        first_two = min(s["start"] for s in setups if s["test"].startswith("test_two"))
        return [m["start"] < first_two for m in measured if m["metric"] == "judged_two"]

    args = ("--rag-dataset=dataset.json", "-p", "no:randomly")
    pytester.runpytest(*args).assert_outcomes(passed=6)
    assert second_function_judged_ahead() == [False] * 3  # learned from test_two's first test
    # ... and a second run the same: nothing is planned from the last run.
    for log in ("setups.jsonl", "measured.jsonl"):
        (pytester.path / log).unlink()
    pytester.runpytest(*args).assert_outcomes(passed=6)
    assert second_function_judged_ahead() == [False] * 3


def test_an_xdist_worker_evaluates_its_next_tests_case_while_the_current_test_runs(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Under xdist a worker learns its tests one at a time; while it runs one, the case of
    the test it will run next is already being queried (and judged)."""
    write_dataset([case(f"c{i:02d}", f"question {i}") for i in range(12)])
    pytester.makepyfile(slow_app=SLOW_APP)
    pytester.syspathinsert()
    pytester.makeconftest(SETUP_LOG)
    pytester.makepyfile(
        test_rag="""
def test_answer(rag_case):
    assert rag_case.answer.startswith("answer to")
"""
    )
    result = pytester.runpytest(
        "--rag-dataset=dataset.json",
        "--rag-adapter=callable",
        "--rag-target=slow_app:answer",
        "-n",
        "2",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(passed=12)
    setups = {
        json.loads(line)["test"].split("[")[1].rstrip("]"): json.loads(line)["start"]
        for line in (pytester.path / "setups.jsonl").read_text().splitlines()
    }
    queried = {str(r["q"]).split()[-1]: float(r["start"]) for r in queries(pytester)}
    ahead = [c for c, start in setups.items() if queried[str(int(c[1:]))] < start]
    # Every test but each worker's first finds its case queried before it started.
    assert len(ahead) >= 12 - 2 - 2, (ahead, setups, queried)


def test_prefetch_can_be_turned_off(pytester: pytest.Pytester, slow_app: str) -> None:
    pytester.makefile(
        ".yaml", **{"eval-config": RETRIEVAL_ONLY + "concurrency:\n  prefetch: false\n"}
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", slow_app)
    result.assert_outcomes(passed=12)
    assert max_overlap(queries(pytester)) == 1


def test_an_llm_judged_suite_without_an_embedding_metric_never_imports_torch(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """The embedding model (PyTorch) is loaded only for a metric or judge that embeds: a
    suite judged by an LLM on faithfulness alone, evaluated ahead, never imports it."""
    policy = "Refunds are given within 30 days."
    write_dataset(
        [case(f"c{i}", f"refund {i}?", answer=policy, contexts=[policy]) for i in range(4)]
    )
    pytester.makepyfile(word_judge=(Path(__file__).parents[2] / "word_judge.py").read_text())
    pytester.makeconftest(
        """
import sys, pytest
from word_judge import word_judge

@pytest.fixture(scope="session")
def rag_judge():
    return word_judge

def pytest_sessionfinish(session):
    print("\\nTORCH", "torch" in sys.modules, "sentence_transformers" in sys.modules)
"""
    )
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: null\n"})
    # In a process of its own: the modules of the run around it do not count.
    result = pytester.runpytest_subprocess("--rag-dataset=dataset.json", "-s", "-p", "no:randomly")
    result.assert_outcomes(passed=4)
    assert "TORCH False False" in result.outlines, result.outlines


def test_a_metric_first_asked_by_a_later_case_is_not_measured_for_cases_already_done(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """A test function that asks one case for a metric the earlier cases did not need: the
    metric is measured ahead for the cases still to come, and never for the cases whose tests
    have all run, which nothing would read (with a paid judge, requests for nothing)."""
    write_dataset([case(f"c{i}", f"refund {i}?", answer="a", contexts=["c"]) for i in range(4)])
    pytester.makepyfile(
        test_rag="""
import json
from rag_eval_pytest import evaluate
from rag_eval_pytest.metrics.base import Measurement, Metric
from rag_eval_pytest.metrics.registry import register_metric

measured = []

class Counted(Metric):
    name = "counted_metric"
    async def measure(self, sample, services):
        measured.append(sample.case_key)
        return Measurement(score=1.0)

register_metric(Counted)

def test_some_cases(rag_case):
    if rag_case.id in ("c2", "c3"):
        evaluate(rag_case, "counted_metric")

def test_zz_report():
    print("MEASURED " + json.dumps(sorted(measured)))
"""
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "-s", "-p", "no:randomly")
    result.assert_outcomes(passed=5)
    line = next(x for x in result.outlines if "MEASURED " in x)
    assert json.loads(line.split("MEASURED ", 1)[1]) == ["c2", "c3"]
