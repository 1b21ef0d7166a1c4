"""The judge's disk cache: pruning by age and by size (what a run reads counts as used), and a
damaged entry of any kind, which is a miss asked again and rewritten, never a crash or a reply
made up from the damage."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.judges.cache import JudgeCache, prune_cache
from rag_eval_pytest.judges.callable import CallableJudge
from rag_eval_pytest.judges.questions import StatementsInput, StatementSupport

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


VERDICTS = json.dumps(
    {"statements": [{"statement": "s", "verdict": "unsupported", "reason": "not stated"}]}
)


INPUTS = StatementsInput(question="Where?", answer="In Paris.", contexts=["Lyon is big."])


def corrupt_entries() -> dict[str, Callable[[Path], None]]:
    def text(content: str) -> Callable[[Path], None]:
        return lambda entry: entry.write_text(content, encoding="utf-8")

    def missing_fields(entry: Path) -> None:
        good = json.loads(entry.read_text(encoding="utf-8"))
        if "reply" in good:
            good["reply"].update(text=None, input_tokens=None)
        else:
            good["outcome"].update(value=None, requests=None)
        entry.write_text(json.dumps(good), encoding="utf-8")

    def infinite(entry: Path) -> None:
        content = entry.read_text(encoding="utf-8")
        for field in ('"input_tokens": 0', '"requests": 1'):
            content = content.replace(field, field[:-1] + "1e999")
        entry.write_text(content, encoding="utf-8")

    def other_key(entry: Path) -> None:
        good = json.loads(entry.read_text(encoding="utf-8"))
        good["key"] = "0" * 64  # a file copied from another request
        entry.write_text(json.dumps(good), encoding="utf-8")

    def directory(entry: Path) -> None:
        entry.unlink()
        entry.mkdir()

    return {
        "truncated": text('{"version": 1, "key": "trunc'),
        "empty": text(""),
        "not-utf8": lambda entry: entry.write_bytes(b"\xff\xfe\x00garbage"),
        "a-list": text("[1, 2, 3]"),
        "other-version": text('{"version": 99, "key": "x", "reply": {}}'),
        "other-key": other_key,
        "missing-fields": missing_fields,
        "infinite-number": infinite,
        "a-directory": directory,
    }


@pytest.mark.parametrize("damage", list(corrupt_entries()))
def test_a_corrupt_entry_is_a_miss_and_is_rewritten(tmp_path: Path, damage: str) -> None:
    calls: list[str] = []

    def model(prompt: str) -> str:
        calls.append(prompt)
        return VERDICTS

    def judge() -> CallableJudge:
        return CallableJudge(model, model="m", passes=1, cache=JudgeCache(tmp_path))

    first = asyncio.run(judge().ask(StatementSupport(), INPUTS))
    assert first.judged and len(calls) == 1
    # Two entries: the request's reply and the question's voted outcome; both damaged.
    entries = [p for p in tmp_path.rglob("*.json") if p.is_file()]
    texts = [entry.read_text(encoding="utf-8") for entry in entries]
    assert len(entries) == 2 and any('"input_tokens": 0' in t for t in texts)
    assert any('"requests": 1' in t for t in texts)
    for entry in entries:
        corrupt_entries()[damage](entry)
    second = asyncio.run(judge().ask(StatementSupport(), INPUTS))
    assert second.judged, second.reason
    assert [s.verdict for s in second.value.statements] == ["unsupported"]
    assert len(calls) == 2  # a miss: asked again, never a reply made up from the damage
    if damage != "a-directory":  # nothing can be written where a directory stands
        third = asyncio.run(judge().ask(StatementSupport(), INPUTS))
        assert third.judged and len(calls) == 2  # rewritten: the next run is a hit
    assert not list(tmp_path.rglob(".tmp-*"))
