"""Plugin time per test when everything is cached: 1,000 cases, the four default metrics,
a warm judge cache.

Builds a dataset of pre-recorded cases (no RAG system is called) and a custom judge that
answers instantly, runs the suite once to fill the judge cache, then times runs with the
cache warm, against a baseline of the same number of plain parametrized tests that do
nothing. The difference divided by the number of tests is what the plugin adds per test
(dataset loading, cache reads, scoring, reports and the history line included).

Every case passes, as in a suite that is green in CI; ``--failing`` makes every case fail
(answer relevance), which adds pytest's own failure reports (tracebacks, the failures
section) to the plugin's runs and not to the baseline's.

Usage: ``python benchmarks/cached_overhead.py [--cases 1000] [--runs 3] [--failing]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JUDGE = '''
import json
import re

FAILING = False  # True: a vague generated question, so answer relevance fails every case


def judge(prompt):
    """Answers every question of the four default metrics with a small valid reply: every
    case passes (the question it writes from the answer is the case's own question)."""
    task = prompt.split("# Data", 1)[0]
    if "Break the ANSWER into standalone statements" in task:
        reply = {"statements": [{"statement": "s", "verdict": "supported", "reason": "r"}]}
    elif "Write questions that the ANSWER answers" in task:
        store = re.search(r"Store (\\d+) refunds purchases", prompt).group(1)
        question = f"What is the refund policy of store {store}?"
        if FAILING:
            question = "What is the policy?"
        reply = {"questions": [question], "noncommittal": False}
    elif "Rate from 0 to 1" in task:
        reply = {"score": 0.9, "noncommittal": False, "reason": "r"}
    elif "decide whether it was useful" in task:
        reply = {"verdicts": [{"index": i, "useful": True, "reason": "r"} for i in range(3)]}
    elif "sentence of the GROUND TRUTH" in task:
        reply = {"sentences": [{"index": 0, "attributed": True, "reason": "r"}]}
    else:
        raise AssertionError(task[:200])
    return json.dumps(reply)
'''

CONFTEST = """
import pytest
from bench_judge import judge

@pytest.fixture(scope="session")
def rag_judge():
    return judge
"""

BASELINE = """
import pytest

@pytest.mark.parametrize("n", range({cases}))
def test_plain(n):
    pass
"""


def dataset(cases: int) -> dict[str, object]:
    return {
        "metadata": {"name": "overhead", "version": "1"},
        "test_cases": [
            {
                "id": f"tc_{i:05d}",
                "question": f"What is the refund policy of store {i}?",
                "ground_truth": f"Store {i} refunds within 30 days.",
                "answer": f"Store {i} refunds purchases within 30 days.",
                "contexts": [
                    {"text": f"Store {i} refunds within 30 days of purchase.", "source": "a.md"},
                    {"text": "Shipping takes five business days.", "source": "b.md"},
                    {"text": "Gift cards cannot be refunded.", "source": "c.md"},
                ],
            }
            for i in range(cases)
        ],
    }


def timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"pytest failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-999:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--failing", action="store_true", help="every case fails")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        plugin_dir, base_dir = root / "plugin", root / "baseline"
        plugin_dir.mkdir()
        base_dir.mkdir()
        (plugin_dir / "cases.json").write_text(json.dumps(dataset(options.cases)))
        judge = JUDGE.replace("FAILING = False", f"FAILING = {options.failing}")
        (plugin_dir / "bench_judge.py").write_text(judge)
        (plugin_dir / "conftest.py").write_text(CONFTEST)
        (plugin_dir / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
        (base_dir / "test_plain.py").write_text(BASELINE.format(cases=options.cases))
        (base_dir / "pytest.ini").write_text("[pytest]\n")
        args = ["--rag-dataset", "cases.json", "--rag-concurrency", "8"]
        cold = timed(args, plugin_dir)
        warm = [timed(args, plugin_dir) for _ in range(options.runs)]
        base = [timed([], base_dir) for _ in range(options.runs)]
        report = json.loads((plugin_dir / "results" / "eval_report.json").read_text())
    usage = report["summary"]["usage"]
    counts = report["summary"]["counts"]
    per_test_ms = (statistics.median(warm) - statistics.median(base)) / options.cases * 1000
    print(
        f"cases: {options.cases}, metrics: faithfulness, answer_relevance, "
        "context_precision, context_recall (judge passes 3)"
    )
    print(f"first run (cache cold, instant judge): {cold:.2f} s")
    print(
        f"warm runs: {', '.join(f'{t:.2f}' for t in warm)} s (median {statistics.median(warm):.2f})"
    )
    print(f"baseline, {options.cases} plain tests: {', '.join(f'{t:.2f}' for t in base)} s")
    print(f"cases passed: {counts['passed']}, failed: {counts['failed']}")
    print(f"warm run judge requests: {usage['judge_calls']}, cache hits: {usage['cache_hits']}")
    print(f"plugin time per test beyond pytest's own: {per_test_ms:.2f} ms (target < 5 ms)")


if __name__ == "__main__":
    main()
