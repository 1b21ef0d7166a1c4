"""The run's cases on disk, so that the process writing the reports never holds them all.

* :class:`EventSpool`: each test report's case payload as it arrives, one JSON line each (in
  the aggregating process: a plain run's, or the xdist controller, which gets the payloads on
  the workers' reports). What stays in memory is each case's key, its place in the dataset and
  where its lines are; at the end each case is read back alone and folded into the summary.
* :class:`CaseSpool`: each case of the report as ``eval_report.json`` writes it, one line each,
  in report order, with its :class:`~.case_source.CaseMark` in memory; the JSON, Markdown and
  HTML reports and the step summary are written by reading it again, section by section.

Both live in one temporary file each under the output folder (``.rag-eval-spool-*``, readable
by the run's user only), removed when the run ends; a process that is killed leaves its file
behind, with what the run had gathered.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .case_source import CaseMark
from .models import CaseResult, case_text

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

SPOOL_PREFIX = ".rag-eval-spool-"


class SpoolFile:
    """A temporary file of lines, appended to and read back at the places they were written.
    Created when the first line comes, in ``directory`` (the system's temporary folder when
    that cannot be written)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self.path: Path | None = None
        self._file: Any = None
        self._end = 0

    def append(self, text: str) -> tuple[int, int]:
        """Write ``text`` as a line; where it is (its offset and length in bytes)."""
        data = text.encode("utf-8", "surrogatepass") + b"\n"
        handle = self._handle()
        handle.seek(self._end)
        handle.write(data)
        start, self._end = self._end, self._end + len(data)
        return start, len(data) - 1

    def read(self, start: int, length: int) -> str:
        handle = self._handle()
        handle.seek(start)
        data: bytes = handle.read(length)
        return data.decode("utf-8", "surrogatepass")

    def _handle(self) -> Any:
        if self._file is None:
            self._file = self._create()
        return self._file

    def _create(self) -> Any:
        folders = [self.directory, None] if self.directory is not None else [None]
        failure: OSError | None = None
        for folder in folders:
            try:
                if folder is not None:
                    folder.mkdir(parents=True, exist_ok=True)
                fd, name = tempfile.mkstemp(prefix=SPOOL_PREFIX, suffix=".jsonl", dir=folder)
            except OSError as exc:
                failure = exc
                continue
            self.path = Path(name)
            return os.fdopen(fd, "w+b")
        assert failure is not None
        raise failure

    def close(self) -> None:
        """Remove the file (nothing is kept of it)."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self.path = None
        self._end = 0


class EventSpool:
    """Each case's payloads as they arrive (with the test that sent each), by case key."""

    def __init__(self, directory: Path | None = None) -> None:
        self.file = SpoolFile(directory)
        self.entries: dict[str, array[int]] = {}
        """Per case key: its index, then the offset and length of each of its lines."""

    def add(self, key: str, index: int, event: dict[str, Any]) -> None:
        where = self.file.append(json.dumps(event))
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = array("q", [index])
        entry.extend(where)

    def in_order(self) -> list[str]:
        """The case keys in report order: by the case's index, then its key."""
        return sorted(self.entries, key=lambda key: (self.entries[key][0], key))

    def events(self, key: str) -> Iterator[dict[str, Any]]:
        """The case's events, in the order they arrived."""
        entry = self.entries[key]
        for n in range(1, len(entry), 2):
            yield json.loads(self.file.read(entry[n], entry[n + 1]))

    def close(self) -> None:
        self.file.close()


class CaseSpool:
    """The report's cases in order, each as ``eval_report.json`` writes it (secrets masked)
    and, where it differs, as the renderers show it (:func:`add`)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.file = SpoolFile(directory)
        self._marks: list[CaseMark] = []
        self._places = array("q")  # per case: the JSON line's offset and length, the shown's
        self._unwritable: dict[int, str] = {}  # a case no JSON report can hold: why

    def add(self, written: dict[str, Any], shown: dict[str, Any] | None = None) -> None:
        """One case: ``written`` as the JSON report writes it, ``shown`` as the renderers show
        it when that differs (a secret masked in one of the report's fixed words)."""
        text = self._written_text(written)
        place = self.file.append(text)
        shown_place = place if shown is None else self.file.append(case_text(shown))
        self._places.extend((*place, *shown_place))
        self._marks.append(CaseMark.of_json(written if shown is None else shown))

    def _written_text(self, case: dict[str, Any]) -> str:
        try:
            return case_text(case, allow_nan=False)
        except ValueError as exc:  # a number no JSON file holds: only that report fails
            self._unwritable[len(self._marks)] = str(exc)
            return case_text(case)

    def __len__(self) -> int:
        return len(self._marks)

    def marks(self) -> Sequence[CaseMark]:
        return self._marks

    def written(self) -> Iterator[str]:
        """Each case as the JSON report writes it (:func:`~.models.case_text`); a
        ``ValueError`` at a case that holds a number JSON cannot (NaN)."""
        for n in range(len(self._marks)):
            if n in self._unwritable:
                raise ValueError(self._unwritable[n])
            yield self.file.read(self._places[4 * n], self._places[4 * n + 1])

    def read(self, keep: Callable[[CaseMark], bool] | None = None) -> Iterator[CaseResult]:
        for n, mark in enumerate(self._marks):
            if keep is None or keep(mark):
                text = self.file.read(self._places[4 * n + 2], self._places[4 * n + 3])
                yield CaseResult.model_validate_json(text)

    def close(self) -> None:
        self.file.close()
