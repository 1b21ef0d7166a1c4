"""Writing the outputs: the report files' names and the JSON report's layout, and a locked,
append-only history.

Reports are written with :func:`rag_eval_pytest.atomic.write_atomic`, so a reader never sees
a half-written report (with the mode a plain ``open()`` gives, readable by an artifact
uploader). History lines are appended whole, under an inter-process lock on the history file
itself, so several runs finishing at once leave one valid line each.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ..errors import RagEvalWarning
from ..text.escaping import json_inert
from .models import case_text, texts_digest

if TYPE_CHECKING:
    from collections.abc import Iterator

HISTORY_FILE = "results.jsonl"
JSON_REPORT = "eval_report.json"
MARKDOWN_REPORT = "eval_report.md"
HTML_REPORT = "eval_report.html"


def report_json(doc: dict[str, Any]) -> str:
    """The JSON report: indented, except that each case takes one line, so a report of
    thousands of cases is written quickly (Python's compact encoder is several times faster
    than its indenting one) and a diff of two reports shows the cases that changed. Its
    ``integrity`` is the count and digest of the cases written, whatever ``doc`` had."""

    def dumps(value: Any, **kwargs: Any) -> str:
        return json_inert(json.dumps(value, ensure_ascii=False, allow_nan=False, **kwargs))

    cases = [case_text(case, allow_nan=False) for case in doc.get("cases", [])]
    integrity = {"cases": len(cases), "cases_sha256": texts_digest(cases)}
    doc = {**{k: v for k, v in doc.items() if k != "integrity"}, "integrity": integrity}
    parts = []
    for key, value in doc.items():
        if key == "cases" and isinstance(value, list) and value:
            text = "[\n" + ",\n".join(f"    {json_inert(case)}" for case in cases) + "\n  ]"
        else:
            text = dumps(value, indent=2).replace("\n", "\n  ")
        parts.append(f"  {dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def append_history(path: Path, entry: dict[str, Any], *, timeout: float = 60.0) -> None:
    """Append one JSON line under an exclusive lock (safe across processes). The lock is
    taken on ``results.jsonl`` itself, which is only ever appended to, so no lock file is
    left beside it in the output folder. Raises :class:`TimeoutError` when another writer
    holds it longer than ``timeout`` seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json_inert(json.dumps(entry, ensure_ascii=False, sort_keys=True, allow_nan=False)) + "\n"
    with path.open("a+b") as fh, _exclusive(fh, path, timeout):
        fh.seek(0, os.SEEK_END)
        if fh.tell() > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                # A crash left a truncated last line: start ours on a fresh line.
                fh.write(b"\n")
        fh.write(line.encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())


@contextlib.contextmanager
def _exclusive(fh: BinaryIO, path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on the open file ``fh`` (``flock``). Where there is no
    ``flock`` (Windows), a lock file in the temporary directory, named after ``path``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        from filelock import FileLock

        digest = hashlib.sha256(str(path.resolve()).encode("utf-8")).hexdigest()[:32]
        lock = Path(tempfile.gettempdir()) / f"rag-eval-{digest}.lock"
        with FileLock(str(lock), timeout=timeout):
            yield
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"another run held the lock for {timeout:g}s") from None
            time.sleep(0.005)
    try:
        yield
    finally:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


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
