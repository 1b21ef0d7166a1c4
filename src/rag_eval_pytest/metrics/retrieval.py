"""Retrieval precision and recall: no judge, from ``expected_contexts`` vs returned sources.

``retrieval_precision`` = retrieved contexts whose source is expected / retrieved contexts.
``retrieval_recall`` = expected documents found among the retrieved sources / expected.
A source matches an expected name when they are equal after normalisation (case, slashes,
``#fragment``), or when one is a path ending in the other (``docs/policy.md`` vs ``policy.md``).
Unknown contexts (``None``: the system does not say what it retrieved) are not judged, like
every other context metric: nothing retrieved is not the same as not saying. A context that
names no source keeps its rank and counts as retrieved: it just matches no expected document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .base import Evidence, Measurement, Metric, Requirement, Sample, Services

if TYPE_CHECKING:
    from collections.abc import Sequence


def _normalise(name: str) -> str:
    name = name.strip().replace("\\", "/").casefold()
    name = name.split("#", 1)[0]
    return name.rstrip("/")


def source_matches(expected: str, source: str | None) -> bool:
    """Does a retrieved ``source`` name the ``expected`` document? (``None``, a context
    without a source, names none.)"""
    if source is None:
        return False
    e, s = _normalise(expected), _normalise(source)
    if not e or not s:
        return False
    return e == s or s.endswith("/" + e) or e.endswith("/" + s)


def found_at(expected: str, retrieved: Sequence[str | None]) -> list[int]:
    """The ranks (from 1) of the retrieved sources that name the ``expected`` document."""
    return [
        rank for rank, source in enumerate(retrieved, start=1) if source_matches(expected, source)
    ]


def expected_found(expected: Sequence[str], retrieved: Sequence[str | None]) -> list[str]:
    """The ``expected`` documents that some retrieved source names, in their order: what
    retrieval recall counts, and what a failing case's cause is decided from (a retrieval
    miss: none of them)."""
    return [name for name in expected if found_at(name, retrieved)]


NO_SOURCE = "(no source)"
"""How a retrieved context without a source is shown in the evidence."""


def ranked_sources(sample: Sample) -> list[str | None]:
    """The source at each rank, ``None`` for a context that names none: it keeps its rank
    (a later context is not promoted to it) and matches no expected document."""
    if sample.ranked_sources is not None:
        return list(sample.ranked_sources)
    return list(sample.sources)


NO_SOURCES = (
    "the RAG system returned contexts without sources, so retrieval cannot be compared with "
    "expected_contexts"
)


class RetrievalPrecision(Metric):
    name = "retrieval_precision"
    default_threshold = 0.5
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "expected_contexts"})
    immediate = True
    summary = "retrieved contexts from an expected document / retrieved contexts"
    failure_cause = "ranking"

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        expected = sample.expected_contexts or []
        retrieved = ranked_sources(sample)
        if not any(retrieved):
            if sample.contexts:
                return Measurement.not_judged(NO_SOURCES)
            return Measurement.not_judged("nothing was retrieved: precision is undefined")
        evidence = []
        hits = 0
        for rank, source in enumerate(retrieved, start=1):
            relevant = any(source_matches(e, source) for e in expected)
            hits += relevant
            evidence.append(
                Evidence(
                    kind="retrieved",
                    text=source or NO_SOURCE,
                    verdict="expected" if relevant else "not expected",
                    reason=f"rank {rank}",
                )
            )
        score = hits / len(retrieved)
        reason = f"{hits} of {len(retrieved)} retrieved contexts come from expected documents"
        unnamed = retrieved.count(None)
        if unnamed:
            reason += f" ({unnamed} without a source)"
        return Measurement(score=score, reason=reason, evidence=evidence)


class RetrievalRecall(Metric):
    name = "retrieval_recall"
    default_threshold = 0.8
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "expected_contexts"})
    immediate = True
    summary = "expected documents found among the retrieved sources / expected documents"
    failure_cause = "retrieval_miss"

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        expected = sample.expected_contexts or []
        if not expected:
            return Measurement.not_judged("expected_contexts is empty: recall is undefined")
        retrieved = ranked_sources(sample)
        if not any(retrieved) and sample.contexts:
            return Measurement.not_judged(NO_SOURCES)
        evidence = []
        found = 0
        for name in expected:
            ranks = found_at(name, retrieved)
            found += bool(ranks)
            evidence.append(
                Evidence(
                    kind="expected",
                    text=name,
                    verdict="found" if ranks else "missing",
                    reason=f"rank {ranks[0]}" if ranks else "not retrieved",
                )
            )
        score = found / len(expected)
        missing = [e.text for e in evidence if e.verdict == "missing"]
        reason = f"{found} of {len(expected)} expected documents retrieved"
        if missing:
            reason += f"; missing: {', '.join(missing)}"
        return Measurement(score=score, reason=reason, evidence=evidence)
