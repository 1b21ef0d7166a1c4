"""The published JSON schemas: ``eval_report.json``, a ``results.jsonl`` line (generated from
their models here) and a dataset file (:mod:`rag_eval_pytest.data.schema`).

``python -m rag_eval_pytest.reporting.schema > docs/eval_report.schema.json``,
``python -m rag_eval_pytest.reporting.schema history > docs/history_line.schema.json`` and
``python -m rag_eval_pytest.reporting.schema dataset > docs/dataset.schema.json`` write the
published copies; tests keep them equal to what this module generates.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from ..data.schema import dataset_schema
from .models import SCHEMA_VERSION, HistoryLine, Report

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def report_schema() -> dict[str, Any]:
    """The schema of a report this version writes and ``rag-eval merge`` reads."""
    schema = Report.model_json_schema()
    schema["title"] = f"eval_report.json (schema version {SCHEMA_VERSION})"
    return {"$schema": SCHEMA_DIALECT, **schema}


def history_line_schema() -> dict[str, Any]:
    """The schema of a ``results.jsonl`` line this version writes: every key, no other. The
    history is read more leniently (:class:`~.models.HistoryLine`): a line of an earlier
    version, which lacks keys, still counts."""
    schema = HistoryLine.model_json_schema(mode="serialization")
    schema["title"] = "A line of results.jsonl, the history of runs"
    return {"$schema": SCHEMA_DIALECT, **schema}


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "report": report_schema,
    "history": history_line_schema,
    "dataset": dataset_schema,
}


def schema_text(which: str = "report") -> str:
    return json.dumps(SCHEMAS[which](), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    which = args[0] if args else "report"
    if len(args) > 1 or which not in SCHEMAS:
        sys.stderr.write(
            f"usage: python -m rag_eval_pytest.reporting.schema [{'|'.join(SCHEMAS)}]\n"
        )
        return 2
    sys.stdout.write(schema_text(which))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
