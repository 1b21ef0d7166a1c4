"""The local judge's three-way verdicts through real pytest runs: a claim whose support score
falls in the calibrated unsure band is neither supported nor not; a verdict that depends on it
is not judged, says which claim, its test is skipped with the reason (never passed), and the
run says how many cases need an LLM judge and is not green (exit 1, whichever judge was
chosen: an unsure verdict is no outage, and never hides a critical failure behind exit 3);
``judge.local.unsure`` passes or fails such verdicts instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_junit, read_report

ROOT = Path(__file__).resolve().parents[4]

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
    result = run(project, "--rag-judge=local", "-rs", "--junitxml=junit.xml")
    # The unsure test ran to its end (its other assertion passed) and is skipped, not passed.
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            f"not checked: {NEEDS}*",
            f"rag-eval: exit 1: {NEEDS}*",
            "SKIPPED [[]1[]] test_rag.py:*: not judged: leave faithfulness: the verdict depends"
            " on 1 item the judge was unsure of*",
        ]
    )
    skipped = read_junit(project.path / "junit.xml")["test_grounded[leave]"].find("skipped")
    assert skipped is not None
    assert skipped.get("message", "").startswith("not judged: leave faithfulness: the verdict")
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


CRITICAL_MISS = case(
    "express_price",
    "How much is express shipping?",
    answer="Express shipping costs 15 euros.",
    contexts=[{"text": "Standard shipping is free.", "source": "shipping.md"}],
    expected_contexts=["prices.md"],
    critical=True,
)
RETRIEVAL_TESTS = """
from rag_eval_pytest import assert_retrieval

def test_retrieved(rag_case):
    assert_retrieval(rag_case, recall=1.0)
"""


def test_a_key_less_run_with_an_unsure_verdict_still_exits_2_on_a_critical_failure(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """The default judge (auto) without a key falls back to the local judge; its unsure
    verdict is no outage: a critical case that plainly failed (retrieval recall 0) exits 2,
    as CI pages on, and the exit line and the step summary name it and what was unsure."""
    write_dataset([SURE_CASE, UNSURE_CASE, CRITICAL_MISS])
    pytester.makepyfile(test_rag=TESTS, test_retrieval=RETRIEVAL_TESTS)
    summary = pytester.path / "step_summary.md"
    pytester._monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run(pytester)
    assert result.ret == 2, result.stdout.str()
    # The express price no context states is unsure too: a score below the band decides
    # nothing alone.
    needs = "2 cases need an LLM judge to decide: faithfulness (2)"
    result.stdout.fnmatch_lines([f"rag-eval: exit 2: critical case express_price failed; {needs}*"])
    assert summary.read_text().startswith(
        f"## RAG evaluation FAILED: exit 2, critical case express_price failed; {needs}"
    )


def test_a_key_less_run_with_an_unsure_verdict_exits_1_not_3(project: pytest.Pytester) -> None:
    result = run(project)
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"rag-eval: exit 1: {NEEDS}*"])


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


def ci_fork_config() -> str:
    """The eval-config.yaml of docs/ci.md's recipe for pull requests from forks, as written."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text.split("## Pull requests from forks", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert block.startswith("# eval-config.yaml"), block
    return block


@pytest.mark.parametrize(
    ("variable", "code", "line"),
    [
        ("report", 0, f"rag-eval: exit 0: all tests passed and run-level thresholds met; {NEEDS}*"),
        ("fail", 1, f"rag-eval: exit 1: {NEEDS}*"),
        (None, 1, f"rag-eval: exit 1: {NEEDS}*"),
    ],
)
def test_the_ci_recipe_for_forks_reports_what_was_not_judged_and_the_main_branch_gates(
    project: pytest.Pytester, variable: str | None, code: int, line: str
) -> None:
    """A fork's run (no key, the variable set to report) passes and says what it could not
    judge; the main branch's run (fail, or the variable unset) does not pass it."""
    if variable is not None:
        project._monkeypatch.setenv("RAG_EVAL_UNSUPPORTED", variable)
    result = run(project, config=ci_fork_config())
    assert result.ret == code, result.stdout.str()
    result.stdout.fnmatch_lines([line])
    result.assert_outcomes(passed=1, skipped=1)
