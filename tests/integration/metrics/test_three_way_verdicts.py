"""Faithfulness with an LLM judge's three-way verdicts (supported / contradicted / not
mentioned) in real pytest runs: ragas mode counts only supported statements as faithful,
deepeval mode everything but contradictions, and the failure and the report say which
verdict each statement got. A judge that still answers yes / no is read too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

ANSWER = (
    "Refunds are available within 30 days of purchase. Refunds take 90 days to arrive. "
    "Shipping is free to Mars."
)
STATEMENTS = [s if s.endswith(".") else s + "." for s in ANSWER.split(". ")]

# A prompt -> text judge. It answers the statement question only when the prompt asks for the
# three verdicts; ``VERDICTS`` are its words, in the order of the answer's statements.
CONFTEST = """
import json
import pytest

STATEMENTS = {statements!r}
VERDICTS = {verdicts!r}

def judge(prompt):
    if "Break the ANSWER into standalone statements" not in prompt:
        return json.dumps({{"verdicts": [], "sentences": []}})
    if "'contradicted'" not in prompt or "'not mentioned'" not in prompt:
        return "I was not asked for a three-way verdict."
    return json.dumps({{"statements": [
        {{"statement": s, "verdict": v, "reason": "because " + v}}
        for s, v in zip(STATEMENTS, VERDICTS)
    ]}})

@pytest.fixture(scope="session")
def rag_judge():
    return judge
"""

TESTS = """
from rag_eval_pytest import assert_faithful

def test_ragas(rag_case):
    assert_faithful(rag_case, threshold=0.6)

def test_deepeval(rag_case):
    assert_faithful(rag_case, threshold=0.6, mode="deepeval")
"""


@pytest.fixture
def run_with(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> Callable[[list[str]], pytest.RunResult]:
    write_dataset(
        [
            case(
                "refund",
                "What is the refund policy?",
                answer=ANSWER,
                contexts=["Refunds are available within 30 days of purchase."],
            )
        ]
    )
    pytester.makepyfile(test_rag=TESTS)

    def run(verdicts: list[str]) -> pytest.RunResult:
        pytester.makeconftest(CONFTEST.format(statements=STATEMENTS, verdicts=verdicts))
        return pytester.runpytest(
            "--rag-dataset",
            "dataset.json",
            "--rag-judge-passes",
            "1",
            "--rag-no-cache",
            "-p",
            "no:randomly",
        )

    return run


def test_ragas_mode_fails_what_is_not_supported_and_deepeval_only_contradictions(
    run_with: Callable[[list[str]], pytest.RunResult], pytester: pytest.Pytester
) -> None:
    result = run_with(["supported", "contradicted", "not mentioned"])
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*refund faithfulness 0.33 < 0.60",
            "*1 of 3 statements supported by the contexts; 1 contradicted, 1 not mentioned",
            "*evidence:",
            "*?contradicted? Refunds take 90 days to arrive. — because contradicted",
            "*?not mentioned? Shipping is free to Mars. — because not mentioned",
        ]
    )
    assert "test_deepeval" not in "".join(line for line in result.outlines if "FAILED" in line)
    report = read_report(pytester)
    [refund] = report["cases"]
    faith = refund["metrics"]["faithfulness"]
    assert [e["verdict"] for e in faith["evidence"]] == [
        "supported",
        "contradicted",
        "not mentioned",
    ]
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert "(Faithfulness: contradicted) - because contradicted" in markdown
    assert "(Faithfulness: not mentioned) - because not mentioned" in markdown


def test_a_judge_answering_yes_or_no_is_still_read_and_a_no_is_unfaithful_in_both_modes(
    run_with: Callable[[list[str]], pytest.RunResult],
) -> None:
    result = run_with(["yes", "no", "no"])
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*refund faithfulness 0.33 < 0.60",
            "*1 of 3 statements supported by the contexts; 2 not supported",
            "*?unsupported? Shipping is free to Mars. — because no",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*refund faithfulness 0.33 < 0.60",
            "*1 of 3 statements not contradicted*; 2 not supported",
        ]
    )
