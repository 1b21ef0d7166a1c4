"""The evaluation session of one pytest process: cases, RAG responses and metric results.

Every process that runs tests (a plain run, or each xdist worker) has one. It queries the RAG
system once per case however many tests use the case, and computes each metric once per case
and parameter set. Results leave the process on test reports (see :mod:`.payload`); writing
reports is the aggregating process's job (:mod:`.collector`).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import AdapterError
from .event_loop import LoopThread
from .metrics.base import Measurement, Metric, MetricResult, Sample, Services
from .metrics.registry import get_metric
from .response import Context, RAGResponse

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from .adapters.base import RAGAdapter
    from .config import Settings
    from .dataset import DatasetCollection, LoadedCase
    from .redaction import Redactor


@dataclass(frozen=True)
class RunInfo:
    """Identity of the run, decided once by the aggregating process and sent to workers."""

    run_id: str
    started_at: str


@dataclass
class EvalSession:
    settings: Settings
    datasets: DatasetCollection
    redactor: Redactor
    run: RunInfo
    config_file: Path | None = None
    search_paths: list[Path] = field(default_factory=list)
    loop: LoopThread = field(default_factory=LoopThread)
    _responses: dict[str, asyncio.Task[RAGResponse]] = field(default_factory=dict)
    _measurements: dict[tuple[str, Any], asyncio.Task[Measurement]] = field(default_factory=dict)
    _adapters: list[RAGAdapter] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Configured auth headers are secrets in every process, the aggregating one included,
        # before any adapter exists (workers may be the ones that build it).
        from .adapters.http import settings_secrets

        self.redactor.add(*settings_secrets(self.settings.http))

    # ------------------------------------------------------------------ cases

    @property
    def cases(self) -> list[LoadedCase]:
        return self.datasets.cases

    def case(self, key: str) -> LoadedCase:
        for loaded in self.datasets.cases:
            if loaded.key == key:
                return loaded
        raise KeyError(key)

    # ------------------------------------------------------------------ responses

    def response(
        self, loaded: LoadedCase, adapter_provider: Callable[[], RAGAdapter]
    ) -> RAGResponse:
        """The RAG response for a case: pre-recorded, or queried once and remembered."""
        if loaded.case.has_recorded_answer:
            return recorded_response(loaded)
        adapter = None
        if loaded.key not in self._responses:
            adapter = adapter_provider()
            if adapter not in self._adapters:
                self._adapters.append(adapter)
                self.redactor.add(*adapter.secrets())
        return self.loop.run(self._response(loaded, adapter))

    async def _response(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> RAGResponse:
        task = self._responses.get(loaded.key)
        if task is None:
            assert adapter is not None, "an adapter is needed for a case not yet queried"
            task = asyncio.ensure_future(self._query(loaded, adapter))
            self._responses[loaded.key] = task
        return await asyncio.shield(task)

    async def _query(self, loaded: LoadedCase, adapter: RAGAdapter) -> RAGResponse:
        started = time.perf_counter()
        try:
            response = await adapter.aquery(loaded.case.question)
        except AdapterError:
            raise
        except Exception as exc:  # the system under test failed: an error, not a plugin crash
            raise AdapterError(
                self.redactor.text(f"{adapter.describe()} raised {type(exc).__name__}: {exc}")
            ) from exc
        if response.latency is None:
            response = response.model_copy(update={"latency": time.perf_counter() - started})
        return response

    # ------------------------------------------------------------------ metrics

    def evaluate(
        self,
        loaded: LoadedCase,
        response: RAGResponse,
        metric: str | Metric,
        *,
        threshold: float | None,
        services: Services,
        params: dict[str, Any],
    ) -> MetricResult:
        instance = get_metric(metric, **params)
        if threshold is None:
            threshold = instance.default_threshold
        measurement = self.loop.run(self._measure(loaded, response, instance, services))
        return MetricResult.from_measurement(loaded.key, instance.name, measurement, threshold)

    async def _measure(
        self, loaded: LoadedCase, response: RAGResponse, metric: Metric, services: Services
    ) -> Measurement:
        memo_key = (loaded.key, metric.cache_key())
        task = self._measurements.get(memo_key)
        if task is None:
            task = asyncio.ensure_future(measure(metric, make_sample(loaded, response), services))
            self._measurements[memo_key] = task
        return await asyncio.shield(task)

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        adapters = list(self._adapters)

        async def close_all() -> None:
            for adapter in adapters:
                await adapter.aclose()

        self.loop.close(close_all())


def recorded_response(loaded: LoadedCase) -> RAGResponse:
    case = loaded.case
    assert case.answer is not None
    return RAGResponse(answer=case.answer, contexts=case.contexts, latency=None)


def make_sample(loaded: LoadedCase, response: RAGResponse) -> Sample:
    case = loaded.case
    return Sample(
        case_key=loaded.key,
        question=case.question,
        ground_truth=case.ground_truth,
        answer=response.answer,
        contexts=list(response.contexts) if response.contexts is not None else None,
        sources=response.retrieved_sources,
        expected_contexts=case.expected_contexts,
    )


async def measure(metric: Metric, sample: Sample, services: Services) -> Measurement:
    """Run a metric, turning missing inputs into an explicit *not judged*."""
    missing = metric.missing_input(sample, services)
    if missing is not None:
        return Measurement.not_judged(missing)
    return await metric.measure(sample, services)


def context_payload(contexts: list[Context] | None) -> list[dict[str, str | None]] | None:
    if contexts is None:
        return None
    return [{"text": c.text, "source": c.source} for c in contexts]
