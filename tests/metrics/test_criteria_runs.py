"""``assert_criteria``: a criterion in plain words checked by an LLM judge, through real pytest
runs: the word-overlap stand-in judge, the real Anthropic SDK against the fake Messages API on
127.0.0.1, and the local judge, which cannot read a criterion and says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import word_judge  # noqa: F401  (imported before any inner run, so inner runs share it)
from tests.helpers import GROUNDED_CASES, case, read_report
from tests.metrics.test_judged_runs import JUDGE_CONFTEST
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
    result.stdout.fnmatch_lines(["Criteria: The answer must mention 'refunds' by name. * 1.00 *"])


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


def test_the_local_judge_reports_a_criterion_not_judged_with_why(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(GROUNDED_CASES)
    pytester.makepyfile(
        """
        from rag_eval_pytest import assert_criteria

        def test_polite(rag_case):
            assert_criteria(rag_case, "The answer must be polite.")
        """
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-judge", "local", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["*criteria: The answer must be polite. not judged: the judge (local*) cannot check a "
         "criterion in plain words; use an LLM judge (--rag-judge anthropic or openai)*"]
    )  # fmt: skip
    assert result.ret == 0  # the judge did not fail: it cannot do this, and said so


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
