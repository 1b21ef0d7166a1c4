"""The judge cache does not only grow: at the end of a run, entries not used for
``judge.cache_max_age_days`` go, then the least recently used past ``judge.cache_max_mb``;
what a run reads counts as used."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.judges.cache import JudgeCache
from tests import word_judge
from tests.helpers import GROUNDED_CASES
from tests.unit.judges.test_cache import age, entry

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
