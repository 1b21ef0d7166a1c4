"""Answer similarity embeds with the test's own judge when that judge has embeddings, whether
or not the test also asks a judged metric: the same case and metric get the same score in
every test of a run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

CONFTEST = """
import pytest
from rag_eval_pytest.judges.base import Judge, JudgeOutcome

class SameVectors(Judge):
    '''A judge whose embeddings make every text alike, and that answers no question
    (answer correctness, measured beside similarity, is not judged).'''

    kind = "same-vectors"
    model = "fixed"

    async def ask(self, question, inputs):
        return JudgeOutcome.not_judged("this judge answers no question")

    async def embed(self, texts):
        return [[1.0, 0.0] for _ in texts]

@pytest.fixture
def rag_judge():
    return SameVectors()
"""
TESTS = """
from rag_eval_pytest import assert_similar

def test_similar(rag_case):
    assert_similar(rag_case, 0.99)
"""


def test_assert_similar_alone_uses_the_tests_judge_embeddings(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    # The answer and the ground truth share no word: the offline model scores them far apart;
    # the test's judge embeds them alike.
    write_dataset(
        [
            case(
                "apart",
                "What is the refund window?",
                "Refunds are accepted within thirty days.",
                answer="Bananas are yellow.",
                contexts=["Refunds are accepted within thirty days."],
            )
        ]
    )
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest("--rag-dataset=dataset.json", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    (reported,) = read_report(pytester)["cases"]
    assert reported["metrics"]["answer_similarity"]["score"] == pytest.approx(1.0)
