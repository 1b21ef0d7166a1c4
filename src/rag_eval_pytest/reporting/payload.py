"""The per-case payload that travels on a test report, from the process that ran the test to
the process that writes the reports (the same process without xdist; worker to controller with
it). JSON-safe builtins only: xdist serialises report attributes with execnet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

from ..text.shorten import LONG_TEXT, cut_noted

if TYPE_CHECKING:
    from ..data.dataset import LoadedCase
    from ..data.response import RAGResponse
    from ..metrics.base import MetricResult

PAYLOAD_SCHEMA = 1


class ContextPayload(TypedDict):
    text: str
    source: str | None


class _CaseFields(TypedDict):
    schema: int
    key: str
    id: str
    index: int
    dataset: str
    question: str
    ground_truth: str | None
    critical: bool
    tags: list[str]
    expected_contexts: list[str] | None
    recorded: bool
    answer: str | None
    contexts: list[ContextPayload] | None
    sources: list[str]
    latency: float | None
    error: str | None
    adapter: str | None
    judge: str | None
    metrics: list[dict[str, Any]]


class CasePayload(_CaseFields, total=False):
    setup_error: str | None
    """A setup error the test met (a judge that cannot be built): the run is fatal."""
    inline: bool
    """A case the test made in code (``make_case``), not a dataset's."""
    crashed: bool
    """The case's ``error`` is the test process's crash (xdist's report of a dead worker),
    not the RAG call's."""
    turns: list[CasePayload]
    """A conversation's turns, each as a case's payload (its key ``<key>/turn-N``), with
    the results measured on it."""
    judge_identity: str
    """The judge's one identity (its fingerprint and votes): two runs whose judges differ
    in it did not measure the same thing, though their descriptions may read alike."""
    judge_deterministic: bool
    """The judge gives the same answer to the same question every time (the local judge):
    its verdicts are stable (:mod:`.stability`)."""
    judge_passes: int
    """The votes the judge asks for each question (``judge.passes``)."""
    stable_metrics: list[str]
    """A case rebuilt from a report (``rag-eval merge``): the metrics whose verdict the run
    found stable."""


def is_payload(value: object) -> bool:
    return isinstance(value, dict) and value.get("schema") == PAYLOAD_SCHEMA and "key" in value


@dataclass(frozen=True)
class RunInfo:
    """Identity of the run, decided once by the aggregating process and sent to workers."""

    run_id: str
    started_at: str


def case_payload(
    loaded: LoadedCase,
    response: RAGResponse | None,
    results: list[MetricResult],
    *,
    error: str | None = None,
    setup_error: str | None = None,
    adapter: str | None = None,
    judge: str | None = None,
) -> CasePayload:
    """What one test learned about its case, as it travels on the test's report."""
    case = loaded.case
    answered = _Answered.of(response)
    return {
        "schema": PAYLOAD_SCHEMA,
        "key": loaded.key,
        "id": case.id or loaded.key,
        "index": loaded.index,
        "dataset": str(loaded.dataset),
        "question": case.question,
        "ground_truth": case.ground_truth,
        "critical": case.critical,
        "tags": list(case.tags),
        "expected_contexts": case.expected_contexts,
        "recorded": case.has_recorded_answer,
        "answer": answered.answer,
        "contexts": answered.contexts,
        "sources": answered.sources,
        "latency": answered.latency,
        "error": error,
        "setup_error": setup_error,
        "adapter": adapter,
        "judge": judge,
        "metrics": _results(results, response),
    }


class _Answered(NamedTuple):
    """What the RAG system answered (or the dataset recorded), as the payload carries it;
    nothing when the test got no response."""

    answer: str | None
    contexts: list[ContextPayload] | None
    sources: list[str]
    latency: float | None

    @classmethod
    def of(cls, response: RAGResponse | None) -> _Answered:
        if response is None:
            return cls(None, None, [], None)
        contexts: list[ContextPayload] | None = None
        if response.contexts is not None:
            contexts = [{"text": c.text, "source": c.source} for c in response.contexts]
        return cls(response.answer, contexts, response.retrieved_sources, response.latency)


def _results(results: list[MetricResult], response: RAGResponse | None) -> list[dict[str, Any]]:
    whole = _whole_texts(response)
    return [_stored_once(result, whole) for result in results]


def _whole_texts(response: RAGResponse | None) -> dict[str, str]:
    """The case's long texts that the payload holds whole, and where: its answer and its
    contexts."""
    if response is None:
        return {}
    whole = {c.text: "the case's contexts" for c in response.contexts or ()}
    whole[response.answer] = "the case's answer"
    return {text: where for text, where in whole.items() if len(text) > LONG_TEXT}


def _stored_once(result: MetricResult, whole: dict[str, str]) -> dict[str, Any]:
    """``result`` as JSON, each evidence's text or reason longer than
    :data:`~rag_eval_pytest.text.shorten.LONG_TEXT` that repeats the answer, a context or the
    result's reason kept as its start with a note of where the whole text is: a 10 MB
    context each metric quoted whole was in the report once more for each."""
    data = result.model_dump(mode="json")
    if result.reason and len(result.reason) > LONG_TEXT:
        whole = {**whole, result.reason: "the metric's reason"}
    if whole:
        data["evidence"] = [_evidence_once(e, whole) for e in data["evidence"]]
    return data


def _evidence_once(evidence: dict[str, Any], whole: dict[str, str]) -> dict[str, Any]:
    for field in ("text", "reason"):
        where = whole.get(evidence[field]) if isinstance(evidence[field], str) else None
        if where is not None:
            evidence[field] = cut_noted(evidence[field], where)
    return evidence
