"""The judge cache shared by several processes (xdist workers, parallel CI jobs): readers
never see a half-written entry, and every entry ends whole. A damaged entry of any kind is a
miss that is asked again and rewritten, never a crash or a reply made up from the damage."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.judges.cache import JudgeCache, cache_key
from rag_eval_pytest.judges.callable import CallableJudge
from rag_eval_pytest.judges.questions import StatementsInput, StatementSupport

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
