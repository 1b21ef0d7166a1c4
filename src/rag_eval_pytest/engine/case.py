"""The ``rag_case`` a test receives, and the recorder that turns its results into a payload.

Runs in the process that runs the test. One :class:`RagCase` per test item: it knows its
dataset case, the RAG response (queried once per run by the session), and records every
metric result for the reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from ..metrics.registry import requirements
from ..reporting.payload import CasePayload, case_payload

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..adapters.base import RAGAdapter
    from ..config.settings import Settings
    from ..data.dataset import Case, LoadedCase
    from ..data.response import Context, RAGResponse
    from ..judges.base import Judge
    from ..metrics.base import Metric, MetricResult
    from .session import EvalSession, MetricRequest, PlannedMetric


class ResultRecorder:
    """Collects what one test learned about its case: response, error, metric results."""

    def __init__(self, loaded: LoadedCase) -> None:
        self.loaded = loaded
        self.response: RAGResponse | None = None
        self.error: str | None = None
        self.setup_error: str | None = None
        self.adapter: str | None = None
        self.judge: str | None = None
        self.requests: list[PlannedMetric] = []
        self.results: list[MetricResult] = []

    def record(self, result: MetricResult) -> None:
        self.results.append(result)

    def properties(self) -> list[tuple[str, object]]:
        """Scores and thresholds as (name, value) pairs for JUnit XML."""
        props: list[tuple[str, object]] = [("rag_case", self.loaded.key)]
        for result in self.results:
            score = "not judged" if result.score is None else round(result.score, 4)
            props.append((f"rag_{result.metric}", score))
            if result.threshold is not None:
                props.append((f"rag_{result.metric}_threshold", result.threshold))
        return props

    def payload(self) -> CasePayload:
        return case_payload(
            self.loaded,
            self.response,
            self.results,
            error=self.error,
            setup_error=self.setup_error,
            adapter=self.adapter,
            judge=self.judge,
        )


class RagCase:
    """One dataset case inside a test: its fields, the RAG system's response, and
    :meth:`evaluate`. Tests usually pass it to the ``assert_*`` helpers."""

    def __init__(
        self,
        loaded: LoadedCase,
        session: EvalSession,
        recorder: ResultRecorder,
        adapter_provider: Callable[[], RAGAdapter],
        judge_provider: Callable[[], Any],
        on_requests: Callable[[list[PlannedMetric]], None] | None = None,
        on_setup_error: Callable[[str], None] | None = None,
    ) -> None:
        self._loaded = loaded
        self._session = session
        self._recorder = recorder
        self._adapter_provider = adapter_provider
        self._judge_provider = judge_provider
        # Told what this test asks for, before it is measured (the prefetcher learns from it).
        self._on_requests = on_requests
        # Told when the run cannot be set up (a judge that cannot be built): it stops the run.
        self._on_setup_error = on_setup_error

    def __repr__(self) -> str:
        return f"<RagCase {self.id} critical={self.critical}>"

    # --- the dataset side
    @property
    def id(self) -> str:
        return self._loaded.key

    @property
    def case(self) -> Case:
        return self._loaded.case

    @property
    def question(self) -> str:
        return self.case.question

    @property
    def ground_truth(self) -> str | None:
        """The case's reference answer; ``None`` when the dataset gives none."""
        return self.case.ground_truth

    @property
    def critical(self) -> bool:
        return self.case.critical

    @property
    def tags(self) -> list[str]:
        return list(self.case.tags)

    @property
    def expected_contexts(self) -> list[str] | None:
        return self.case.expected_contexts

    # --- the RAG system's side
    @property
    def response(self) -> RAGResponse:
        """The RAG response (queried on first access, once per run for this case)."""
        if self._recorder.response is None:
            self._recorder.response = self._session.response(self._loaded, self._provide_adapter)
            if self._recorder.adapter is None and not self.case.has_recorded_answer:
                self._recorder.adapter = self._session.adapter_description
        return self._recorder.response

    def _provide_adapter(self) -> RAGAdapter:
        adapter = self._adapter_provider()
        self._recorder.adapter = adapter.describe()
        return adapter

    @property
    def answer(self) -> str:
        return self.response.answer

    @property
    def contexts(self) -> list[Context] | None:
        return self.response.contexts

    # --- metrics
    def evaluate(
        self, metric: str | Metric, *, threshold: float | None = None, **params: Any
    ) -> MetricResult:
        """Score this case with ``metric`` and record the result for the reports."""
        return self.evaluate_many([(metric, threshold, params)])[0]

    def evaluate_many(self, requests: list[MetricRequest]) -> list[MetricResult]:
        """Score several metrics concurrently (one judge round trip for all of them) and
        record every result. ``requests`` are ``(metric, threshold, params)``."""
        new = []
        for metric, _, params in requests:
            if isinstance(metric, str) and (metric, params) not in self._recorder.requests:
                new.append((metric, dict(params)))
        self._recorder.requests.extend(new)
        needs = frozenset().union(*(requirements(metric) for metric, _, _ in requests))
        judge = self._judge() if "judge" in needs else None
        if new and self._on_requests is not None:
            self._on_requests(new)
        services = self._session.services(judge)
        from ..errors import ConfigError

        try:
            results = self._session.evaluate_many(
                self._loaded, self.response, _with_companions(requests, self.settings), services
            )
        except ConfigError as exc:  # a setting found wrong only when used (a missing GPU)
            self._setup_failed(str(exc))
        results = _attach_companions(results[: len(requests)], results[len(requests) :])
        for result in results:
            self._recorder.record(result)
        return results

    def _judge(self) -> Judge | None:
        from ..errors import ConfigError, SetupFailed

        try:
            judge = self._session.judge_for(self._judge_provider())
        except SetupFailed as exc:  # from the rag_judge fixture
            self._setup_failed(str(exc.msg))
        except ConfigError as exc:
            self._setup_failed(str(exc))
        if judge is not None:
            self._recorder.judge = judge.describe()
        return judge

    def _setup_failed(self, error: str) -> NoReturn:
        """A setup error (a judge that cannot be built, a missing extra or key): the same for
        every case, so the run stops here with one message and the fatal exit code."""
        __tracebackhide__ = True
        message = self._session.redactor.text(error)
        self._recorder.setup_error = message
        if self._on_setup_error is not None:
            self._on_setup_error(message)
        pytest.fail(f"{self.id}: {message}", pytrace=False)

    @property
    def settings(self) -> Settings:
        return self._session.settings


# answer_similarity and answer_correctness run beside each other (the PRD's "answer
# comparison"): asking for one also computes the other, shown in the result's details.
_COMPANIONS = {"answer_similarity": "answer_correctness", "answer_correctness": "answer_similarity"}


def _with_companions(requests: list[MetricRequest], settings: Settings) -> list[MetricRequest]:
    names = {m if isinstance(m, str) else m.name for m, _, _ in requests}
    extra: list[MetricRequest] = []
    for metric, _, _ in requests:
        companion = _COMPANIONS.get(metric) if isinstance(metric, str) else None
        if companion is not None and companion not in names:
            names.add(companion)
            extra.append((companion, None, {}))
    return [*requests, *extra]


def _attach_companions(
    results: list[MetricResult], companions: list[MetricResult]
) -> list[MetricResult]:
    by_name = {c.metric: c for c in companions}
    out: list[MetricResult] = []
    for result in results:
        companion = by_name.get(_COMPANIONS.get(result.metric, ""))
        if companion is not None:
            details = dict(result.details)
            details["beside"] = {
                "metric": companion.metric,
                "score": companion.score,
                "reason": companion.reason,
            }
            result = result.model_copy(update={"details": details})
        out.append(result)
    return out
