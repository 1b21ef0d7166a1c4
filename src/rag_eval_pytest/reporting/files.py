"""Writing the outputs: the report files' names and the JSON report's layout, and a locked,
append-only history.

Reports are written with :func:`rag_eval_pytest.atomic.write_atomic`, so a reader never sees
a half-written report. History lines are appended whole, under an inter-process lock, so several
runs finishing at once leave one valid line each.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import TYPE_CHECKING, Any

from ..errors import RagEvalWarning

if TYPE_CHECKING:
    from pathlib import Path

HISTORY_FILE = "results.jsonl"
JSON_REPORT = "eval_report.json"
MARKDOWN_REPORT = "eval_report.md"


def report_json(doc: dict[str, Any]) -> str:
    """The JSON report: indented, except that each case takes one line, so a report of
    thousands of cases is written quickly (Python's compact encoder is several times faster
    than its indenting one) and a diff of two reports shows the cases that changed."""

    def dumps(value: Any, **kwargs: Any) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, **kwargs)

    parts = []
    for key, value in doc.items():
        if key == "cases" and isinstance(value, list) and value:
            text = "[\n" + ",\n".join(f"    {dumps(case)}" for case in value) + "\n  ]"
        else:
            text = dumps(value, indent=2).replace("\n", "\n  ")
        parts.append(f"  {dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def append_history(path: Path, entry: dict[str, Any]) -> None:
    """Append one JSON line under a lock (safe across processes)."""
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(entry, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"
    lock = FileLock(str(path.with_name(f".{path.name}.lock")), timeout=60)
    with lock, path.open("a+b") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                # A crash left a truncated last line: start ours on a fresh line.
                fh.write(b"\n")
        fh.write(line.encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())


def read_history(path: Path) -> list[dict[str, Any]]:
    """All valid history entries; broken lines are skipped with a warning, never fatal."""
    if not path.is_file():
        return []
    entries: list[dict[str, Any]] = []
    bad: list[int] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(
                    line,
                    parse_constant=_reject_constant,
                    parse_float=_finite_float,
                    parse_int=_bounded_int,
                )
            except ValueError:  # JSONDecodeError included
                bad.append(lineno)
                continue
            if isinstance(entry, dict):
                entries.append(entry)
            else:
                bad.append(lineno)
    if bad:
        warnings.warn(
            RagEvalWarning(
                f"{path}: skipped {len(bad)} unreadable line(s) "
                f"(line {', '.join(map(str, bad[:5]))})"
            ),
            stacklevel=2,
        )
    return entries


# A damaged line may hold numbers no run wrote (NaN, 1e999, a 400-digit integer) that would
# crash the trend (float() overflow) or make the report invalid JSON: such a line is unreadable.
def _reject_constant(text: str) -> float:
    raise ValueError(f"{text} is not a score")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"not a finite number: {text}")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 18:
        raise ValueError("integer too large")
    return int(text)
