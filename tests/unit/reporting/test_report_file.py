"""A report read in parts (``rag-eval report``, ``rag-eval merge``): the same report as read
whole, whatever its layout and wherever the parts of the file end, each case read again
where it lies; anything that is not a whole, valid report is the same one error as
load_report's (load_shard's, for a shard)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.data import reading
from rag_eval_pytest.errors import ReportError
from rag_eval_pytest.reporting import report_file
from rag_eval_pytest.reporting.case_source import FAILING
from rag_eval_pytest.reporting.models import cases_digest
from rag_eval_pytest.reporting.reader import load_report, load_shard
from rag_eval_pytest.reporting.report_file import FileCases, open_report
from tests.unit.reporting.test_reader import (
    count_as_true,
    drop_metrics,
    score_above_one,
    summary_as_text,
    written,
)


def same_as_read_whole(path: Path) -> None:
    parts, whole = open_report(path, shard=True), load_shard(path)
    assert isinstance(parts.cases, FileCases)
    assert parts.head == whole.model_copy(update={"cases": []})
    assert list(parts.cases.read()) == whole.cases
    assert [parts.cases.at(n) for n in (1, 0)] == whole.cases[::-1]
    failing = [c for c in whole.cases if c.status in FAILING]
    assert list(parts.cases.read(lambda mark: mark.failing)) == failing
    parts.cases.close()


@pytest.mark.parametrize("chunk", [1 << 20, 7])
def test_a_written_report_reads_the_same_in_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(report_file, "_CHUNK", chunk)  # a case split across parts
    same_as_read_whole(written(tmp_path))


def test_a_report_laid_out_otherwise_reads_the_same_in_parts(tmp_path: Path) -> None:
    path = written(tmp_path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["cases"][0]["question"] = "Qué — ✓ 𝔘"
    doc["integrity"] = {**doc["integrity"], "cases_sha256": cases_digest(doc["cases"])}
    path.write_text(json.dumps(doc, indent=3, ensure_ascii=False), encoding="utf-8")
    same_as_read_whole(path)
    assert open_report(path).cases.at(0).question == "Qué — ✓ 𝔘"


def test_cases_given_twice_are_the_last_ones_as_json_reads_them(tmp_path: Path) -> None:
    path = written(tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('\n  "warnings":', '\n  "cases": [],\n  "warnings":', 1))
    assert list(open_report(path).cases.read()) == load_report(path).cases == []


@pytest.mark.parametrize(
    "edit", [drop_metrics, summary_as_text, score_above_one, count_as_true, None]
)
@pytest.mark.parametrize("shard", [False, True])
def test_a_report_that_is_not_whole_and_valid_is_the_error_of_a_report_read_whole(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None] | None, shard: bool
) -> None:
    path = written(tmp_path, edit)
    if edit is None:  # cut short
        path.write_text(path.read_text(encoding="utf-8")[:-300], encoding="utf-8")
    load = load_shard if shard else load_report
    with pytest.raises(ReportError) as whole:
        load(path)
    with pytest.raises(ReportError, match=f"^{re.escape(str(whole.value))}$"):
        open_report(path, shard=shard)


def test_a_shard_whose_cases_are_not_its_runs_is_refused_as_load_shard_refuses_it(
    tmp_path: Path,
) -> None:
    path = written(tmp_path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["cases"][1]["metrics"]["retrieval_recall"]["status"] = "passed"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ReportError, match="its cases are not the ones its run wrote"):
        open_report(path, shard=True)
    assert len(open_report(path).cases) == 2  # still a report to render


def test_missing_too_large_or_not_json_is_one_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ReportError, match=r"eval_report\.json: file not found$"):
        open_report(tmp_path)
    garbled = tmp_path / "garbled.json"
    garbled.write_bytes(b'{"schema_version": 1, "x": "\xff"}')
    with pytest.raises(ReportError, match=r"garbled\.json: not a JSON report \("):
        open_report(garbled)
    path = written(tmp_path)
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 100)
    with pytest.raises(ReportError, match=r"eval_report\.json: larger than "):
        open_report(path)
