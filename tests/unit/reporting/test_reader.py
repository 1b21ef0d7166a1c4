"""load_report: a report written as a run writes it reads back as the same typed report, from
its file or its folder; anything else is one error naming the file and what is wrong with
it (missing, too large, not JSON, nested too deeply, another schema, cut short, a value no
run writes). load_shard: a report to merge is also refused unless its cases are the ones its
run wrote (their count and digest)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.data import reading
from rag_eval_pytest.errors import ReportError
from rag_eval_pytest.reporting.files import JSON_REPORT, report_json
from rag_eval_pytest.reporting.models import cases_digest
from rag_eval_pytest.reporting.reader import load_report, load_shard
from tests.unit.reporting.test_document import document


def written(folder: Path, edit: Callable[[dict[str, Any]], object] | None = None) -> Path:
    """A run's report in ``folder``, written as the run writes it (``edit`` applied first)."""
    doc = document({"faithfulness": 0.9}).to_json()
    if edit is not None:
        edit(doc)
    path = folder / JSON_REPORT
    path.write_text(report_json(doc), encoding="utf-8")
    return path


def test_a_written_report_reads_back_the_same_from_its_file_or_its_folder(tmp_path: Path) -> None:
    path = written(tmp_path)
    report = load_report(path)
    assert report.integrity is not None  # the file's, which the report built had not yet
    assert report.integrity.cases == 2
    assert report.integrity.cases_sha256 == cases_digest(json.loads(path.read_text())["cases"])
    assert report.model_copy(update={"integrity": None}) == document({"faithfulness": 0.9})
    assert load_report(tmp_path) == report
    assert load_report(str(tmp_path)) == report
    assert [c.key for c in report.cases] == ["ok", "slow"]
    assert report.cases[0].metrics["faithfulness"].score == 0.87654


def test_a_shard_reads_back_only_with_the_cases_its_run_wrote(tmp_path: Path) -> None:
    path = written(tmp_path)
    assert load_shard(path) == load_report(path)
    regenerate = "; run its shard again to write it anew$"
    doc = json.loads(path.read_text(encoding="utf-8"))
    removed = {**doc, "cases": doc["cases"][:1]}
    path.write_text(json.dumps(removed), encoding="utf-8")
    with pytest.raises(
        ReportError,
        match=f"^{re.escape(str(path))}: holds 1 cases where its run wrote 2: cases were "
        f"removed or added after the run{regenerate}",
    ):
        load_shard(path)
    load_report(path)  # still a report, to read or render
    doc["cases"][1]["metrics"]["retrieval_recall"]["status"] = "passed"  # it scored 0
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(
        ReportError, match="its cases are not the ones its run wrote \\(their digest differs: "
    ):
        load_shard(path)
    earlier = {k: v for k, v in doc.items() if k != "integrity"}
    path.write_text(json.dumps(earlier), encoding="utf-8")
    with pytest.raises(
        ReportError,
        match="written by an earlier version, without the count and digest of its cases that "
        f"rag-eval merge checks{regenerate}",
    ):
        load_shard(path)


def test_a_missing_report_is_named_with_the_file_looked_for(tmp_path: Path) -> None:
    with pytest.raises(
        ReportError, match=f"^{re.escape(str(tmp_path / JSON_REPORT))}: file not found$"
    ):
        load_report(tmp_path)  # a folder without a report


@pytest.mark.parametrize("content", [b"{not json", b'{"schema_version": 1, "x": "\xff"}'])
def test_a_file_that_is_not_json_says_so(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "garbled.json"
    path.write_bytes(content)
    with pytest.raises(ReportError, match=f"^{re.escape(str(path))}: not a JSON report \\("):
        load_report(path)


def test_a_file_larger_than_an_input_may_be_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = written(tmp_path)
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 100)
    with pytest.raises(ReportError, match=f"^{re.escape(str(path))}: larger than "):
        load_report(path)


@pytest.mark.parametrize("doc", [{"schema_version": 99}, [1], {"cases": []}])
def test_another_schema_or_no_report_at_all_is_refused(tmp_path: Path, doc: object) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(
        ReportError, match=f"^{re.escape(str(path))}: not an eval_report.json of schema version 1"
    ):
        load_report(path)


def test_a_report_nested_too_deeply_is_one_error_naming_it(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"schema_version": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ReportError, match=r"deep.json: nested too deeply to be an eval_report"):
        load_report(deep)


def drop_metrics(doc: dict[str, Any]) -> None:
    del doc["cases"][1]["metrics"]


def summary_as_text(doc: dict[str, Any]) -> None:
    doc["summary"] = "all passed"


def score_above_one(doc: dict[str, Any]) -> None:
    doc["cases"][0]["metrics"]["faithfulness"]["score"] = 1.5


def count_as_true(doc: dict[str, Any]) -> None:
    doc["summary"]["counts"]["cases"] = True


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (drop_metrics, r"not a complete eval_report.json: it has no 'cases\[1\].metrics'"),
        (summary_as_text, "not a complete eval_report.json: 'summary' is not an object"),
        (
            score_above_one,
            r"not a valid eval_report.json: 'cases\[0\].metrics.faithfulness.score': .*\(got 1.5\)",
        ),
        (count_as_true, r"not a valid eval_report.json: 'summary.counts.cases': .*\(got True\)"),
    ],
)
def test_a_report_cut_short_or_edited_is_refused_by_the_part_that_is_wrong(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], error: str
) -> None:
    path = written(tmp_path, edit)
    with pytest.raises(ReportError, match=f"^{re.escape(str(path))}: {error}"):
        load_report(path)
