"""Ranking metrics: hit rate@k, reciprocal rank@k and nDCG@k, from ``expected_contexts``.

No judge: the retrieved sources, in rank order, are matched with the expected documents the
way retrieval precision and recall match them (:func:`~.retrieval.source_matches`). An
expected document counts once, at its first rank: a second chunk of it gains nothing (as in
trec_eval and ranx, where a document is ranked once per query).

* ``retrieval_hit_rate``: 1 when an expected document is among the first ``k`` retrieved, else 0.
* ``retrieval_mrr``: 1 / the rank of the first expected document within the first ``k``
  (0 when none); the run's mean of it is the mean reciprocal rank.
* ``retrieval_ndcg``: DCG@k / ideal DCG@k with linear gain (the grade) and a log2 discount,
  ``sum(grade_i / log2(i + 1))`` over ranks ``i = 1..k``; the ideal ranks every expected
  document, retrieved or not, by grade (trec_eval's ``ndcg_cut``, ranx's ``ndcg``, and
  scikit-learn's ``ndcg_score`` when every relevant document is ranked).

Grades come from a graded ``expected_contexts`` (``{"doc-1": 3, "doc-2": 1}``); a plain list
grades each document 1. ``k`` defaults to every retrieved context. A context without a
source keeps its rank and earns nothing: the contexts after it are not promoted.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .base import Evidence, Measurement, Metric, Requirement
from .retrieval import NO_SOURCE, NO_SOURCES, ranked_sources, source_matches

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .base import Sample, Services


@dataclass(frozen=True)
class RankedSource:
    """One retrieved source: its rank, the expected document it counts for and its grade."""

    rank: int
    source: str | None
    """``None``: the context names no source."""
    expected: str | None
    """The expected document this rank counts for (``None``: not expected, or a repeat)."""
    grade: int
    repeat_of: int | None = None
    """The rank at which the expected document it names was already counted."""


def rank_sources(retrieved: Sequence[str | None], grades: Mapping[str, int]) -> list[RankedSource]:
    """Each retrieved source with the grade it earns: the highest-graded expected document it
    names that no earlier rank counted for, else 0."""
    counted: dict[str, int] = {}
    ranked: list[RankedSource] = []
    for rank, source in enumerate(retrieved, start=1):
        ranked.append(_ranked(rank, source, grades, counted))
    return ranked


def _ranked(
    rank: int, source: str | None, grades: Mapping[str, int], counted: dict[str, int]
) -> RankedSource:
    """The source at ``rank`` with its grade: the best expected document it names that is
    not ``counted`` yet (now counted at this rank), else 0 and the rank that counted it."""
    names = _graded_names(source, grades)
    fresh = [n for n in names if n not in counted]
    if not fresh:
        first = min((counted[n] for n in names), default=None)
        return RankedSource(rank, source, None, 0, repeat_of=first)
    best = max(fresh, key=lambda n: grades[n])
    counted[best] = rank
    return RankedSource(rank, source, best, grades[best])


def _graded_names(source: str | None, grades: Mapping[str, int]) -> list[str]:
    """The expected documents of a positive grade that ``source`` names."""
    return [n for n in grades if grades[n] > 0 and source_matches(n, source)]


def hit_rate(gains: Sequence[float], k: int | None = None) -> float:
    """1.0 when any of the first ``k`` gains is positive, else 0.0."""
    return 1.0 if any(g > 0 for g in gains[:k]) else 0.0


def reciprocal_rank(gains: Sequence[float], k: int | None = None) -> float:
    """1 / the rank of the first positive gain within the first ``k``, else 0.0."""
    for rank, gain in enumerate(gains[:k], start=1):
        if gain > 0:
            return 1.0 / rank
    return 0.0


def dcg(gains: Sequence[float], k: int | None = None) -> float:
    """Discounted cumulative gain: ``sum(gain_i / log2(i + 1))`` over ranks ``i = 1..k``."""
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains[:k], start=1))


def ndcg(gains: Sequence[float], relevant: Sequence[float], k: int | None = None) -> float:
    """DCG@k of ``gains`` (in rank order) / DCG@k of ``relevant`` (the grades of every
    relevant document) in the best order; 0.0 when nothing is relevant."""
    ideal = dcg(sorted(relevant, reverse=True), k)
    return min(dcg(gains, k) / ideal, 1.0) if ideal > 0 else 0.0


def _grades(sample: Sample) -> dict[str, int]:
    if sample.expected_grades is not None:
        return {n: g for n, g in sample.expected_grades.items() if g > 0}
    return dict.fromkeys(sample.expected_contexts or [], 1)


def _evidence(item: RankedSource, graded: bool) -> Evidence:
    text = item.source or NO_SOURCE
    if item.expected is not None:
        reason = f"rank {item.rank}" + (f", grade {item.grade}" if graded else "")
        return Evidence(kind="retrieved", text=text, verdict="expected", reason=reason)
    if item.repeat_of is not None:
        reason = f"rank {item.rank}, already counted at rank {item.repeat_of}"
        return Evidence(kind="retrieved", text=text, verdict="repeat", reason=reason)
    return Evidence(kind="retrieved", text=text, verdict="not expected", reason=f"rank {item.rank}")


class RankingMetric(Metric):
    """The shared part of the ranking metrics: ``k``, matching, the not-judged paths."""

    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "expected_contexts"})
    immediate = True
    accepted_params = frozenset({"k"})
    failure_cause = "ranking"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        k = self.params.get("k")
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise ValueError(
                f"metric {self.name!r}: parameter 'k' must be a whole number of at least 1 "
                f"(or left out for every retrieved context), got {k!r}"
            )
        self.k: int | None = k

    def scope(self, retrieved: int) -> str:
        """Which retrieved contexts were checked, in words."""
        if self.k is not None and self.k < retrieved:
            return f"the first {self.k} of {retrieved} retrieved"
        return f"the {retrieved} retrieved"

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        grades = _grades(sample)
        if not grades:
            return Measurement.not_judged(
                f"expected_contexts names no relevant document: {self.name} is undefined"
            )
        retrieved = ranked_sources(sample)
        if not any(retrieved) and sample.contexts:
            return Measurement.not_judged(NO_SOURCES)
        ranked = rank_sources(retrieved, grades)
        shown = ranked[: self.k]
        graded = sample.expected_grades is not None
        score, reason = self.score(ranked, grades)
        if not retrieved:
            reason = "nothing was retrieved"
        return Measurement(
            score=score,
            reason=reason,
            evidence=[_evidence(item, graded) for item in shown],
            details={"k": self.k, "retrieved": len(retrieved)},
        )

    @abstractmethod
    def score(self, ranked: list[RankedSource], grades: Mapping[str, int]) -> tuple[float, str]:
        """The score and its reason."""


class FirstExpectedMetric(RankingMetric):
    """Hit rate and reciprocal rank: scores of the first expected source within ``k``."""

    @abstractmethod
    def value(self, gains: Sequence[float]) -> float:
        """The score from the gains in rank order."""

    @abstractmethod
    def found(self, first: RankedSource) -> str:
        """The reason's words for the first expected source."""

    def score(self, ranked: list[RankedSource], grades: Mapping[str, int]) -> tuple[float, str]:
        first = next((item for item in ranked[: self.k] if item.grade > 0), None)
        scope = self.scope(len(ranked))
        if first is None:
            return 0.0, f"no expected document among {scope}"
        return self.value([item.grade for item in ranked]), f"{self.found(first)} (among {scope})"


class RetrievalHitRate(FirstExpectedMetric):
    name = "retrieval_hit_rate"
    default_threshold = 1.0
    summary = "1 when an expected document is among the first k retrieved, else 0"

    def value(self, gains: Sequence[float]) -> float:
        return hit_rate(gains, self.k)

    def found(self, first: RankedSource) -> str:
        return f"expected document {first.expected} at rank {first.rank}"


class RetrievalMRR(FirstExpectedMetric):
    name = "retrieval_mrr"
    default_threshold = 0.5
    summary = "1 / rank of the first expected document within the first k (mean: MRR)"

    def value(self, gains: Sequence[float]) -> float:
        return reciprocal_rank(gains, self.k)

    def found(self, first: RankedSource) -> str:
        return (
            f"first expected document {first.expected} at rank {first.rank}: "
            f"reciprocal rank 1/{first.rank}"
        )


class RetrievalNDCG(RankingMetric):
    name = "retrieval_ndcg"
    default_threshold = 0.7
    summary = "DCG@k / ideal DCG@k, linear gain (the grade), log2 discount"

    def score(self, ranked: list[RankedSource], grades: Mapping[str, int]) -> tuple[float, str]:
        gains = [item.grade for item in ranked]
        ideal = list(grades.values())
        value = ndcg(gains, ideal, self.k)
        at = f"@{self.k}" if self.k is not None else ""
        found = sum(1 for item in ranked[: self.k] if item.grade > 0)
        best = dcg(sorted(ideal, reverse=True), self.k)
        return value, (
            f"DCG{at} {dcg(gains, self.k):.3f} of an ideal {best:.3f}; {found} of "
            f"{len(grades)} expected documents among {self.scope(len(ranked))}"
        )
