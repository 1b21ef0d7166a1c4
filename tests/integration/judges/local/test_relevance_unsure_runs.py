"""The local judge's unsure answer relevance through a real pytest run. The shipped judge
trusts two kinds of relevance evidence only (right on 95 % of the benchmark's held-out rows
they decide: an answer that restates its question and gives what it asks for, and one far
below the cut): every other rating is a best guess, not judged with the bounds 0 and 1, and
the run says the cases need an LLM judge and is not green. A judge whose every kind decides (a
``rag_judge`` of the user's) leaves unsure only an answer whose probability falls in the
band, with the band's edges as its bounds, and decides a clear one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

QUESTION = "How do employees request time off?"
CONTEXT = "Employees request time off through the HR portal. They get 20 days per year."
TESTS = """
from rag_eval_pytest import assert_relevant

def test_on_topic(rag_case):
    assert_relevant(rag_case)
"""
NEEDS = "1 case needs an LLM judge to decide: answer_relevance (1)"


CASES = [
    case(
        "how",
        QUESTION,
        answer="Employees request time off through the HR portal.",
        contexts=[CONTEXT],
    ),
    # On topic, but how many days is not how to ask for them: probability 0.55, in the band
    # [0.53, 0.64) (the answer above: 0.75).
    case(
        "days",
        QUESTION,
        answer="Employees get 20 days of paid time off per year.",
        contexts=[CONTEXT],
    ),
]
DECIDING = """
from dataclasses import replace

import pytest

from rag_eval_pytest.judges.local import LocalJudge
from rag_eval_pytest.judges.local.relevance import RELEVANCE


@pytest.fixture(scope="session")
def rag_judge():
    return LocalJudge(answer_model=replace(RELEVANCE, trusted=None))
"""


def test_the_shipped_judge_leaves_a_rating_of_an_unmeasured_kind_to_an_llm_judge(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(CASES)
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-judge=local", "-p", "no:randomly"
    )
    result.assert_outcomes(skipped=2)  # never passed
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["not checked: 2 cases need an LLM judge to decide: answer_relevance (2)*"]
    )
    clear = {c["id"]: c for c in read_report(pytester)["cases"]}["how"]["metrics"]
    rated = clear["answer_relevance"]
    assert (rated["status"], rated["cause"], rated["bounds"]) == ("not_judged", "unsure", [0, 1])
    assert rated["details"]["decided_score"] >= 0.7  # its best guess: relevant
    assert "a kind of evidence not right often enough to decide alone" in rated["reason"]


def test_an_answer_in_the_relevance_band_is_unsure_and_a_clear_one_decided(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(CASES)
    pytester.makepyfile(test_rag=TESTS)
    pytester.makeconftest(DECIDING)
    result = pytester.runpytest("--rag-dataset=dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=1, skipped=1)  # the unsure one: skipped, never passed
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"not checked: {NEEDS}*"])
    cases = {c["id"]: c for c in read_report(pytester)["cases"]}
    decided = cases["how"]["metrics"]["answer_relevance"]
    assert (decided["status"], decided["unsure"], decided["bounds"]) == ("passed", 0, None)
    unsure = cases["days"]["metrics"]["answer_relevance"]
    assert (unsure["status"], unsure["cause"], unsure["unsure"]) == ("not_judged", "unsure", 1)
    low, high = unsure["bounds"]
    assert low < 0.7 <= high
    assert low <= unsure["details"]["decided_score"] < high
    assert unsure["evidence"][0]["verdict"] == "unsure"


DAYS = "How many days off do employees get per year?"


def test_the_shipped_judge_decides_a_restating_answer_and_one_about_something_else(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case(
                "restates", DAYS, answer="Employees get 20 days off per year.", contexts=[CONTEXT]
            ),
            case("elsewhere", DAYS, answer="Bananas are yellow.", contexts=[CONTEXT]),
        ]
    )
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-judge=local", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=1, failed=1)  # nothing left for an LLM judge
    assert result.ret == 1
    assert "need an LLM judge" not in result.stdout.str()
    cases = {c["id"]: c["metrics"]["answer_relevance"] for c in read_report(pytester)["cases"]}
    restates, elsewhere = cases["restates"], cases["elsewhere"]
    assert (restates["status"], restates["unsure"], restates["bounds"]) == ("passed", 0, None)
    assert (elsewhere["status"], elsewhere["unsure"], elsewhere["bounds"]) == ("failed", 0, None)
