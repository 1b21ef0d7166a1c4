"""The JSON schema of ``eval_report.json``, generated from the report's models.

``python -m rag_eval_pytest.reporting.schema > docs/eval_report.schema.json`` writes the
published copy; a test keeps it equal to what this module generates.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .models import SCHEMA_VERSION, Report

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def report_schema() -> dict[str, Any]:
    """The schema of a report this version writes and ``rag-eval merge`` reads."""
    schema = Report.model_json_schema()
    schema["title"] = f"eval_report.json (schema version {SCHEMA_VERSION})"
    return {"$schema": SCHEMA_DIALECT, **schema}


def schema_text() -> str:
    return json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    sys.stdout.write(schema_text())


if __name__ == "__main__":  # pragma: no cover
    main()
