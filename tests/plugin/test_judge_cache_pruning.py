"""The judge cache does not only grow: at the end of a run, entries not used for
``judge.cache_max_age_days`` go, then the least recently used past ``judge.cache_max_mb``;
what a run reads counts as used."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.judges.cache import JudgeCache, prune_cache
from tests import word_judge
from tests.helpers import GROUNDED_CASES

DAY = 86400.0


def age(path: Path, days: float) -> None:
    then = time.time() - days * DAY
    os.utime(path, (then, then))


def entry(cache: JudgeCache, name: str, days: float, size: int = 0) -> Path:
    key = name * 64
    cache.put(key, {"text": "x" * size})
    path = cache.directory / key[:2] / f"{key}.json"
    age(path, days)
    return path


def test_entries_unused_past_the_age_and_the_oldest_past_the_size_go(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    stale = entry(cache, "a", days=40)
    kb = 1024
    oldest, older, recent, newest = (
        entry(cache, name, days=days, size=300 * kb)
        for name, days in (("b", 20), ("c", 10), ("d", 2), ("e", 0))
    )
    vectors = tmp_path / "vectors-all-MiniLM-L6-v2" / "ff"
    vectors.mkdir(parents=True)
    (old_vector := vectors / ("f" * 64 + ".f32")).write_bytes(b"\0" * 1536)
    age(old_vector, 31)
    (unrelated := tmp_path / "notes.txt").write_text("kept")
    age(unrelated, 400)

    # An old entry read again is used: it stays.
    assert cache.get("d" * 64) is not None
    pruned = prune_cache(tmp_path, max_age_days=30, max_mb=0.7)

    assert not stale.exists() and not old_vector.exists()  # unused for more than 30 days
    assert not oldest.exists() and not older.exists()  # past 0.7 MB, the least recently used
    assert recent.exists() and newest.exists()
    assert unrelated.exists()  # not a cache file
    assert (pruned.removed, pruned.kept) == (4, 2)
    assert pruned.kept_bytes <= 0.7 * 1024 * 1024

    # No limits: nothing goes.
    assert prune_cache(tmp_path, max_age_days=None, max_mb=None).removed == 0


TESTS = """
from rag_eval_pytest import assert_faithful
def test_faithful(rag_case):
    assert_faithful(rag_case)
"""


def test_a_run_prunes_what_no_run_used_for_30_days_and_keeps_what_it_read(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(GROUNDED_CASES)
    pytester.makeconftest(word_judge.CONFTEST)
    pytester.makepyfile(test_rag=TESTS)
    pytester.makefile(".yaml", **{"eval-config": "judge:\n  cache_max_age_days: 30\n"})
    folder = pytester.path / ".pytest_cache" / "d" / "rag_eval_judge"
    forgotten = entry(JudgeCache(folder), "0", days=45)

    def run() -> None:
        word_judge.calls.clear()
        pytester.runpytest("--rag-dataset", "dataset.json").assert_outcomes(passed=1)

    run()
    assert not forgotten.exists()
    written = sorted(folder.rglob("*.json"))
    assert written and word_judge.calls

    # Every entry of the run last used 45 days ago: the next run reads what it needs (the
    # question's voted outcome, no judge call), which marks it used; the replies it did not
    # read go, and the run after it is still answered from the cache.
    for path in written:
        age(path, 45)
    run()
    assert word_judge.calls == []
    kept = sorted(folder.rglob("*.json"))
    assert kept and set(kept) < set(written)
    run()
    assert word_judge.calls == []
    assert sorted(folder.rglob("*.json")) == kept
