"""The published JSON schema of eval_report.json is the one generated from the report's
models."""

from __future__ import annotations

from pathlib import Path

from rag_eval_pytest.reporting.schema import schema_text

PUBLISHED = Path(__file__).resolve().parents[3] / "docs" / "eval_report.schema.json"


def test_the_published_schema_is_the_one_generated_from_the_report_models() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == schema_text(), (
        "docs/eval_report.schema.json is out of date: regenerate it with "
        "python -m rag_eval_pytest.reporting.schema > docs/eval_report.schema.json"
    )
