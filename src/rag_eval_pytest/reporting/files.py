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
import io
import json
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from ..errors import RagEvalWarning
from ..text.escaping import json_inert
from .models import CasesDigest, case_text

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

HISTORY_FILE = "results.jsonl"
JSON_REPORT = "eval_report.json"
MARKDOWN_REPORT = "eval_report.md"
HTML_REPORT = "eval_report.html"


def report_json(doc: dict[str, Any]) -> str:
    """The JSON report of ``doc`` (the report as JSON, its cases included), as text: see
    :func:`write_report_json`."""
    out = io.StringIO()
    cases = doc.get("cases", [])
    write_report_json(out, doc, (case_text(case, allow_nan=False) for case in cases))
    return out.getvalue()


def write_report_json(out: TextIO, doc: dict[str, Any], cases: Iterable[str]) -> None:
    """Write the JSON report to ``out``: ``doc`` (the report as JSON; what it has under
    ``cases`` is not read) with ``cases`` (each case as :func:`~.models.case_text` writes it)
    as its cases, written as they come. Indented, except that each case takes one line, so a
    report of thousands of cases is written quickly (Python's compact encoder is several times
    faster than its indenting one) and a diff of two reports shows the cases that changed. Its
    ``integrity`` is the count and digest of the cases written, whatever ``doc`` had."""
    digest = CasesDigest()
    out.write("{\n")
    for n, key in enumerate(_keys(doc)):
        out.write((",\n" if n else "") + f"  {_dumps(key)}: ")
        if key == "cases":
            _write_cases(out, cases, digest)
        else:
            _write_value(out, doc[key] if key != "integrity" else _integrity(digest))
    out.write("\n}\n")


def _keys(doc: dict[str, Any]) -> list[str]:
    """The report's keys in the order written: its integrity last."""
    return [*(key for key in doc if key != "integrity"), "integrity"]


def _write_value(out: TextIO, value: Any) -> None:
    out.write(_dumps(value, indent=2).replace("\n", "\n  "))


def _write_cases(out: TextIO, cases: Iterable[str], digest: CasesDigest) -> None:
    """The cases, one line each (``[]`` for none)."""
    for text in cases:
        out.write(f"{',' if digest.count else '['}\n    {json_inert(text)}")
        digest.add(text)
    out.write("\n  ]" if digest.count else "[]")


def _integrity(digest: CasesDigest) -> dict[str, Any]:
    return {"cases": digest.count, "cases_sha256": digest.hexdigest()}


def _dumps(value: Any, **kwargs: Any) -> str:
    return json_inert(json.dumps(value, ensure_ascii=False, allow_nan=False, **kwargs))


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
            entry = _history_line(line)
            if entry is None:
                bad.append(lineno)
            else:
                entries.append(entry)
    if bad:
        warnings.warn(
            RagEvalWarning(
                f"{path}: skipped {len(bad)} unreadable line(s) "
                f"(line {', '.join(map(str, bad[:5]))})"
            ),
            stacklevel=2,
        )
    return entries


def _history_line(line: str) -> dict[str, Any] | None:
    """One line's history entry, or ``None`` when the line is unreadable."""
    try:
        entry = json.loads(
            line,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except ValueError:  # JSONDecodeError included
        return None
    return entry if isinstance(entry, dict) else None


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
