"""``assert_criteria``: a criterion in plain words checked by an LLM judge, through real pytest
runs: the word-overlap stand-in judge, the real Anthropic SDK against the fake Messages API on
127.0.0.1, and the local judge, which cannot read a criterion and says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge  # noqa: F401  (imported before any inner run, so inner runs share it)
from tests.helpers import GROUNDED_CASES, case, read_report
from tests.integration.metrics.test_judged_runs import JUDGE_CONFTEST
from tests.servers.fake_llm import FakeLLMServer, anthropic_tool

CASES = [case("refund", "What is the refund policy?", "Refunds within 30 days.")]

CRITERIA_TESTS = """
from rag_eval_pytest import assert_criteria

def test_mentions_refunds(rag_case):
    result = assert_criteria(rag_case, "The answer must mention 'refunds' by name.")
    assert result.score == 1.0

def test_mentions_warranty(rag_case):
    assert_criteria(rag_case, "The answer must mention the 'warranty'.", name="warranty")
"""


@pytest.fixture
def judged(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(CASES)
    pytester.makeconftest(JUDGE_CONFTEST)
    pytester.makepyfile(test_rag=CRITERIA_TESTS)
    return pytester


def test_a_criterion_passes_or_fails_with_the_judges_reason_and_the_quoted_violation(
    judged: pytest.Pytester,
) -> None:
    result = judged.runpytest("--rag-dataset", "dataset.json", "--rag-judge-passes", "1")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*refund criteria: warranty 0.00 < 0.75",
            "*meets the criterion not at all: the answer never says 'warranty'",
            "*evidence:",
            "*[[]violates[]] Refunds are available within 30 days of purchase.*",
        ]
    )
    assert result.ret == 1
    metrics = read_report(judged)["cases"][0]["metrics"]
    # Each criterion is its own result, side by side, named or shortened.
    mentions = metrics["criteria: The answer must mention 'refunds' by name."]
    assert (mentions["score"], mentions["status"]) == (1.0, "passed")
    assert mentions["details"]["meets"] == "fully"
    warranty = metrics["criteria: warranty"]
    assert (warranty["score"], warranty["status"], warranty["threshold"]) == (0.0, "failed", 0.75)
    assert warranty["details"]["criterion"] == "The answer must mention the 'warranty'."
    markdown = (judged.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert "Criteria: warranty" in markdown
    # The terminal cuts a long check name at 40 characters; the reports keep it whole.
    result.stdout.fnmatch_lines(["Criteria: The answer must mention 'refu…  1.00 *"])


def test_a_criterion_without_words_is_a_clear_error_in_the_test(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(CASES)
    pytester.makeconftest(JUDGE_CONFTEST)
    pytester.makepyfile(
        """
        from rag_eval_pytest import assert_criteria

        def test_blank(rag_case):
            assert_criteria(rag_case, "  ")
        """
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ValueError: the criteria metric needs the criterion*"])


# A ported DeepEval test: a criterion, then faithfulness. The answer has a planted claim that
# the context contradicts ("within 14 days" where it says 7), which the local judge decides.
PORTED = """
from rag_eval_pytest import assert_criteria, assert_faithful, make_case

def test_polite_and_grounded():
    case = make_case(
        question="What is the refund policy?",
        answer="Refunds are available within 30 days of purchase. "
        "Store credit is issued within 14 days.",
        contexts=[
            "Refunds are available within 30 days of purchase. "
            "Store credit is issued within 7 days."
        ],
    )
    assert_criteria(case, "The answer must be polite.")
    assert_faithful(case, 0.9)
"""
CRITERION_ONLY = """
from rag_eval_pytest import assert_criteria

def test_polite(rag_case):
    assert_criteria(rag_case, "The answer must be polite.")
"""
NOT_CHECKED = (
    "1 check could not run on local (*): criteria: The answer must be polite. (1); "
    "use an LLM judge (--rag-judge anthropic or openai) to run them"
)


def test_a_criterion_the_local_judge_cannot_check_does_not_end_the_test(
    pytester: pytest.Pytester,
) -> None:
    """The check is recorded as not judged and the assertions after it run: the planted
    contradicted claim fails the test (a skip used to end it there, and the run was green)."""
    pytester.makepyfile(PORTED)
    result = pytester.runpytest("--rag-judge", "local", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*faithfulness 0.50 < 0.90*", f"not checked: {NOT_CHECKED}"])
    assert result.ret == 1
    metrics = read_report(pytester)["cases"][0]["metrics"]
    criterion = metrics["criteria: The answer must be polite."]
    assert (criterion["status"], criterion["cause"]) == ("not_judged", "unsupported")


@pytest.mark.parametrize(
    ("args", "config", "code", "reason"),
    [
        # auto fell back to the local judge (no key: a fork's pull request): not judged is
        # no outage, the run fails as when the local judge was chosen.
        ((), "", 1, NOT_CHECKED),
        (("--rag-judge", "local"), "", 1, NOT_CHECKED),
        (
            ("--rag-judge", "local"),
            "judge:\n  unsupported: report\n",
            0,
            f"all tests passed and run-level thresholds met; {NOT_CHECKED}",
        ),
    ],
    ids=["auto-fell-back", "local-chosen", "report"],
)
def test_a_run_whose_checks_could_not_run_on_its_judge_is_not_silently_green(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    args: tuple[str, ...],
    config: str,
    code: int,
    reason: str,
) -> None:
    write_dataset(GROUNDED_CASES)
    pytester.makepyfile(CRITERION_ONLY)
    if config:
        pytester.makefile(".yaml", **{"eval-config": config})
    result = pytester.runpytest("--rag-dataset", "dataset.json", *args)
    result.assert_outcomes(skipped=1)  # its only outcome was "not judged": never passed
    assert result.ret == code, result.stdout.str()
    result.stdout.fnmatch_lines([f"rag-eval: exit {code}: {reason}"])
    summary = (pytester.path / "results" / "eval_summary.md").read_text()
    assert "**Not checked:** 1 check could not run on local" in summary


def test_the_anthropic_judge_gets_the_criterion_as_a_trusted_parameter_beside_the_data(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    fake_llm: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_dataset(CASES)
    pytester.makepyfile(
        """
        from rag_eval_pytest import assert_criteria

        def test_no_long_refunds(rag_case):
            assert_criteria(rag_case, "Never promise refunds beyond 30 days.", threshold=0.5)
        """
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-criteria-0123456789abcdef")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    verdict = {"meets": "mostly", "violations": [], "reason": "no promise beyond 30 days"}
    fake_llm.push(anthropic_tool(verdict))
    args = ("--rag-dataset", "dataset.json", "--rag-target", rag_app, "--rag-judge-passes", "1")
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1)
    assert fake_llm.count("/v1/messages") == 1
    prompt = fake_llm.requests[0].body["messages"][0]["content"]
    text = prompt if isinstance(prompt, str) else "".join(p.get("text", "") for p in prompt)
    task, data = text.split("# Data", 1)
    assert '- criterion: "Never promise refunds beyond 30 days."' in task
    assert "Full refund within 30 days of purchase." in data  # the context, as data
    metrics = read_report(pytester)["cases"][0]["metrics"]
    result_of = metrics["criteria: Never promise refunds beyond 30 days."]
    assert (result_of["score"], result_of["reason"]) == (
        0.75,
        "meets the criterion mostly: no promise beyond 30 days",
    )
