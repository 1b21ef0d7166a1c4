"""Ranking metrics (hit rate@k, reciprocal rank, nDCG@k) against the known outputs of
reference implementations, and the cases that must be 0 or not judged."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.metrics.base import Measurement, Sample, Services
from rag_eval_pytest.metrics.ranking import dcg, hit_rate, ndcg, rank_sources, reciprocal_rank
from rag_eval_pytest.metrics.registry import get_metric

# scikit-learn's `ndcg_score` documentation example (sklearn.metrics.ndcg_score, 1.x):
#   true_relevance = [[10, 0, 0, 1, 5]]
#   ndcg_score(true_relevance, [[.1, .2, .3, 4, 70]])          -> 0.69...
#   ndcg_score(true_relevance, [[.05, 1.1, 1., .5, .0]])       -> 0.49...
#   ndcg_score(true_relevance, [[.05, 1.1, 1., .5, .0]], k=4)  -> 0.35...
#   ndcg_score(true_relevance, true_relevance, k=4)            -> 1.0
# As documents d0..d4 graded 10, 0, 0, 1, 5, ranked by score (highest first):
SKLEARN_GRADES = {"d0": 10, "d1": 0, "d2": 0, "d3": 1, "d4": 5}
SKLEARN_RANKING_1 = ["d4", "d3", "d2", "d1", "d0"]  # scores .1, .2, .3, 4, 70
SKLEARN_RANKING_2 = ["d1", "d2", "d3", "d0", "d4"]  # scores .05, 1.1, 1., .5, .0
# The full-precision values of the same formula (linear gain, log2(rank + 1) discount):
# ideal DCG = 10 + 5/log2(3) + 1/2 = 13.654648767857287
SKLEARN_1 = (5 + 1 / math.log2(3) + 10 / math.log2(6)) / (10 + 5 / math.log2(3) + 0.5)
SKLEARN_2 = (1 / 2 + 10 / math.log2(5) + 5 / math.log2(6)) / (10 + 5 / math.log2(3) + 0.5)
SKLEARN_2_AT_4 = (1 / 2 + 10 / math.log2(5)) / (10 + 5 / math.log2(3) + 0.5)

# The worked example of Wikipedia's "Discounted cumulative gain" article: six documents
# ranked with grades 3, 2, 3, 0, 1, 2 -> DCG6 = 6.861, ideal (3, 3, 2, 2, 1) IDCG6 = 7.141,
# nDCG6 = 0.961; with two more relevant documents not retrieved (grades 3 and 2) the ideal
# is 3, 3, 3, 2, 2, 2 -> IDCG6 = 8.740 and nDCG6 = 0.785.
WIKI_GRADES = {"D1": 3, "D2": 2, "D3": 3, "D4": 0, "D5": 1, "D6": 2}
WIKI_RANKING = ["D1", "D2", "D3", "D4", "D5", "D6"]

# Wikipedia's "Mean reciprocal rank" example: the right answer at rank 3, 2 and 1 of three
# queries -> reciprocal ranks 1/3, 1/2, 1 and MRR = 11/18 = 0.61.


def sample(sources: list[str], expected: Any, **kw: Any) -> Sample:
    grades = None
    if isinstance(expected, dict):
        grades, expected = expected, [n for n, g in expected.items() if g > 0]
    fields: dict[str, Any] = {
        "case_key": "tc",
        "question": "q",
        "ground_truth": "g",
        "answer": "a",
        "contexts": [Context(text=f"text of {s}", source=s) for s in sources],
        "sources": sources,
        "expected_contexts": expected,
        "expected_grades": grades,
    }
    fields.update(kw)
    return Sample(**fields)


def run(metric: str, s: Sample, **params: Any) -> Measurement:
    return asyncio.run(measure(get_metric(metric, **params), s, Services()))


def gains(ranking: list[str], grades: dict[str, int]) -> list[int]:
    return [r.grade for r in rank_sources(ranking, grades)]


@pytest.mark.parametrize(
    ("ranking", "k", "documented", "exact"),
    [
        (SKLEARN_RANKING_1, None, 0.69, SKLEARN_1),
        (SKLEARN_RANKING_2, None, 0.49, SKLEARN_2),
        (SKLEARN_RANKING_2, 4, 0.35, SKLEARN_2_AT_4),
        (["d0", "d4", "d3", "d1", "d2"], 4, 1.0, 1.0),
    ],
)
def test_ndcg_matches_scikit_learns_documented_outputs(
    ranking: list[str], k: int | None, documented: float, exact: float
) -> None:
    value = ndcg(gains(ranking, SKLEARN_GRADES), list(SKLEARN_GRADES.values()), k)
    assert math.floor(value * 100) / 100 == documented  # the docs print the first digits
    assert value == pytest.approx(exact, abs=1e-12)
    result = run("retrieval_ndcg", sample(ranking, SKLEARN_GRADES), **({"k": k} if k else {}))
    assert result.score == pytest.approx(exact, abs=1e-12)


def test_ndcg_matches_the_worked_example_of_the_dcg_article() -> None:
    g = gains(WIKI_RANKING, WIKI_GRADES)
    assert g == [3, 2, 3, 0, 1, 2]
    assert round(dcg(g), 3) == 6.861
    assert round(dcg(sorted(WIKI_GRADES.values(), reverse=True)), 3) == 7.141
    assert round(ndcg(g, list(WIKI_GRADES.values())), 3) == 0.961
    # Relevant documents the retriever missed count in the ideal ranking.
    unretrieved = {**WIKI_GRADES, "D7": 3, "D8": 2}
    assert round(dcg(sorted(unretrieved.values(), reverse=True), 6), 3) == 8.740
    assert round(ndcg(g, list(unretrieved.values()), 6), 3) == 0.785
    result = run("retrieval_ndcg", sample(WIKI_RANKING, unretrieved), k=6)
    assert result.score is not None and round(result.score, 3) == 0.785
    assert result.reason.startswith("DCG@6 6.861 of an ideal 8.740; 5 of 7 expected documents")


@pytest.mark.parametrize(("rank", "expected"), [(3, 1 / 3), (2, 1 / 2), (1, 1.0)])
def test_reciprocal_rank_of_the_mrr_articles_example(rank: int, expected: float) -> None:
    ranking = ["other-a", "other-b", "other-c"]
    ranking[rank - 1] = "answer"
    assert run("retrieval_mrr", sample(ranking, ["answer"])).score == pytest.approx(expected)
    assert reciprocal_rank(gains(ranking, {"answer": 1})) == pytest.approx(expected)


def test_mean_of_the_mrr_example_is_eleven_eighteenths() -> None:
    scores = [reciprocal_rank([0] * (r - 1) + [1]) for r in (3, 2, 1)]
    assert sum(scores) / 3 == pytest.approx(11 / 18)
    assert round(sum(scores) / 3, 2) == 0.61


def test_k_cuts_the_ranking() -> None:
    s = sample(["a", "b", "c", "doc-1"], ["doc-1"])
    assert run("retrieval_hit_rate", s).score == 1.0
    assert run("retrieval_hit_rate", s, k=3).score == 0.0
    assert run("retrieval_mrr", s).score == pytest.approx(0.25)
    assert run("retrieval_mrr", s, k=3).score == 0.0
    assert run("retrieval_ndcg", s, k=3).score == 0.0
    assert run("retrieval_ndcg", s).score == pytest.approx(1 / math.log2(5))
    assert hit_rate([0, 0, 1], 2) == 0.0 and hit_rate([0, 0, 1], 3) == 1.0


def test_k_larger_than_the_list_is_the_whole_list() -> None:
    s = sample(["a", "doc-1"], {"doc-1": 2, "doc-2": 1})
    for name in ("retrieval_hit_rate", "retrieval_mrr", "retrieval_ndcg"):
        assert run(name, s, k=50).score == run(name, s).score
    # nDCG@50 still divides by the ideal of both expected documents.
    assert run("retrieval_ndcg", s, k=50).score == pytest.approx(
        (2 / math.log2(3)) / (2 + 1 / math.log2(3))
    )
    assert run("retrieval_mrr", s, k=50).reason == (
        "first expected document doc-1 at rank 2: reciprocal rank 1/2 (among the 2 retrieved)"
    )


def test_no_expected_document_retrieved_scores_zero() -> None:
    s = sample(["a", "b"], ["doc-1"])
    for name in ("retrieval_hit_rate", "retrieval_mrr", "retrieval_ndcg"):
        result = run(name, s, k=2)
        assert result.score == 0.0
        assert [e.verdict for e in result.evidence] == ["not expected", "not expected"]
    assert run("retrieval_mrr", s).reason == "no expected document among the 2 retrieved"


def test_nothing_retrieved_scores_zero_with_the_reason() -> None:
    result = run("retrieval_ndcg", sample([], ["doc-1"]))
    assert (result.score, result.reason) == (0.0, "nothing was retrieved")


@pytest.mark.parametrize("name", ["retrieval_hit_rate", "retrieval_mrr", "retrieval_ndcg"])
def test_not_judged_without_expected_documents(name: str) -> None:
    missing = run(name, sample(["a"], None))
    assert missing.score is None and missing.reason == "the case has no expected_contexts"
    empty = run(name, sample(["a"], []))
    assert empty.score is None and "names no relevant document" in empty.reason
    all_zero = run(name, sample(["a"], {"a": 0}))
    assert all_zero.score is None
    unknown = run(name, sample(["a"], ["a"], contexts=None))
    assert unknown.score is None and "contexts unknown" in unknown.reason
    sourceless = run(name, sample([], ["a"], contexts=[Context(text="t")]))
    assert sourceless.score is None and "without sources" in sourceless.reason


def test_a_document_counts_once_at_its_first_rank() -> None:
    # Two chunks of one document: the second gains nothing, so nDCG stays within [0, 1].
    s = sample(["docs/policy.md", "docs/policy.md#2", "faq.md"], {"policy.md": 3})
    result = run("retrieval_ndcg", s)
    assert result.score == 1.0
    assert [e.verdict for e in result.evidence] == ["expected", "repeat", "not expected"]
    assert result.evidence[1].reason == "rank 2, already counted at rank 1"
    assert result.evidence[0].reason == "rank 1, grade 3"


def test_binary_relevance_from_a_plain_list() -> None:
    # Grade 1 each: DCG = 1/log2(3) + 1/log2(4); ideal = 1 + 1/log2(3).
    s = sample(["x", "a", "b"], ["a", "b"])
    assert run("retrieval_ndcg", s).score == pytest.approx(
        (1 / math.log2(3) + 0.5) / (1 + 1 / math.log2(3))
    )
    assert run("retrieval_ndcg", s).evidence[1].reason == "rank 2"


@pytest.mark.parametrize("k", [0, -1, 2.5, "3", True])
@pytest.mark.parametrize("name", ["retrieval_hit_rate", "retrieval_mrr", "retrieval_ndcg"])
def test_k_must_be_a_whole_number_of_at_least_one(name: str, k: object) -> None:
    with pytest.raises(ValueError, match=rf"metric '{name}': parameter 'k' must be a whole"):
        get_metric(name, k=k)


def test_other_parameters_are_refused() -> None:
    with pytest.raises(TypeError, match="unknown parameter 'top_k' \\(accepted: k\\)"):
        get_metric("retrieval_mrr", top_k=3)


def test_retrieval_precision_and_recall_read_the_graded_form() -> None:
    s = sample(["a", "b", "c"], {"a": 2, "b": 0, "d": 1})
    assert run("retrieval_precision", s).score == pytest.approx(1 / 3)
    assert run("retrieval_recall", s).score == pytest.approx(1 / 2)
