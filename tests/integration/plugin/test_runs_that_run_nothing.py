"""A run that runs no test writes nothing, and zero-code tests are collected like any other."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case

CONFIG = "metrics:\n  retrieval_recall: null\n"

# The RAG system finds the refund policy unless RAG_BROKEN is set.
APP = """
import os
def answer(question):
    if os.environ.get("RAG_BROKEN"):
        return "I don't know.", []
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]
"""


@pytest.fixture
def project(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(
        [
            case("crit", "refund policy?", expected_contexts=["policy.md"], critical=True),
            case("other", "refund window?", expected_contexts=["policy.md"], tags=["api"]),
        ]
    )
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.makepyfile(app=APP)
    pytester.syspathinsert()
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-target", "app:answer", "-p", "no:randomly", *args
    )


def outputs(pytester: pytest.Pytester) -> dict[str, bytes]:
    """Every file under results/ (the reports, the history, the cases kept for the next run
    of the same selection)."""
    folder = pytester.path / "results"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [("--collect-only",), ("-k", "nomatch"), ("--setup-plan",), ("--fixtures",)],
    ids=["collect-only", "k-nomatch", "setup-plan", "fixtures"],
)
def test_a_run_that_runs_no_test_leaves_reports_history_and_step_summary_alone(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    assert run(project).ret == 0
    before = outputs(project)
    summary = project.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run(project, *args)
    assert result.ret in (0, pytest.ExitCode.NO_TESTS_COLLECTED), result.stdout.str()
    assert outputs(project) == before
    assert not summary.exists()
    result.stdout.fnmatch_lines(["rag-eval: no test ran: no report or history line written"])


@pytest.mark.parametrize(
    "args", [("--collect-only",), ("--setup-plan",)], ids=["collect-only", "setup-plan"]
)
def test_a_run_that_runs_no_test_decides_nothing_whatever_the_gates(
    project: pytest.Pytester, args: tuple[str, ...]
) -> None:
    project.makefile(
        ".yaml",
        **{"eval-config": CONFIG + "thresholds:\n  composite: 0.9\n  retrieval_precision: 0.9\n"},
    )
    result = run(project, *args)
    assert result.ret == 0, result.stdout.str()
    result.stdout.no_fnmatch_line("*gate*not met*")
    result.stdout.fnmatch_lines(["rag-eval: no test ran: no report or history line written"])


def test_collect_only_between_two_runs_does_not_hide_their_regression(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(project).ret == 0
    run(project, "--co")
    monkeypatch.setenv("RAG_BROKEN", "1")
    assert run(project).ret == 2
    markdown = (project.path / "results" / "eval_report.md").read_text()
    assert "> **Regression:** Retrieval Recall 1.00 → 0.00" in markdown
    history = (project.path / "results" / "results.jsonl").read_text().splitlines()
    assert len(history) == 2


def test_zero_code_tests_are_counted_and_listed_by_collect_only(project: pytest.Pytester) -> None:
    result = run(project, "--collect-only", "-q")
    result.stdout.fnmatch_lines(["dataset.json::crit", "dataset.json::other", "2 tests collected*"])
    assert "no tests collected" not in result.stdout.str()
    header = run(project, "-v")
    header.stdout.fnmatch_lines(["*collected 2 items", "dataset.json::crit PASSED*"])


def test_k_and_m_select_zero_code_tests_the_counts_say_so_and_critical_ones_come_first(
    project: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    result = run(project, "--collect-only", "-q", "-k", "other")
    result.stdout.fnmatch_lines(["dataset.json::other", "1/2 tests collected (1 deselected)*"])
    marked = run(project, "--collect-only", "-q", "-m", "rag_critical")
    marked.stdout.fnmatch_lines(["dataset.json::crit", "1/2 tests collected (1 deselected)*"])
    write_dataset([case("plain", "refund?"), case("vital", "refund?", critical=True)])
    ordered = run(project, "--collect-only", "-q")
    ordered.stdout.fnmatch_lines(["dataset.json::vital", "dataset.json::plain", "2 tests*"])
