"""``load_report``: a run's eval_report.json read back as the typed report, for notebooks and
scripts, with one clear error for a file that is not a whole report."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest import Report, ReportError, load_report
from tests.helpers import case

CONFIG = "metrics:\n  retrieval_recall: null\n"

CASES = [
    case("found", "What is the refund policy?", expected_contexts=["policy.md"], tags=["billing"]),
    case("missed", "Do you deliver abroad?", expected_contexts=["nowhere.md"], critical=True),
]


@pytest.fixture
def run_report(pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str) -> Path:
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == 2  # the critical case misses its expected document
    return pytester.path / "results"


def test_a_runs_report_reads_back_typed_from_its_folder_or_its_file(run_report: Path) -> None:
    report = load_report(run_report)
    assert isinstance(report, Report)
    assert report == load_report(run_report / "eval_report.json")
    assert report == load_report(str(run_report))
    assert report.run.exit_code == 2
    by_key = {c.key: c for c in report.cases}
    assert by_key["found"].metrics["retrieval_recall"].score == 1.0
    assert by_key["found"].tags == ["billing"]
    missed = by_key["missed"]
    assert missed.critical
    assert missed.metrics["retrieval_recall"].score == 0.0
    assert missed.status == "failed"
    assert report.summary.critical.failed == ["missed"]
    assert report.summary.metrics["retrieval_recall"].mean == 0.5


def test_a_file_that_is_not_a_whole_report_is_one_error_naming_it(
    run_report: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere" / "eval_report.json"
    with pytest.raises(ReportError, match=r"nowhere/eval_report.json: file not found"):
        load_report(missing)
    with pytest.raises(ReportError, match=r"eval_report.json: file not found"):
        load_report(tmp_path)  # a folder without a report

    garbled = tmp_path / "garbled.json"
    garbled.write_text("{not json", encoding="utf-8")
    with pytest.raises(ReportError, match=r"garbled.json: not a JSON report"):
        load_report(garbled)

    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema_version": 99}), encoding="utf-8")
    with pytest.raises(ReportError, match=r"other.json: not an eval_report.json of schema v"):
        load_report(other)

    doc = json.loads((run_report / "eval_report.json").read_text(encoding="utf-8"))
    del doc["cases"][1]["metrics"]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ReportError, match=r"cut.json: not a complete eval_report.json: it has no "
                       r"'cases\[1\].metrics'"):  # fmt: skip
        load_report(cut)


def test_a_report_with_a_value_no_run_writes_is_one_error_naming_it(
    run_report: Path, tmp_path: Path
) -> None:
    written = (run_report / "eval_report.json").read_text(encoding="utf-8")
    edits: list[tuple[Callable[[dict[str, Any]], None], str]] = [
        (
            lambda d: d["summary"]["composite"].update(score=5),
            r"'summary.composite.score': Input should be less than or equal to 1 \(got 5\)",
        ),
        (
            lambda d: d["summary"]["composite"].update(score="NaN"),
            r"'summary.composite.score': Input should be a valid number \(got 'NaN'\)",
        ),
        (
            lambda d: d["summary"]["metrics"]["retrieval_recall"].update(mean=float("nan")),
            r"'summary.metrics.retrieval_recall.mean': Input should be a finite number",
        ),
        (
            lambda d: d["cases"][0]["metrics"]["retrieval_recall"].update(score=True),
            r"'cases\[0\].metrics.retrieval_recall.score': Input should be a valid number",
        ),
        (
            lambda d: d["run"].update(exit_code=True),
            r"'run.exit_code': Input should be a valid integer \(got True\)",
        ),
        (
            lambda d: d["summary"]["counts"].update(failed=-1),
            r"'summary.counts.failed': Input should be greater than or equal to 0",
        ),
        (
            lambda d: d["summary"]["usage"].update(judge_calls=1.5),
            r"'summary.usage.judge_calls': Input should be a valid integer",
        ),
    ]
    for edit, problem in edits:
        doc = json.loads(written)
        edit(doc)
        path = tmp_path / "edited.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        with pytest.raises(ReportError, match=rf"edited.json: not a valid eval_report.json: "
                           rf"{problem}"):  # fmt: skip
            load_report(path)


def test_load_report_works_in_a_script_that_imports_nothing_else(
    run_report: Path, pytester: pytest.Pytester
) -> None:
    script = pytester.makepyfile(
        post="""
        import sys
        from rag_eval_pytest import load_report

        report = load_report(sys.argv[1])
        for c in report.cases:
            print(c.key, c.metrics["retrieval_recall"].score)
        """
    )
    done = pytester.run(sys.executable, str(script), str(run_report))
    assert done.ret == 0, done.stderr.str()
    assert done.outlines == ["found 1.0", "missed 0.0"]
