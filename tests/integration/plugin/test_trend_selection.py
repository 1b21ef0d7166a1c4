"""The trend compares a run only with earlier runs of the same selection, and says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest import load_report
from rag_eval_pytest.reporting.history import history_entry, selection
from rag_eval_pytest.reporting.models import HistoryLine, Selection
from rag_eval_pytest.reporting.trend import build_trend
from tests.helpers import GROUNDED_CASES, case, read_report
from tests.integration.metrics.test_judged_runs import JUDGE_CONFTEST

CONFIG = "metrics:\n  retrieval_recall: null\n"
TESTS = """
from rag_eval_pytest import evaluate
def test_recall(rag_case):
    evaluate(rag_case, "retrieval_recall")
"""
# A RAG system that finds nothing: a real regression.
BROKEN = """
import pytest
@pytest.fixture(scope="session")
def rag_adapter():
    return lambda question: ("I don't know.", [])
"""


@pytest.fixture
def project(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> pytest.Pytester:
    # The app finds the refund policy and misses the shipping question: recall 0.50 in all,
    # 1.00 for the billing tag, 0.00 for the api tag.
    write_dataset(
        [
            case("refund", "refund policy?", expected_contexts=["policy.md"], tags=["billing"]),
            case("abroad", "deliver abroad?", expected_contexts=["shipping.md"], tags=["api"]),
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.makepyfile(test_rag=TESTS)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", "app:answer", "-p", "no:randomly", *args
    )
    return read_report(pytester)


def markdown(pytester: pytest.Pytester) -> str:
    return (pytester.path / "results" / "eval_report.md").read_text()


def history(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    lines = (pytester.path / "results" / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_subset_runs_are_not_compared_with_full_runs(project: pytest.Pytester) -> None:
    full = run(project)
    selected = full["run"]["selection"]
    assert selected["cases"] == ["refund", "abroad"]
    assert selected["metrics"] == ["retrieval_recall"] and selected["total_cases"] == 2
    assert len(selected["datasets_sha256"]) == 64
    line = history(project)[-1]["selection"]
    assert line["case_count"] == 2 and len(line["cases_sha256"]) == 64 and "cases" not in line
    assert line["fingerprint"] == selected["fingerprint"]

    for args in (("--rag-tags", "api"), ("-k", "abroad"), ("--rag-shard", "2/2")):
        subset = run(project, *args)
        assert subset["run"]["selection"]["cases"] == ["abroad"], args
        assert subset["summary"]["metrics"]["retrieval_recall"]["mean"] == 0.0
        assert subset["trend"]["regressions"] == [], args
        text = markdown(project)
        assert "Regression" not in text, args
        assert "(other selection)" in text

    # The full run again: compared with the first full run, not with the subsets.
    again = run(project)
    assert again["trend"]["compared_with"]["run_id"] == full["run"]["id"]
    assert again["trend"]["regressions"] == []
    assert f"Compared with run {full['run']['id']}, the last complete run of the same" in (
        markdown(project)
    )

    project.makeconftest(BROKEN)
    broken = run(project)
    assert [r["name"] for r in broken["trend"]["regressions"]] == ["retrieval_recall"]
    assert (
        "> **Regression:** Retrieval Recall 0.50 → 0.00 since the last run of the same "
        f"selection ({again['run']['id']})." in markdown(project)
    )


def test_a_subset_is_compared_with_the_last_run_of_the_same_subset(
    project: pytest.Pytester,
) -> None:
    first = run(project, "--rag-tags", "billing")
    run(project)
    project.makeconftest(BROKEN)
    subset = run(project, "--rag-tags", "billing")
    assert subset["trend"]["compared_with"]["run_id"] == first["run"]["id"]
    assert "> **Regression:** Retrieval Recall 1.00 → 0.00" in markdown(project)


def test_a_history_line_without_a_selection_is_shown_but_never_compared(
    project: pytest.Pytester,
) -> None:
    old = {
        "timestamp": "2026-01-01T00:00:00Z",
        "run_id": "old-run",
        "composite_score": None,
        "metrics": {"retrieval_recall": 1.0},
        "partial": False,
    }
    (project.path / "results").mkdir()
    (project.path / "results" / "results.jsonl").write_text(json.dumps(old) + "\n")
    report = run(project)
    assert report["trend"]["regressions"] == []
    assert report["trend"]["compared_with"] is None
    text = markdown(project)
    assert "| 1 (selection not recorded) |" in text
    assert (
        "Not compared: no earlier complete run of the same selection: of the earlier runs, "
        "1 recorded no selection (written by an earlier version)." in text
    )


def test_a_judge_that_votes_differently_is_another_selection_though_it_reads_alike(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(GROUNDED_CASES)
    pytester.makeconftest(JUDGE_CONFTEST)
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_faithful
def test_faithful(rag_case):
    assert_faithful(rag_case)
"""
    )
    args = ("--rag-dataset", "dataset.json", "-p", "no:randomly", "--rag-no-cache")
    pytester.runpytest(*args, "--rag-judge-passes", "1")
    once = read_report(pytester)["run"]["selection"]
    pytester.runpytest(*args, "--rag-judge-passes", "3")
    report = read_report(pytester)
    thrice = report["run"]["selection"]
    assert once["judge"] == thrice["judge"]  # the same description
    assert once["judge_identity"] != thrice["judge_identity"]
    assert once["fingerprint"] != thrice["fingerprint"]
    assert report["trend"]["compared_with"] is None
    assert [p["selection"] for p in report["trend"]["points"]] == ["other", "same"]
    pytester.runpytest(*args, "--rag-judge-passes", "3")
    assert read_report(pytester)["trend"]["compared_with"] is not None


def test_a_run_records_every_judge_its_tests_used(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two modules with judges A and B, then A and C: two selections, each with both judges
    (the report used to keep the first test's judge only, so the trend compared the runs)."""
    write_dataset(GROUNDED_CASES)
    judge = "CallableJudge(word_judge, model={!r})"
    imports = "import os, pytest\nfrom rag_eval_pytest import assert_faithful\n"
    imports += "from rag_eval_pytest.judges.callable import CallableJudge\n"
    imports += "from tests.word_judge import word_judge\n"
    pytester.makeconftest(
        imports + "@pytest.fixture(scope='session')\n"
        f"def rag_judge():\n    return {judge.format('judge-a')}\n"
    )
    test = "def test_faithful(rag_case):\n    assert_faithful(rag_case)\n"
    pytester.makepyfile(
        test_one=imports + test,
        test_two=imports
        + "@pytest.fixture(scope='module')\n"
        + "def rag_judge():\n    return CallableJudge(word_judge, model=os.environ['JUDGE2'])\n"
        + test,
    )
    args = ("--rag-dataset", "dataset.json", "-p", "no:randomly", "--rag-no-cache")
    monkeypatch.setenv("JUDGE2", "judge-b")
    assert pytester.runpytest(*args).ret == 0
    first = read_report(pytester)
    monkeypatch.setenv("JUDGE2", "judge-c")
    assert pytester.runpytest(*args).ret == 0
    second = read_report(pytester)
    for report, other in ((first, "judge-b"), (second, "judge-c")):
        assert report["run"]["judge"] == f"custom (judge-a); custom ({other})"
        assert len(report["run"]["selection"]["judge_identities"]) == 2
    assert first["run"]["selection"]["fingerprint"] != second["run"]["selection"]["fingerprint"]
    assert second["trend"]["compared_with"] is None


def test_a_history_line_stays_small_and_compares_with_lines_that_list_every_case(
    project: pytest.Pytester,
) -> None:
    """A history line keeps a hash and a count of the case keys, not the keys (half a
    megabyte a line at 50,000 cases); the fingerprint is the same, so a line written by an
    earlier version, which lists them, is compared with."""
    full = run(project)
    old = {**history(project)[-1], "run_id": "listed", "selection": full["run"]["selection"]}
    (project.path / "results" / "results.jsonl").write_text(json.dumps(old) + "\n")
    assert run(project)["trend"]["compared_with"]["run_id"] == "listed"

    report = load_report(project.path / "results")
    measured = report.run.selection
    assert measured is not None

    def listing(keys: list[str]) -> tuple[Selection, HistoryLine]:
        """A selection of ``keys``, and its history line as an earlier version wrote it."""
        chosen = selection(
            cases=keys,
            metrics=measured.metrics,
            judge=measured.judge,
            datasets_sha256=measured.datasets_sha256,
            total_cases=len(keys),
            judge_identities=measured.judge_identities,
        )
        return chosen, HistoryLine.from_json({**old, "selection": chosen.model_dump(mode="json")})

    keys = [f"customer-question-{i:05d}" for i in range(5000)]
    big, earlier = listing(keys)
    entry = history_entry(
        report.model_copy(update={"run": report.run.model_copy(update={"selection": big})})
    )
    assert len(json.dumps(entry.to_json())) < 2048  # the keys alone are 120 KB
    assert entry.selection is not None and entry.selection.case_count == 5000
    assert build_trend([earlier], entry).compared_with is not None
    assert build_trend([listing(keys[1:])[1]], entry).compared_with is None


def test_the_trend_chart_draws_each_judges_runs_as_their_own_line(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs of judges A and B in turn: two lines, each joining one judge's runs (one line
    through all four drew a judge's scores against the other's)."""
    write_dataset(GROUNDED_CASES)
    pytester.makeconftest(
        "import os, pytest\n"
        "from rag_eval_pytest.judges.callable import CallableJudge\n"
        "from tests.word_judge import word_judge\n"
        "@pytest.fixture(scope='session')\n"
        "def rag_judge():\n    return CallableJudge(word_judge, model=os.environ['JUDGE'])\n"
    )
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_faithful
def test_faithful(rag_case):
    assert_faithful(rag_case)
"""
    )
    for judge in ("judge-a", "judge-b", "judge-a", "judge-b"):
        monkeypatch.setenv("JUDGE", judge)
        pytester.runpytest("--rag-dataset", "dataset.json", "-p", "no:randomly")
    points = read_report(pytester)["trend"]["points"]
    assert [p["judge"] for p in points] == ["custom (judge-a)", "custom (judge-b)"] * 2
    assert len({p["judge_identity"] for p in points}) == 2
    charts = markdown(pytester).split("```mermaid\n")[1:]
    assert len(charts) == 2
    for chart, judge, runs in zip(
        charts, ("judge-a", "judge-b"), ('"1", "3"', '"2", "4"'), strict=True
    ):
        assert f'title "Composite score by run, judge custom ({judge}) (oldest first)"' in chart
        assert f"x-axis [{runs}]" in chart and "line [1.000, 1.000]" in chart
