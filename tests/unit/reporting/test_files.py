"""results.jsonl after a crash in the middle of a line: the next run reads what it can, says
what it skipped, and appends whole lines."""

from __future__ import annotations

import warnings
from pathlib import Path

from rag_eval_pytest.reporting.files import append_history, read_history


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
