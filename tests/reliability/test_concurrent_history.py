"""results.jsonl under concurrent writers: every line whole, none lost."""

from __future__ import annotations

import json
import multiprocessing
import warnings
from pathlib import Path

from rag_eval_pytest.reporting.files import append_history, read_history


def _append_many(path: str, writer: int, count: int) -> None:
    for i in range(count):
        append_history(Path(path), {"writer": writer, "i": i, "pad": "x" * 500})


def test_eight_processes_appending_200_lines_each_leave_1600_valid_lines(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(path), w, 200)) for w in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1600
    entries = [json.loads(line) for line in lines]
    for w in range(8):
        assert [e["i"] for e in entries if e["writer"] == w] == list(range(200))


def test_a_truncated_last_line_is_skipped_with_a_warning_and_the_next_append_is_whole(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.jsonl"
    append_history(path, {"run": 1})
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"run": 2, "composite')  # a crash in the middle of a line
    append_history(path, {"run": 3})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        entries = read_history(path)
    assert [e["run"] for e in entries] == [1, 3]
    assert any("skipped 1 unreadable line" in str(w.message) for w in caught)
