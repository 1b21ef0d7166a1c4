"""Sentence vectors kept on disk: a damaged file or one of another model version is a miss."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rag_eval_pytest.judges.local.vector_cache import VectorCache


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
