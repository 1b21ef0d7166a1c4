"""Sentence vectors kept on disk: a re-run with every text known never loads the model, and a
damaged file is a miss."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from rag_eval_pytest.judges.local.vector_cache import VectorCache
from tests.helpers import case, read_report

pytest.importorskip("torch")

REPORT_TORCH = """
import sys
def pytest_sessionfinish(session):
    print("TORCH LOADED", "torch" in sys.modules)
"""


def test_a_rerun_with_every_vector_cached_scores_the_same_without_loading_the_model(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case(
                "pto",
                "How many days of paid time off?",
                "20 days.",
                answer="Employees receive 30 days of paid time off.",
                contexts=["Full-time employees receive 20 days paid time off annually."],
            )
        ]
    )
    pytester.makeconftest(REPORT_TORCH)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  faithfulness: 0.5\n"})
    args = ("--rag-dataset=dataset.json", "-s", "-p", "no:randomly")
    first = pytester.runpytest_subprocess(*args)
    first.stdout.fnmatch_lines(["*TORCH LOADED True*"])
    scores = read_report(pytester)["cases"][0]["metrics"]
    again = pytester.runpytest_subprocess(*args)
    again.stdout.fnmatch_lines(["*TORCH LOADED False*"])
    assert read_report(pytester)["cases"][0]["metrics"] == scores
    off = pytester.runpytest_subprocess(*args, "--rag-no-cache")
    off.stdout.fnmatch_lines(["*TORCH LOADED True*"])


def test_a_damaged_or_foreign_vector_file_is_a_miss(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path, "model@1", 4)
    vector = np.array([0.5, 0.5, 0.5, 0.5], dtype=np.float32)
    cache.put_many({"a": vector, "b": vector, "c": vector})
    assert set(cache.get_many(["a", "b", "c", "d"])) == {"a", "b", "c"}
    files = {text: cache._path(text) for text in "abc"}
    files["a"].write_bytes(files["a"].read_bytes()[:8])  # truncated
    files["b"].write_bytes(np.array([np.inf] * 4, dtype="<f4").tobytes())  # not finite
    assert set(cache.get_many(["a", "b", "c"])) == {"c"}
    assert not VectorCache(tmp_path, "model@2", 4).get_many(["c"])  # another model version
    assert json.dumps(sorted(p.name for p in tmp_path.rglob(".tmp-*"))) == "[]"
