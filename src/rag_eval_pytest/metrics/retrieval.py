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
            return Measurement.not_judged(_nothing_named(sample))
        evidence = [
            _retrieved_evidence(rank, source, expected)
            for rank, source in enumerate(retrieved, start=1)
        ]
        hits = sum(e.verdict == "expected" for e in evidence)
        reason = f"{hits} of {len(retrieved)} retrieved contexts come from expected documents"
        return Measurement(
            score=hits / len(retrieved), reason=reason + _unnamed(retrieved), evidence=evidence
        )


def _nothing_named(sample: Sample) -> str:
    """Why precision is undefined when no retrieved context names a source."""
    if sample.contexts:
        return NO_SOURCES
    return "nothing was retrieved: precision is undefined"


def _retrieved_evidence(rank: int, source: str | None, expected: Sequence[str]) -> Evidence:
    relevant = any(source_matches(e, source) for e in expected)
    return Evidence(
        kind="retrieved",
        text=source or NO_SOURCE,
        verdict="expected" if relevant else "not expected",
        reason=f"rank {rank}",
    )


def _unnamed(retrieved: list[str | None]) -> str:
    unnamed = retrieved.count(None)
    return f" ({unnamed} without a source)" if unnamed else ""


class RetrievalRecall(Metric):
    name = "retrieval_recall"
    default_threshold = 0.8
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "expected_contexts"})
    immediate = True
    summary = "expected documents found among the retrieved sources / expected documents"
    failure_cause = "retrieval_miss"

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        expected = sample.expected_contexts or []
        retrieved = ranked_sources(sample)
        undefined = _recall_undefined(sample, expected, retrieved)
        if undefined is not None:
            return Measurement.not_judged(undefined)
        evidence = [_expected_evidence(name, retrieved) for name in expected]
        found = sum(e.verdict == "found" for e in evidence)
        return Measurement(
            score=found / len(expected), reason=_recall_reason(evidence), evidence=evidence
        )


def _recall_undefined(
    sample: Sample, expected: list[str], retrieved: list[str | None]
) -> str | None:
    """Why recall is undefined: nothing expected, or contexts that name no source."""
    if not expected:
        return "expected_contexts is empty: recall is undefined"
    if not any(retrieved) and sample.contexts:
        return NO_SOURCES
    return None


def _expected_evidence(name: str, retrieved: list[str | None]) -> Evidence:
    ranks = found_at(name, retrieved)
    return Evidence(
        kind="expected",
        text=name,
        verdict="found" if ranks else "missing",
        reason=f"rank {ranks[0]}" if ranks else "not retrieved",
    )


def _recall_reason(evidence: list[Evidence]) -> str:
    """ "2 of 3 expected documents retrieved; missing: policy.md"."""
    missing = [e.text for e in evidence if e.verdict == "missing"]
    reason = f"{len(evidence) - len(missing)} of {len(evidence)} expected documents retrieved"
    return reason + (f"; missing: {', '.join(missing)}" if missing else "")
