"""The gate that knows the judge's noise, through real pytest runs: each metric's mean with
its 95 % interval in every report; a regression only when a drop is both larger than the
noise (a paired test over the cases both runs scored) and at least regression.min_drop;
--rag-fail-on-regression; a baseline given as history or as a report's path; a subset
compared only on its own cases; judge-flaky cases listed, and quarantined on request."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import case, read_report

CASES = 40
# The RAG system finds the policy for every case but the first MISSES ones.
APP = """
import os
def answer(question):
    number = int(question.split()[-1].rstrip("?"))
    if number < int(os.environ.get("MISSES", "0")):
        return "I don't know.", []
    return "Full refund within 30 days.", [{"text": "Full refund.", "source": "policy.md"}]
"""
TESTS = """
from rag_eval_pytest import evaluate

def test_recall(rag_case):
    evaluate(rag_case, "retrieval_recall")  # recorded, fails no test
"""


@pytest.fixture
def project(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(
        [
            case(f"c{i:02d}", f"refund policy {i}?", expected_contexts=["policy.md"])
            for i in range(CASES)
        ]
    )
    pytester.makepyfile(app=APP, test_rag=TESTS)
    pytester.syspathinsert()
    return pytester


def run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, misses: int, *args: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    monkeypatch.setenv("MISSES", str(misses))
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-target=app:answer", "-p", "no:randomly", *args
    )
    return result, read_report(pytester)


def test_a_drop_is_a_regression_only_when_it_is_real_and_large_enough(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, first = run(project, monkeypatch, 0, "--rag-fail-on-regression")
    assert result.ret == 0
    assert first["comparison"]["not_compared"].startswith("no earlier complete run")
    # One case of 40 lost: a drop of 0.025, below the least drop that counts.
    result, small = run(project, monkeypatch, 1, "--rag-fail-on-regression")
    assert result.ret == 0, result.stdout.str()
    (change,) = small["comparison"]["changes"]
    assert (change["metric"], change["cases"], change["regression"]) == (
        "retrieval_recall", 40, False
    )
    assert change["change"] == -0.025
    # Ten of 40 lost: a real drop of 0.225 since the last run of the same selection.
    result, dropped = run(project, monkeypatch, 10, "--rag-fail-on-regression")
    assert result.ret == 1
    (change,) = dropped["comparison"]["changes"]
    assert change["regression"] and change["p_value"] < 0.05
    assert dropped["comparison"]["baseline"] == f"history: run {small['run']['id']}"
    result.stdout.fnmatch_lines(
        [
            "rag-eval: exit 1: regressed since the baseline: retrieval_recall 0.97 -> 0.75 "
            "(-0.23, 95 % * to *, p=*, 40 cases)"
        ]
    )
    markdown = (project.path / "results" / "eval_report.md").read_text()
    assert "| Retrieval Recall | 40 | 0.97 | 0.75 | -0.23 (" in markdown
    assert "| **REGRESSION** |" in markdown
    assert "> **Regression:** Retrieval Recall 0.97 → 0.75" in markdown  # the trend's mark
    # Without --rag-fail-on-regression a regression is reported, not failed.
    result, _ = run(project, monkeypatch, 20)
    assert result.ret == 0


def test_the_interval_is_in_the_json_the_markdown_and_the_step_summary(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, report = run(project, monkeypatch, 10)
    low, high = report["summary"]["metrics"]["retrieval_recall"]["interval"]
    assert low < 0.75 < high
    row = f"| Retrieval Recall | 0.75 ({low:.2f}-{high:.2f}) |"
    assert row in (project.path / "results" / "eval_report.md").read_text()
    assert row in (project.path / "results" / "eval_summary.md").read_text()
    _, again = run(project, monkeypatch, 10)
    assert again["summary"]["metrics"]["retrieval_recall"]["interval"] == [low, high]  # seeded


def test_a_baseline_report_given_by_path_and_a_subset_compared_on_its_own_cases(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(project, monkeypatch, 0)
    baseline = project.path / "main-branch.json"
    baseline.write_text((project.path / "results" / "eval_report.json").read_text())
    result, subset = run(
        project, monkeypatch, 10, "-k", "c0 or c1", f"--rag-baseline={baseline}",
        "--rag-fail-on-regression",
    )  # fmt: skip
    (change,) = subset["comparison"]["changes"]
    assert subset["comparison"]["baseline"] == str(baseline)
    assert change["cases"] == 20  # c00-c19: the cases both runs scored
    assert (change["before"], change["after"]) == (1.0, 0.5)
    assert result.ret == 1


FLIPPING_CONFTEST = """
import json, os, pytest
from rag_eval_pytest.judges.callable import CallableJudge

def judge(prompt):
    # The same answer and contexts every run; the verdict flips with NOISE: a noisy judge.
    verdict = "supported" if os.environ["NOISE"] == "0" else "unsupported"
    return json.dumps({"statements": [{"statement": "s", "verdict": verdict, "reason": "r"}]})

@pytest.fixture(scope="session")
def rag_judge():
    return CallableJudge(judge, model="flipping")
"""
FAITHFUL_TESTS = """
from rag_eval_pytest import assert_faithful

def test_faithful(rag_case):
    assert_faithful(rag_case, 0.5)
"""


@pytest.mark.parametrize("policy", ["report", "quarantine"])
def test_a_case_whose_outcome_flips_with_nothing_changed_is_judge_flaky(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    policy: str,
) -> None:
    write_dataset(
        [case("same", "Refund policy?", answer="Full refund within 30 days.", contexts=["ctx"])]
    )
    pytester.makeconftest(FLIPPING_CONFTEST)
    pytester.makepyfile(test_rag=FAITHFUL_TESTS)
    pytester.makefile(".yaml", **{"eval-config": f"regression:\n  flaky: {policy}\n"})
    codes = []
    for noise in ("0", "1", "0", "1"):
        monkeypatch.setenv("NOISE", noise)
        result = pytester.runpytest(
            "--rag-dataset=dataset.json", "--rag-no-cache", "-p", "no:randomly"
        )
        codes.append(result.ret)
    report = read_report(pytester)
    assert report["flaky"] == [
        {"key": "same", "outcomes": "passed, failed, passed, failed",
         "quarantined": policy == "quarantine"}
    ]  # fmt: skip
    markdown = (pytester.path / "results" / "eval_report.md").read_text()
    assert "## Judge-flaky cases: 1" in markdown
    if policy == "quarantine":
        # Flaky from the third run on; the fourth run's failure does not fail the run.
        assert codes == [0, 1, 0, 0]
        result.stdout.fnmatch_lines(["rag-eval: exit 0: *QUARANTINED as judge-flaky*same*"])
        assert "**QUARANTINED: its failure did not fail the run**" in markdown
    else:
        assert codes == [0, 1, 0, 1]
