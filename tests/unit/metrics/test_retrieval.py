"""Retrieval precision and recall, with no judge: which retrieved source names an expected
document (case, slashes, fragments and paths aside), each rank kept even for a context that
names no source, and "not judged" when nothing says what was retrieved."""

from __future__ import annotations

import asyncio

import pytest

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.metrics.base import Measurement, Metric, Sample, Services
from rag_eval_pytest.metrics.retrieval import (
    NO_SOURCE,
    NO_SOURCES,
    RetrievalPrecision,
    RetrievalRecall,
    expected_found,
    found_at,
    source_matches,
)


def sample(
    ranked: list[str | None], expected: list[str] | None, contexts: int | None = None
) -> Sample:
    count = len(ranked) if contexts is None else contexts
    return Sample(
        case_key="tc",
        question="q",
        ground_truth="g",
        answer="a",
        contexts=[Context(text=f"c{n}") for n in range(count)],
        sources=[s for s in ranked if s],
        expected_contexts=expected,
        ranked_sources=ranked,
    )


def run(metric: Metric, s: Sample) -> Measurement:
    return asyncio.run(metric.measure(s, Services()))


@pytest.mark.parametrize(
    ("expected", "source"),
    [
        ("policy.md", "policy.md"),
        ("Policy.MD", "policy.md"),
        ("policy.md", "docs/policy.md"),  # a path ending in the name
        ("docs/policy.md", "policy.md"),
        ("docs\\policy.md", "DOCS/policy.md"),
        ("policy.md", "policy.md#refunds"),
        ("docs/", "docs"),
        (" policy.md ", "policy.md"),
    ],
)
def test_sources_that_name_the_expected_document(expected: str, source: str) -> None:
    assert source_matches(expected, source)


@pytest.mark.parametrize(
    ("expected", "source"),
    [
        ("policy.md", "old-policy.md"),  # a longer name is another document
        ("policy.md", "policy.md.bak"),
        ("policy.md", None),
        ("policy.md", ""),
        ("", "policy.md"),
        ("#frag", "#frag"),
    ],
)
def test_sources_that_do_not(expected: str, source: str | None) -> None:
    assert not source_matches(expected, source)


def test_ranks_and_found_documents() -> None:
    retrieved = ["x.md", None, "docs/a.md", "a.md#2"]
    assert found_at("a.md", retrieved) == [3, 4]
    assert found_at("b.md", retrieved) == []
    assert expected_found(["b.md", "a.md", "x.md"], retrieved) == ["a.md", "x.md"]


def test_precision_counts_every_rank_including_a_context_without_a_source() -> None:
    result = run(RetrievalPrecision(), sample(["a.md", None, "b.md", "docs/a.md"], ["a.md"]))
    assert result.score == 0.5
    assert result.reason == (
        "2 of 4 retrieved contexts come from expected documents (1 without a source)"
    )
    assert [(e.text, e.verdict, e.reason) for e in result.evidence] == [
        ("a.md", "expected", "rank 1"),
        (NO_SOURCE, "not expected", "rank 2"),
        ("b.md", "not expected", "rank 3"),
        ("docs/a.md", "expected", "rank 4"),
    ]


def test_precision_without_sources_or_without_retrieval_is_not_judged() -> None:
    unnamed = run(RetrievalPrecision(), sample([None, None], ["a.md"]))
    assert (unnamed.score, unnamed.reason) == (None, NO_SOURCES)
    nothing = run(RetrievalPrecision(), sample([], ["a.md"]))
    assert (nothing.score, nothing.reason) == (
        None,
        "nothing was retrieved: precision is undefined",
    )


def test_recall_is_expected_documents_found_and_names_the_missing() -> None:
    result = run(RetrievalRecall(), sample(["x.md", "docs/A.md"], ["a.md", "c.md"]))
    assert result.score == 0.5
    assert result.reason == "1 of 2 expected documents retrieved; missing: c.md"
    assert [(e.text, e.verdict, e.reason) for e in result.evidence] == [
        ("a.md", "found", "rank 2"),
        ("c.md", "missing", "not retrieved"),
    ]


def test_recall_of_nothing_retrieved_is_zero_but_of_unnamed_contexts_not_judged() -> None:
    assert run(RetrievalRecall(), sample([], ["a.md"])).score == 0.0
    unnamed = run(RetrievalRecall(), sample([None], ["a.md"]))
    assert (unnamed.score, unnamed.reason) == (None, NO_SOURCES)


def test_recall_without_expected_documents_is_undefined() -> None:
    result = run(RetrievalRecall(), sample(["a.md"], []))
    assert (result.score, result.reason) == (
        None,
        "expected_contexts is empty: recall is undefined",
    )


def test_without_ranked_sources_the_reported_sources_are_the_ranking() -> None:
    s = Sample(
        case_key="tc",
        question="q",
        ground_truth="g",
        answer="a",
        contexts=[Context(text="c")],
        sources=["b.md", "a.md"],
        expected_contexts=["a.md"],
    )
    assert run(RetrievalPrecision(), s).score == 0.5
    assert run(RetrievalRecall(), s).evidence[0].reason == "rank 2"


def test_both_need_expected_contexts_and_run_at_once() -> None:
    s = sample(["a.md"], None)
    for metric in (RetrievalPrecision(), RetrievalRecall()):
        assert metric.missing_input(s, Services()) == "the case has no expected_contexts"
        assert metric.immediate
