"""``$GITHUB_STEP_SUMMARY``: the summary is appended (never overwriting a previous step's)
with one final newline, nothing happens outside CI, and a file that cannot be written is a
problem returned to the caller, never an exception."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

import pytest

from rag_eval_pytest.reporting.step_summary import (
    STEP_SUMMARY_ENV,
    append_fatal_summary,
    append_step_summary,
)


def test_outside_ci_nothing_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STEP_SUMMARY_ENV, raising=False)
    assert append_step_summary("# Summary") is None
    monkeypatch.setenv(STEP_SUMMARY_ENV, "")
    assert append_step_summary("# Summary") is None


def test_the_summary_is_appended_with_one_final_newline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "summary.md"
    target.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(target))
    assert append_step_summary("# RAG eval\n\n| a |\n\n\n") is None
    assert append_step_summary("second") is None
    assert target.read_text(encoding="utf-8") == "earlier step\n# RAG eval\n\n| a |\nsecond\n"


def test_a_summary_written_in_parts_ends_in_one_newline_wherever_its_parts_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "summary.md"
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(target))

    def write(out: TextIO) -> None:
        for part in ("# RAG eval\n", "\n", "| a |", "\n\n", "| b |\n", "\n", "\n"):
            out.write(part)

    assert append_step_summary(write) is None
    assert target.read_text(encoding="utf-8") == "# RAG eval\n\n| a |\n\n| b |\n"


def test_a_file_that_cannot_be_written_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "missing-dir" / "summary.md"
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(target))
    problem = append_step_summary("text")
    assert problem is not None
    assert problem.startswith(f"{target} ({STEP_SUMMARY_ENV}): ")
    assert "No such file or directory" in problem


def test_a_run_that_ends_before_any_test_still_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "summary.md"
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(target))
    append_fatal_summary("dataset.json: case 'c1': field 'question' is required", 3)
    text = target.read_text(encoding="utf-8")
    assert text.startswith("## RAG evaluation FAILED: exit 3, fatal\n")
    assert "field 'question' is required" in text
