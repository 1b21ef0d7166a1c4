"""Latency is the RAG call alone: the plugin's own work (loading the local judge's model,
other cases' judging) is not inside the timed span."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case

pytest.importorskip("torch")


def test_a_fast_callable_reports_its_own_latency_while_the_local_model_loads(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """A callable that takes ~10 ms, in a first run of the local judge (its embedding model
    loads while the cases are queried): p95 latency stays that of the callable."""
    write_dataset(
        [
            case(f"c{i}", f"What is the refund policy {i}?", "Full refund within 30 days.")
            for i in range(12)
        ]
    )
    pytester.makeconftest(
        """
import pytest
import app

@pytest.fixture(scope="session")
def rag_adapter():
    return app.answer
"""
    )
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import evaluate

def test_case(rag_case):
    evaluate(rag_case, "faithfulness")
    evaluate(rag_case, "answer_relevance")
"""
    )
    pytester.makepyfile(
        app="""
import time

def answer(question):
    time.sleep(0.01)
    return "Full refund within 30 days.", [{"text": "Full refund within 30 days of purchase.",
                                            "source": "policy.md"}]
"""
    )
    # A fresh process: the model is not loaded yet, as on a user's first run.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--rag-dataset=dataset.json",
            "--rag-judge=local",
            "--rag-no-cache",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": f"{pytester.path}:{os.environ.get('PYTHONPATH', '')}"},
    )
    report = json.loads((pytester.path / "results" / "eval_report.json").read_text())
    latency = report["summary"]["latency"]
    assert latency["count"] == 12, result.stdout[-3000:]
    assert latency["p95_s"] < 0.5, (latency, result.stdout[-3000:])
    assert latency["p95_s"] >= 0.01


def test_latency_excludes_the_wait_for_a_worker_thread(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Blocking work of the run (the local model loading, a metric's computation) shares the
    worker threads with sync RAG callables: here a metric keeps every thread busy while
    later cases are queried. Their latency is still the 10 ms the callable takes, not the
    time spent waiting for a thread."""
    write_dataset([case(f"c{i}", f"q{i}?", "gt") for i in range(24)])
    pytester.makeconftest(
        """
import asyncio, time, pytest
from rag_eval_pytest import Measurement, Metric, register_metric

@register_metric
class Blocking(Metric):
    name = "blocking"
    async def measure(self, sample, services):
        await asyncio.to_thread(time.sleep, 0.5)
        return Measurement(score=1.0)

@pytest.fixture(scope="session")
def rag_adapter():
    def answer(question):
        time.sleep(0.01)
        return "The answer.", [{"text": "The answer.", "source": "a.md"}]
    return answer
"""
    )
    # Zero-code: the metric is known from the start, so it is measured beside the queries.
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  blocking: null\n"})
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-concurrency=16", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=24)
    latency = json.loads((pytester.path / "results" / "eval_report.json").read_text())["summary"][
        "latency"
    ]
    assert latency["count"] == 24
    assert 0.01 <= latency["p95_s"] < 0.25, latency
