"""Why a failing case failed: its cause, decided from what the run already has (the case's
error, its metrics' verdicts, its expected documents against the documents the RAG system
returned), with no further judge call.

:func:`failure_causes` is the one function that decides. The aggregating process calls it
for each case of the report, over the results of all the case's tests (:mod:`.summary`);
the process that runs a test calls it for that test's JUnit property ``rag_failure_cause``,
over the test's own results (``pytest_support/runner.py``). Each metric says what its
failure means (``Metric.failure_cause``): this module names no metric, and a custom metric
that declares a cause takes part like a built-in one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from ..metrics.registry import failure_cause
from ..metrics.retrieval import expected_found

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from ..metrics.base import MetricFailure, MetricResult
    from .payload import CasePayload

FailureCause = Literal[
    "rag_error",
    "retrieval_miss",
    "ranking",
    "forgotten_fact",
    "unsupported_answer",
    "incorrect_answer",
    "irrelevant_answer",
    "not_judged",
]
"""Why a failing case failed, most telling first (:data:`CAUSES` says why in this order)."""

CAUSES: tuple[FailureCause, ...] = get_args(FailureCause)
"""Every cause, most telling first: a case's cause is the first that applies, and the others
that apply are kept beside it. The order follows the pipeline, upstream first, because an
upstream fault explains the faults after it and fixing a later stage would not help:

* ``rag_error``: the RAG call failed, so there is no answer and every other signal is
  missing rather than failing.
* ``retrieval_miss``: none of the expected documents came back; an answer built without
  them is expected to be unsupported, wrong or evasive, and only retrieval can fix it.
* ``ranking``: the expected documents came back, but below ``k`` or among irrelevant ones: a
  lesser retrieval fault, still upstream of the answer.
* ``forgotten_fact``: in a conversation, the answer contradicts or asks again for what the
  user said in an earlier turn: the history was lost or ignored before the answer was
  written, so grounding or correcting the answer would not help.
* ``unsupported_answer``: the generator claimed what the contexts do not support. Ahead of
  ``incorrect_answer`` because an unsupported answer is usually also incorrect, and this
  says where the error came from (the generator, not the sources).
* ``incorrect_answer``: the answer is faithful to its sources but disagrees with the ground
  truth, so the sources (or the ground truth) themselves may be wrong.
* ``irrelevant_answer``: the answer does not address the question. After the two above: a
  wrong or unsupported answer is often scored off-topic too, and relevance is the least
  specific of the answer's verdicts.
* ``not_judged``: the failing or undecided verdict comes from checks that could not be
  judged. Last, because the absence of a verdict is no finding: any judged cause explains
  more.
"""

MEANINGS: Mapping[FailureCause, str] = {
    "rag_error": "the RAG call failed",
    "retrieval_miss": "none of the expected documents was retrieved",
    "ranking": "expected documents retrieved, but below k or among irrelevant ones",
    "forgotten_fact": "the answer contradicts or asks again for what the user said in an "
    "earlier turn",
    "unsupported_answer": "the answer claims what the retrieved contexts do not support",
    "incorrect_answer": "the answer disagrees with the ground truth though faithful to its "
    "contexts (the sources may be wrong)",
    "irrelevant_answer": "the answer does not address the question",
    "not_judged": "the failing verdict comes from checks that could not be judged",
}
"""Each cause in a few words, for the reports."""

UNEXPLAINED = (
    "no metric or error explains the failure (the test's own assertion, a crash, or a check "
    "that declares no cause)"
)
"""Why a failing case may have no cause, for the reports."""

_RETRIEVAL: frozenset[MetricFailure] = frozenset({"retrieval_miss", "ranking"})


def returned_sources(payload: CasePayload) -> list[str] | None:
    """The sources the RAG system returned, in rank order (each context's source when it gave
    no list of sources); ``None`` when that cannot be told: contexts unknown, or contexts that
    name no source."""
    if payload["sources"]:
        return list(payload["sources"])
    return [] if payload["contexts"] == [] else None


def expected_retrieved(payload: CasePayload) -> int | None:
    """How many of the case's expected documents the RAG system returned, matched as the
    retrieval metrics match them; ``None`` when the case expects none or what it returned
    cannot be told."""
    expected = payload["expected_contexts"]
    returned = returned_sources(payload)
    if not expected or returned is None:
        return None
    return len(expected_found(expected, returned))


def failure_causes(
    payload: CasePayload, results: Iterable[MetricResult], status: str
) -> tuple[FailureCause, ...]:
    """Every cause that applies to a case, in the order of :data:`CAUSES` (the first is its
    cause); empty for a case that did not fail (``status`` other than ``failed`` and
    ``error``) and for a failure that nothing the run has explains.

    ``payload`` is the case and its response; ``results`` the metric results of its tests;
    ``status`` its outcome. A cause applies when:

    * ``rag_error``: the case has an error of the RAG call (not a crash of the test process);
    * ``retrieval_miss``: the case expects documents and none of them was returned; or a
      metric whose failure means a miss failed and the case expects no document the run can
      match;
    * ``ranking``: a retrieval metric failed while at least one expected document was
      returned (or, for a case that expects none, a metric whose failure means ranking
      failed);
    * ``forgotten_fact``: a metric whose failure means it failed;
    * ``unsupported_answer``: a metric whose failure means it failed, while an expected
      document was returned or none is known;
    * ``incorrect_answer``: a metric whose failure means it failed while no
      ``unsupported_answer`` metric did;
    * ``irrelevant_answer``: a metric whose failure means it failed;
    * ``not_judged``: a metric was not judged, or the test's judge could not be built.
    """
    if status not in ("failed", "error"):
        return ()
    case = _Failing.of(payload, list(results))
    return tuple(cause for cause in CAUSES if _RULES[cause](case))


@dataclass(frozen=True)
class _Failing:
    """What the run has on a failing case, for the rules that decide its causes."""

    payload: CasePayload
    results: list[MetricResult]
    failed: frozenset[MetricFailure]
    """The causes the case's failed metrics declare."""
    found: int | None
    """How many of its expected documents came back (:func:`expected_retrieved`)."""

    @classmethod
    def of(cls, payload: CasePayload, results: list[MetricResult]) -> _Failing:
        failed = frozenset(
            cause
            for result in results
            if result.status == "failed" and (cause := failure_cause(result.metric)) is not None
        )
        return cls(payload, results, failed, expected_retrieved(payload))


def _rag_error(case: _Failing) -> bool:
    return bool(case.payload["error"]) and not case.payload.get("crashed")


def _retrieval_miss(case: _Failing) -> bool:
    """No expected document came back; or, when that cannot be told, a metric whose failure
    means a miss failed."""
    return case.found == 0 or (case.found is None and "retrieval_miss" in case.failed)


def _ranking(case: _Failing) -> bool:
    """A retrieval metric failed though an expected document came back; or, when that
    cannot be told, a metric whose failure means ranking failed."""
    if case.found is None:
        return "ranking" in case.failed
    return bool(case.found) and bool(case.failed & _RETRIEVAL)


def _forgotten_fact(case: _Failing) -> bool:
    return "forgotten_fact" in case.failed


def _unsupported_answer(case: _Failing) -> bool:
    return "unsupported_answer" in case.failed and case.found != 0


def _incorrect_answer(case: _Failing) -> bool:
    return "incorrect_answer" in case.failed and "unsupported_answer" not in case.failed


def _irrelevant_answer(case: _Failing) -> bool:
    return "irrelevant_answer" in case.failed


def _not_judged(case: _Failing) -> bool:
    return bool(case.payload.get("setup_error")) or any(
        result.status == "not_judged" for result in case.results
    )


_RULES: Mapping[FailureCause, Callable[[_Failing], bool]] = {
    "rag_error": _rag_error,
    "retrieval_miss": _retrieval_miss,
    "ranking": _ranking,
    "forgotten_fact": _forgotten_fact,
    "unsupported_answer": _unsupported_answer,
    "incorrect_answer": _incorrect_answer,
    "irrelevant_answer": _irrelevant_answer,
    "not_judged": _not_judged,
}
"""When each cause applies (as :func:`failure_causes` says)."""


def count_causes(causes: Iterable[tuple[FailureCause, ...]]) -> dict[FailureCause, int]:
    """How many cases have each cause (their first), in the order of :data:`CAUSES`; a cause
    no case has is left out."""
    firsts = [found[0] for found in causes if found]
    return {cause: firsts.count(cause) for cause in CAUSES if cause in firsts}
