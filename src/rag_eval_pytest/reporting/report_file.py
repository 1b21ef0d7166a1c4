"""An ``eval_report.json`` read in parts: everything but its cases whole, and each case where
it lies in the file, so that ``rag-eval report`` and ``rag-eval merge`` hold one case at a
time, however many the report has.

:func:`open_report` scans the file once, object by object (a JSON object at a time with
:meth:`json.JSONDecoder.raw_decode`, the buffer growing only as long as one case): each case
is validated and its place kept; the cases are read again at their places as they are shown
(:class:`FileCases`). A file that is not a whole, valid report is read as
:func:`~.reader.load_report` reads it, for the same one message naming the file and what is
wrong.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..data import reading
from .case_source import CaseMark, ListCases
from .files import JSON_REPORT
from .models import SCHEMA_VERSION, CaseResult, CasesDigest, Report, case_text
from .reader import check_integrity, load_report, load_shard

if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Iterator, Sequence

_CHUNK = 1 << 20
_TEXT = re.compile(r"[^ \t\n\r]")
"""What is not JSON whitespace."""
_DECODER = json.JSONDecoder()


class _Malformed(Exception):
    """The file is not what a run writes: read whole, for the exact message."""


@dataclass
class ReportParts:
    """A report read in parts: ``head`` (the report without its cases) and ``cases``."""

    head: Report
    cases: FileCases | ListCases
    digest: CasesDigest = field(default_factory=CasesDigest)
    """The count and digest of the cases as read (:class:`~.models.Integrity`)."""


def open_report(path: str | os.PathLike[str], *, shard: bool = False) -> ReportParts:
    """The report at ``path`` (an ``eval_report.json``, or a folder that holds one) in parts.
    Raises :class:`~rag_eval_pytest.errors.ReportError` as :func:`~.reader.load_report`
    does, and, for a ``shard`` to merge, as :func:`~.reader.load_shard` does."""
    file = Path(path)
    if file.is_dir():
        file = file / JSON_REPORT
    try:
        parts = _scanned(file)
    except (_Malformed, OSError, ValueError, RecursionError):
        # Read whole, as every report is read: the one message of what is wrong; or the
        # report of an odd but valid file (its cases given twice: the last are its cases).
        report = load_shard(file) if shard else load_report(file)
        return ReportParts(report.model_copy(update={"cases": []}), ListCases(report.cases))
    if shard:
        check_integrity(file, parts.head, len(parts.cases), parts.digest.hexdigest)
    return parts


def _scanned(file: Path) -> ReportParts:
    if not file.is_file() or file.stat().st_size > reading.MAX_FILE_BYTES:
        raise _Malformed  # read (and refused) as every input file is
    with file.open("rb") as fh:
        cases = FileCases(file)
        digest = CasesDigest()

        def take(case: Any, start: int, length: int) -> None:
            if not isinstance(case, dict):
                raise _Malformed
            digest.add(case_text(case))
            cases.add(_valid_case(case), start, length)

        head = _Scanner(fh).report(take)
    return ReportParts(_valid_head(head), cases, digest)


def _valid_case(case: dict[str, Any]) -> CaseResult:
    try:
        return CaseResult.model_validate(case)
    except ValidationError:
        raise _Malformed from None


def _valid_head(head: dict[str, Any]) -> Report:
    if head.get("schema_version") != SCHEMA_VERSION or "cases" not in head:
        raise _Malformed
    try:
        return Report.from_json(head)
    except ValidationError:
        raise _Malformed from None


class FileCases:
    """A report file's cases, each read at its place when asked for."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None
        self._marks: list[CaseMark] = []
        self._places: list[tuple[int, int]] = []
        self.order: list[tuple[int, str]] = []
        """Each case's index and key, in the file's order."""

    def add(self, case: CaseResult, start: int, length: int) -> None:
        self._marks.append(CaseMark.of(case))
        self._places.append((start, length))
        self.order.append((case.index, case.key))

    def __len__(self) -> int:
        return len(self._marks)

    def marks(self) -> Sequence[CaseMark]:
        return self._marks

    def read(self, keep: Callable[[CaseMark], bool] | None = None) -> Iterator[CaseResult]:
        with self.path.open("rb") as fh:
            for mark, (start, length) in zip(self._marks, self._places, strict=True):
                if keep is None or keep(mark):
                    yield _case_at(fh, start, length)

    def at(self, n: int) -> CaseResult:
        """The ``n``-th case of the file (the file kept open until :meth:`close`)."""
        if self._file is None:
            self._file = self.path.open("rb")
        return _case_at(self._file, *self._places[n])

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _case_at(fh: Any, start: int, length: int) -> CaseResult:
    fh.seek(start)
    return CaseResult.model_validate_json(fh.read(length))


class _Scanner:
    """The JSON text of a file, read a part at a time, with the byte offset of where it is."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.pos = 0
        self.offset = 0  # the byte offset of text[pos]
        self.eof = False
        self.want = _CHUNK

    def report(self, take: Callable[[Any, int, int], None]) -> dict[str, Any]:
        """The report's parts but its cases, each case given to ``take`` with its place."""
        head: dict[str, Any] = {}
        self.expect("{")
        while True:
            key = self.value()
            self.expect(":")
            if key == "cases":
                if "cases" in head:
                    raise _Malformed  # given twice: JSON keeps the last
                head["cases"] = []
                self.cases(take)
            else:
                head[key] = self.value()
            if self.expect(",}") == "}":
                break
        self.end()
        return head

    def cases(self, take: Callable[[Any, int, int], None]) -> None:
        self.expect("[")
        if self.peek() == "]":
            self.expect("]")
            return
        while True:
            start = self.offset
            case = self.value()
            take(case, start, self.offset - start)
            if self.expect(",]") == "]":
                return

    def value(self) -> Any:
        """The JSON value that starts here (after whitespace)."""
        self.peek()
        while True:
            value, end = self._decoded()
            # A value is whole once something follows it (a number cut by the end of a part
            # reads as a shorter number).
            if end != -1 and (end < len(self.text) or self.eof):
                self.advance(end)
                self.want = _CHUNK
                return value
            if not self.more():
                raise _Malformed
            self.want *= 2  # a value longer than a part

    def _decoded(self) -> tuple[Any, int]:
        """The value that starts here and where it ends; ``-1`` for none whole here."""
        try:
            return _DECODER.raw_decode(self.text, self.pos)
        except json.JSONDecodeError:
            return None, -1

    def expect(self, chars: str) -> str:
        found = self.peek()
        if found is None or found not in chars:
            raise _Malformed
        self.advance(self.pos + 1)
        return found

    def peek(self) -> str | None:
        """The next character that is not whitespace (``None`` at the end)."""
        while True:
            found = _TEXT.search(self.text, self.pos)
            if found is not None:
                self.advance(found.start())
                return self.text[self.pos]
            self.advance(len(self.text))
            if not self.more():
                return None

    def end(self) -> None:
        if self.peek() is not None:
            raise _Malformed  # extra data after the report

    def advance(self, to: int) -> None:
        passed = self.text[self.pos : to]
        self.offset += len(passed) if passed.isascii() else len(passed.encode("utf-8"))
        self.pos = to

    def more(self) -> bool:
        """Read the next part of the file; ``False`` at its end."""
        if self.eof:
            return False
        data = self.fh.read(self.want)
        self.text = self.text[self.pos :] + self.decoder.decode(data, final=not data)
        self.pos = 0
        self.eof = not data
        return True
