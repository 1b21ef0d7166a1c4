"""Reading ``eval_report.json`` back as the typed :class:`~.models.Report`.

``load_report`` is public (``from rag_eval_pytest import load_report``) for notebooks and
scripts that post-process a run's results; ``rag-eval merge`` reads its shards with
``load_shard``, which also checks that the cases are the ones the run wrote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..data.reading import FileTooLarge, read_limited
from ..errors import ReportError
from ..text.shorten import cut
from .files import JSON_REPORT
from .models import SCHEMA_VERSION, Report, cases_digest

if TYPE_CHECKING:
    import os
    from collections.abc import Callable


def load_report(path: str | os.PathLike[str]) -> Report:
    """The run report at ``path``: an ``eval_report.json``, or a folder that holds one (a
    run's output folder, ``results/`` by default).

    Raises :class:`~rag_eval_pytest.errors.ReportError`, naming the file and what is wrong,
    for a file that is missing, larger than an input file may be, not JSON, nested too
    deeply, of another schema version, not a whole report, or with a value no run writes (a
    score outside [0, 1] or not finite, a negative count, ``true`` for a number).
    """
    file, doc = _read(path)
    return _validated(file, doc)


def load_shard(path: str | os.PathLike[str]) -> Report:
    """A report to merge: read as :func:`load_report` reads it, and refused (a
    :class:`~rag_eval_pytest.errors.ReportError` naming the file) unless its cases are the
    ones its run wrote, by their count and digest: a case removed or edited after the run
    would change the merged verdict. A report of an earlier version has neither."""
    file, doc = _read(path)
    report = _validated(file, doc)
    cases = doc["cases"]
    check_integrity(file, report, len(cases), lambda: cases_digest(cases))
    return report


def check_integrity(file: Path, report: Report, count: int, digest: Callable[[], str]) -> None:
    """Refuse (a :class:`~rag_eval_pytest.errors.ReportError` naming the file) a report to
    merge whose cases, ``count`` of them with the ``digest`` as read, are not the ones its run
    wrote."""
    regenerate = "run its shard again to write it anew"
    if report.integrity is None:
        raise ReportError(
            f"{file}: written by an earlier version, without the count and digest of its "
            f"cases that rag-eval merge checks; {regenerate}"
        )
    if count != report.integrity.cases:
        raise ReportError(
            f"{file}: holds {count} cases where its run wrote {report.integrity.cases}: "
            f"cases were removed or added after the run; {regenerate}"
        )
    if digest() != report.integrity.cases_sha256:
        raise ReportError(
            f"{file}: its cases are not the ones its run wrote (their digest differs: edited "
            f"after the run); {regenerate}"
        )


def _read(path: str | os.PathLike[str]) -> tuple[Path, Any]:
    """The report file at ``path`` (or in the folder) and its JSON."""
    file = Path(path)
    if file.is_dir():
        file = file / JSON_REPORT
    try:
        return file, json.loads(read_limited(file).decode("utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{file}: file not found") from None
    except FileTooLarge as exc:
        raise ReportError(f"{file}: {exc}") from None
    except RecursionError:
        raise ReportError(_too_deep(file)) from None
    except (OSError, ValueError) as exc:
        raise ReportError(f"{file}: not a JSON report ({exc})") from None


def _validated(file: Path, doc: Any) -> Report:
    if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION:
        raise ReportError(f"{file}: not an eval_report.json of schema version {SCHEMA_VERSION}")
    try:
        return Report.from_json(doc)
    except ValidationError as exc:
        # A report cut short or edited by hand is refused by name, not halfway through
        # whatever reads it.
        error = exc.errors()[0]
        what = "complete" if error["type"] in ("missing", *_KINDS) else "valid"
        raise ReportError(f"{file}: not a {what} eval_report.json: {_problem(error)}") from None
    except RecursionError:  # a metric's details nested deeper than validation goes
        raise ReportError(_too_deep(file)) from None


def _too_deep(file: Path) -> str:
    return f"{file}: nested too deeply to be an eval_report.json"


_KINDS = {"list_type": "a list", "dict_type": "an object", "model_type": "an object"}


def _problem(error: Any) -> str:
    """One validation error of a report, in its words: which part, what is wrong."""
    where = "".join(
        f"[{step}]" if isinstance(step, int) else f".{step}" for step in error["loc"]
    ).lstrip(".")
    if error["type"] == "missing":
        return f"it has no {where!r}"
    if error["type"] in _KINDS:
        return f"{where!r} is not {_KINDS[error['type']]}"
    value = error.get("input")
    shown = "" if isinstance(value, (dict, list)) else f" (got {cut(repr(value), 40)})"
    return f"{where!r}: {error['msg']}{shown}"
