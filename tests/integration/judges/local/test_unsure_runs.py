"""The local judge's three-way verdicts through real pytest runs: a claim whose support score
falls in the calibrated unsure band is neither supported nor not; a verdict that depends on it
is not judged, says which claim, and the run says how many cases need an LLM judge and is
not green; ``judge.local.unsure`` passes or fails such verdicts instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

CONTEXT = (
    "Employees get 20 days of paid time off per year. Unused days can be carried over to the "
    "next year, up to five days. Requests go through the HR portal."
)
# The second claim is fair but not stated as such: its support score is in the unsure band.
UNSURE_CASE = case(
    "leave",
    "How do employees request time off?",
    answer="Employees get 20 days of paid time off per year. "
    "The HR portal handles requests for leave.",
    contexts=[CONTEXT],
)
SURE_CASE = case(
    "days",
    "How much time off do employees get?",
    answer="Employees get 20 days of paid time off per year.",
    contexts=[CONTEXT],
)
TESTS = """
from rag_eval_pytest import assert_faithful

def test_grounded(rag_case):
    assert_faithful(rag_case, 0.9)
    assert rag_case.answer  # the test goes on after an unsure verdict
"""
NEEDS = "1 case needs an LLM judge to decide: faithfulness (1)"


@pytest.fixture
def project(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset([SURE_CASE, UNSURE_CASE])
    pytester.makepyfile(test_rag=TESTS)
    return pytester


def run(pytester: pytest.Pytester, *args: str, config: str = "") -> pytest.RunResult:
    if config:
        pytester.makefile(".yaml", **{"eval-config": config})
    return pytester.runpytest("--rag-dataset=dataset.json", "-p", "no:randomly", *args)


def test_a_verdict_that_depends_on_an_unsure_claim_is_not_judged_and_the_run_not_green(
    project: pytest.Pytester,
) -> None:
    result = run(project, "--rag-judge=local")
    result.assert_outcomes(passed=2)
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"not checked: {NEEDS}*", f"rag-eval: exit 1: {NEEDS}*"])
    cases = {c["id"]: c for c in read_report(project)["cases"]}
    faithfulness = cases["leave"]["metrics"]["faithfulness"]
    assert (faithfulness["status"], faithfulness["cause"]) == ("not_judged", "unsure")
    assert faithfulness["unsure"] == 1
    assert faithfulness["bounds"] == [0.5, 1.0]
    assert faithfulness["details"]["decided_score"] == 1.0
    assert '1 claim unsure: "The HR portal handles requests for leave."' in faithfulness["reason"]
    verdicts = [e["verdict"] for e in faithfulness["evidence"]]
    assert verdicts == ["supported", "unsure"]
    assert cases["days"]["metrics"]["faithfulness"]["status"] == "passed"
    summary = (project.path / "results" / "eval_summary.md").read_text()
    assert f"**Not checked:** {NEEDS}" in summary


def test_auto_that_fell_back_to_the_local_judge_is_fatal_on_an_unsure_verdict(
    project: pytest.Pytester,
) -> None:
    result = run(project)
    assert result.ret == 3
    result.stdout.fnmatch_lines([f"rag-eval: exit 3: fatal: {NEEDS}*"])


@pytest.mark.parametrize(
    ("policy", "outcome", "code"), [("pass", "passed", 0), ("fail", "failed", 1)]
)
def test_the_unsure_policy_counts_the_unsure_claims_as_yes_or_no(
    project: pytest.Pytester, policy: str, outcome: str, code: int
) -> None:
    result = run(project, "--rag-judge=local", config=f"judge:\n  local:\n    unsure: {policy}\n")
    assert result.ret == code, result.stdout.str()
    cases = {c["id"]: c for c in read_report(project)["cases"]}
    faithfulness = cases["leave"]["metrics"]["faithfulness"]
    assert faithfulness["status"] == outcome
    assert faithfulness["score"] == (1.0 if policy == "pass" else 0.5)
    counted = "yes" if policy == "pass" else "no"
    assert faithfulness["reason"].startswith(f"1 unsure counted as {counted}")
