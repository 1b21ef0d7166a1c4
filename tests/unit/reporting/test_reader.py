"""load_report refuses a file nested too deeply to be a report, with one error naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_eval_pytest import ReportError, load_report


def test_a_report_nested_too_deeply_is_one_error_naming_it(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"schema_version": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ReportError, match=r"deep.json: nested too deeply to be an eval_report"):
        load_report(deep)
