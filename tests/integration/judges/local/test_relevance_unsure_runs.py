"""The local judge's unsure band for answer relevance through a real pytest run: an answer
whose relevance probability falls in the band is not judged, with the band's edges as its
bounds, and the run says a case needs an LLM judge and is not green; a clear answer is
decided."""

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


def test_an_answer_in_the_relevance_band_is_unsure_and_a_clear_one_decided(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case(
                "how",
                QUESTION,
                answer="Employees request time off through the HR portal.",
                contexts=[CONTEXT],
            ),
            # On topic, but how many days is not how to ask for them: probability 0.55,
            # in the band [0.53, 0.64) (the answer above: 0.75).
            case(
                "days",
                QUESTION,
                answer="Employees get 20 days of paid time off per year.",
                contexts=[CONTEXT],
            ),
        ]
    )
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-judge=local", "-p", "no:randomly"
    )
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
