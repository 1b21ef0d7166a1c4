"""The history line, typed: a run's ``results.jsonl`` line is a ``HistoryLine`` written with
its every key and read back the same; a line an earlier version wrote (without the newer
keys) or one edited by hand still reads, its run kept in the trend; a line that is not a JSON
object is skipped with a warning; and the published schema is the one the model generates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_eval_pytest.errors import RagEvalWarning
from rag_eval_pytest.judges.base import Usage
from rag_eval_pytest.reporting.files import HISTORY_FILE
from rag_eval_pytest.reporting.history import (
    append_line,
    history_entry,
    read_lines,
    selection,
)
from rag_eval_pytest.reporting.models import (
    CompositeSummary,
    Counts,
    CriticalSummary,
    DatasetInfo,
    HistoryLine,
    HistorySelection,
    LatencySummary,
    MetricSummary,
    Report,
    RunSection,
    Summary,
    Tool,
)
from rag_eval_pytest.reporting.schema import schema_text
from rag_eval_pytest.reporting.trend import build_trend
from tests.json_schema import validate

PUBLISHED = Path(__file__).resolve().parents[3] / "docs" / "history_line.schema.json"

SELECTED = selection(
    cases=["refund", "abroad"],
    metrics=["faithfulness"],
    judge="custom (judge)",
    datasets_sha256="d" * 64,
    total_cases=3,
    judge_identities=["judge-1"],
)


def report(*, run_id: str = "run-2", faithfulness: float | None = 0.75) -> Report:
    metric = MetricSummary(
        mean=faithfulness,
        threshold=None,
        status=None,
        judged=2,
        not_judged=0,
        passed=1,
        failed=1,
        weight=1.0,
    )
    return Report(
        schema_version=1,
        tool=Tool(name="rag-eval-pytest", version="1.0"),
        run=RunSection(
            id=run_id,
            started_at="2026-01-02T10:00:00Z",
            finished_at="2026-01-02T10:01:00Z",
            duration_s=60.0,
            partial=False,
            datasets=[
                DatasetInfo(path="cases.json", name=None, version=None, created=None, cases=3)
            ],
            selected_cases=2,
            tags_filter=[],
            selection=SELECTED,
            adapter="callable",
            judge="custom (judge)",
            git_commit="abc123",
            pytest_exit=1,
            exit_code=1,
            exit_reason="1 test failed",
        ),
        summary=Summary(
            composite=CompositeSummary(score=faithfulness, threshold=None, status=None),
            metrics={"faithfulness": metric},
            counts=Counts(cases=2, passed=1, failed=1, errors=0, skipped=0),
            latency=LatencySummary(
                count=2, avg_s=0.1, p50_s=0.1, p95_s=0.1, slow=0, slow_threshold_s=5.0
            ),
            critical=CriticalSummary(total=1, passed=0, failed=["refund"]),
            tags=[],
            usage=Usage(judge_calls=4, cost_usd=0.25),
        ),
        cases=[],
        warnings=[],
    )


def test_a_line_is_written_with_every_key_and_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    line = history_entry(report())
    append_line(path, line)

    written = json.loads(path.read_text(encoding="utf-8"))
    assert written == {
        "timestamp": "2026-01-02T10:01:00Z",
        "run_id": "run-2",
        "composite_score": 0.75,
        "metrics": {"faithfulness": 0.75},
        "test_count": 2,
        "passed": 1,
        "failures": 1,
        "errors": 0,
        "skipped": 0,
        "critical_failures": 1,
        "exit_code": 1,
        "partial": False,
        "adapter": "callable",
        "judge": "custom (judge)",
        "judge_calls": 4,
        "cost_usd": 0.25,
        "git_commit": "abc123",
        "datasets": ["cases.json"],
        "selection": {
            "cases_sha256": written["selection"]["cases_sha256"],
            "case_count": 2,
            "metrics": ["faithfulness"],
            "judge": "custom (judge)",
            "datasets_sha256": "d" * 64,
            "total_cases": 3,
            "fingerprint": SELECTED.fingerprint,
            "judge_identity": "judge-1",
            "judge_identities": ["judge-1"],
        },
        "schema_version": 1,
    }
    assert len(written["selection"]["cases_sha256"]) == 64
    assert read_lines(path) == [line]
    assert validate(written, json.loads(PUBLISHED.read_text(encoding="utf-8"))) == []


def test_the_published_schema_is_the_one_generated_from_the_model() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == schema_text("history"), (
        "docs/history_line.schema.json is out of date: regenerate it with "
        "python -m rag_eval_pytest.reporting.schema history > docs/history_line.schema.json"
    )


def test_a_line_of_an_earlier_version_reads_and_stays_in_the_trend(tmp_path: Path) -> None:
    """Before selections were recorded a line had no selection, usage or datasets; such a
    run is shown in the trend and never compared."""
    path = tmp_path / HISTORY_FILE
    old = {
        "timestamp": "2026-01-01T00:00:00Z",
        "run_id": "old-run",
        "composite_score": 0.9,
        "metrics": {"faithfulness": 0.9},
        "partial": False,
    }
    path.write_text(json.dumps(old) + "\n", encoding="utf-8")

    [line] = read_lines(path)
    assert line.run_id == "old-run" and line.metrics == {"faithfulness": 0.9}
    assert line.selection is None and line.judge_calls is None and line.datasets == []

    trend = build_trend([line], history_entry(report()))
    assert [p.selection for p in trend.points] == ["unknown", "same"]
    assert trend.compared_with is None
    assert trend.not_compared is not None and "1 recorded no selection" in trend.not_compared


def test_a_line_that_lists_every_case_key_compares_by_its_fingerprint() -> None:
    """An earlier version kept the selection whole, the case keys included."""
    old = {
        **history_entry(report(run_id="run-1", faithfulness=0.9)).to_json(),
        "selection": SELECTED.model_dump(mode="json"),
    }
    line = HistoryLine.from_json(old)
    assert line.selection is not None and line.selection.fingerprint == SELECTED.fingerprint

    trend = build_trend([line], history_entry(report()))
    assert trend.compared_with is not None and trend.compared_with.run_id == "run-1"
    assert [r.name for r in trend.regressions] == ["composite", "faithfulness"]


def test_values_no_run_writes_read_as_their_default_and_keep_the_run() -> None:
    line = HistoryLine.from_json(
        {
            "run_id": "odd",
            "composite_score": 5,
            "metrics": {"faithfulness": True, "answer_relevance": 0.5},
            "test_count": -1,
            "partial": "maybe",
            "datasets": "cases.json",
            "selection": {"fingerprint": 7, "judge_identity": "judge-1"},
            "a_later_key": {"anything": 1},
        }
    )
    assert line.run_id == "odd"
    assert line.composite_score is None
    assert line.metrics == {"faithfulness": None, "answer_relevance": 0.5}
    assert line.test_count is None and line.partial is False and line.datasets == []
    assert line.selection == HistorySelection(judge_identity="judge-1")
    assert "a_later_key" not in line.to_json()


def test_a_line_that_is_not_a_json_object_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    path.write_text(
        '["a", "list"]\n{"run_id": "cut", "compos\n{"run_id": "ok", "composite_score": 0.5}\n',
        encoding="utf-8",
    )
    with pytest.warns(RagEvalWarning, match=r"skipped 2 unreadable line\(s\) \(line 1, 2\)"):
        lines = read_lines(path)
    assert [line.run_id for line in lines] == ["ok"]
    assert lines[0].composite_score == 0.5
