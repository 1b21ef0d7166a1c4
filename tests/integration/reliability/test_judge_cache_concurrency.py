"""The judge cache shared by several processes (xdist workers, parallel CI jobs): readers
never see a half-written entry, and every entry ends whole. (A damaged entry of any kind:
tests/unit/judges/test_cache.py.)"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from rag_eval_pytest.judges.cache import JudgeCache, cache_key

KEYS = [
    cache_key(
        kind="anthropic", model="m", system="s", user=f"prompt {i}", schema_json="{}", pass_index=0
    )
    for i in range(40)
]


def _hammer(directory: str, worker: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    cache = JudgeCache(directory)
    bad = 0
    for round_ in range(25):
        for i, key in enumerate(KEYS):
            reply = {
                "text": f"reply {i}",
                "data": None,
                "refusal": None,
                "input_tokens": i,
                "output_tokens": worker + round_,
            }
            cache.put(key, reply)
            seen = cache.get(key)
            if seen is None or seen["text"] != f"reply {i}":
                bad += 1
    out.put(bad)


def test_six_processes_writing_and_reading_the_same_entries(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
    workers = [context.Process(target=_hammer, args=(str(tmp_path), w, results)) for w in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    assert [results.get(timeout=5) for _ in workers] == [0] * 6
    cache = JudgeCache(tmp_path)
    for i, key in enumerate(KEYS):
        entry = cache.get(key)
        assert entry is not None
        assert entry["text"] == f"reply {i}"
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and not p.name.endswith(".json")]
