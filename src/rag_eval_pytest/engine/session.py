"""The evaluation session of one pytest process: cases, RAG responses and metric results.

Every process that runs tests (a plain run, or each xdist worker) has one. It queries the RAG
system once per case however many tests use the case, and computes each metric once per case
and parameter set. Results leave the process on test reports (see
:mod:`..reporting.payload`); writing reports is the aggregating process's job
(:mod:`..reporting.collector`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..data.response import RAGResponse
from ..errors import AdapterError
from ..metrics.base import Measurement, Metric, MetricResult, Sample, Services
from ..metrics.registry import get_metric
from ..runtime.event_loop import LoopThread, watch_blocking_calls
from ..runtime.limits import AdaptiveLimiter
from .progress import RunProgress

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ..adapters.base import RAGAdapter
    from ..config.settings import Settings
    from ..data.dataset import DatasetCollection, LoadedCase
    from ..judges.base import Judge
    from ..judges.llm import JudgeDeadline
    from ..metrics.base import Embed
    from ..redaction import Redactor
    from ..reporting.payload import RunInfo

THREADS_TIMEOUT = 30.0
"""Seconds the end of a run waits for blocking calls still running in worker threads."""

CALL_TIMEOUT = 300.0
"""Seconds a RAG call of an adapter other than HTTP may take when no timeout is given."""

MetricRequest = tuple["str | Metric", "float | None", "dict[str, Any]"]
"""What a test asks for: (metric, threshold or None for the metric's default, parameters)."""
PlannedMetric = tuple[str, dict[str, Any]]
"""A metric to measure, by name with its parameters and without a threshold (JSON-safe, so
the prefetcher can remember what a test function measures)."""


@dataclass
class EvalSession:
    settings: Settings
    datasets: DatasetCollection
    redactor: Redactor
    run: RunInfo
    search_paths: list[Path] = field(default_factory=list)
    config_warnings: list[str] = field(default_factory=list)
    judge_cache_dir: Path | None = None
    loop: LoopThread = field(default_factory=LoopThread)
    _responses: dict[str, asyncio.Task[RAGResponse]] = field(default_factory=dict)
    _recorded: dict[str, RAGResponse] = field(default_factory=dict)
    _measurements: dict[tuple[str, Any, str], asyncio.Task[Measurement]] = field(
        default_factory=dict
    )
    _adapters: list[RAGAdapter] = field(default_factory=list)
    _default_judge: Judge | None = None
    _judges: dict[int, tuple[Any, Judge]] = field(default_factory=dict)
    _local_embed: Embed | None = None
    _judge_embeds: dict[int, Embed] = field(default_factory=dict)  # one per kept judge
    _local_embed_checked: bool = False
    adapter_description: str | None = None
    _questions: dict[tuple[str, str, str], asyncio.Future[Any]] = field(default_factory=dict)
    rag_limiter: AdaptiveLimiter = field(init=False)
    judge_limiter: AdaptiveLimiter = field(init=False)
    case_limiter: AdaptiveLimiter = field(init=False)
    judge_deadline: JudgeDeadline = field(init=False)
    progress: RunProgress = field(default_factory=RunProgress)
    notify: Callable[[str], None] | None = None  # a line of information on the terminal
    _notices: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        limits = self.settings.concurrency
        self.rag_limiter = AdaptiveLimiter(limits.rag or limits.limit)
        # Twice the cases by default: a provider's queue stays full while responses are
        # being parsed (the limiter halves itself on 429 and overload).
        self.judge_limiter = AdaptiveLimiter(limits.judge or 2 * limits.limit)
        self.case_limiter = AdaptiveLimiter(limits.limit)
        from ..judges.llm import JudgeDeadline

        self.judge_deadline = JudgeDeadline(self.settings.judge.deadline)
        # Configured auth headers are secrets in every process, the aggregating one included,
        # before any adapter exists (workers may be the ones that build it).
        from ..adapters.http import settings_secrets
        from ..redaction import url_secrets

        self.redactor.add(*settings_secrets(self.settings.http))
        self.redactor.add(*url_secrets(self.settings.judge.base_url or ""))

    def __repr__(self) -> str:
        # Short, and without the settings' credentials (``pytest -l`` prints it).
        return (
            f"EvalSession(run={self.run.run_id!r}, cases={len(self.datasets.cases)}, "
            f"adapter={self.adapter_description!r})"
        )

    # ------------------------------------------------------------------ cases

    @property
    def cases(self) -> list[LoadedCase]:
        return self.datasets.cases

    def case(self, key: str) -> LoadedCase:
        """The selected case ``key`` (``KeyError`` when there is none), by its key."""
        return self.datasets.by_key()[key]

    # ------------------------------------------------------------------ responses

    def response(
        self, loaded: LoadedCase, adapter_provider: Callable[[], RAGAdapter]
    ) -> RAGResponse:
        """The RAG response for a case: pre-recorded, or queried once and remembered."""
        if loaded.case.has_recorded_answer:
            return self._recorded_response(loaded)
        adapter = None if loaded.key in self._responses else adapter_provider()
        return self.loop.run(self._response(loaded, adapter))

    async def _response(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> RAGResponse:
        return await asyncio.shield(self.response_task(loaded, adapter))

    def response_task(
        self, loaded: LoadedCase, adapter: RAGAdapter | None
    ) -> asyncio.Future[RAGResponse]:
        """The (memoised) query of a case. Call on the loop."""
        if loaded.case.has_recorded_answer:
            future: asyncio.Future[RAGResponse] = asyncio.get_running_loop().create_future()
            future.set_result(self._recorded_response(loaded))
            return future
        task = self._responses.get(loaded.key)
        if task is None:
            assert adapter is not None, "an adapter is needed for a case not yet queried"
            if adapter not in self._adapters:
                self._adapters.append(adapter)
                self.redactor.add(*adapter.secrets())
            self.adapter_description = adapter.describe()
            task = asyncio.ensure_future(self._query(loaded, adapter))
            self._responses[loaded.key] = task
        return task

    def _recorded_response(self, loaded: LoadedCase) -> RAGResponse:
        """The pre-recorded answer of a case as a response, built once (every metric of the
        case and its test read it)."""
        response = self._recorded.get(loaded.key)
        if response is None:
            response = self._recorded[loaded.key] = recorded_response(loaded)
        return response

    def has_response(self, key: str) -> bool:
        return key in self._responses

    async def _query(self, loaded: LoadedCase, adapter: RAGAdapter) -> RAGResponse:
        async with self.rag_limiter.slot():
            return await self._timed_query(loaded, adapter)

    async def _timed_query(self, loaded: LoadedCase, adapter: RAGAdapter) -> RAGResponse:
        started = time.perf_counter()
        timeout = self.call_timeout(adapter)
        try:
            with watch_blocking_calls() as calls:
                response = await asyncio.wait_for(
                    self._guarded_query(adapter, loaded.case.question), timeout
                )
        except (AdapterError, asyncio.CancelledError):
            raise
        except Exception as exc:  # the system under test failed: an error, not a plugin crash
            if (
                isinstance(exc, asyncio.TimeoutError)
                and timeout is not None
                and time.perf_counter() - started >= timeout
            ):
                raise AdapterError(self._timed_out(adapter, timeout, calls.abandon())) from None
            raise AdapterError(self._raised(adapter, exc)) from exc
        if response.latency is None:
            response = response.model_copy(update={"latency": time.perf_counter() - started})
        return response

    async def _guarded_query(self, adapter: RAGAdapter, question: str) -> RAGResponse:
        """``adapter.aquery``, with a ``SystemExit`` or ``KeyboardInterrupt`` that its code
        raised turned into an error of the case: one that leaves a task stops the event
        loop, and every case after it would wait for ever. It is never a real Ctrl-C:
        signals reach only the main thread, not this loop's."""
        try:
            return await adapter.aquery(question)
        except (SystemExit, KeyboardInterrupt) as exc:
            raise AdapterError(
                self._raised(adapter, exc)
                + " (an exit or interrupt raised inside the RAG system is an error of its case)"
            ) from None

    def _raised(self, adapter: RAGAdapter, exc: BaseException) -> str:
        return self.redactor.text(f"{adapter.describe()} raised {type(exc).__name__}: {exc}")

    def _timed_out(self, adapter: RAGAdapter, timeout: float, abandoned: int) -> str:
        message = f"{adapter.describe()} did not answer within {timeout:g} s (--rag-timeout)"
        if abandoned:
            message += (
                "; the call was abandoned, but a Python thread cannot be stopped: it may go "
                "on running in the background until the run ends"
            )
        return self.redactor.text(message)

    def call_timeout(self, adapter: RAGAdapter) -> float | None:
        """Seconds one RAG call may take: ``--rag-timeout`` (``http.timeout``) when given,
        else :data:`CALL_TIMEOUT`. The HTTP adapter bounds each of its attempts itself."""
        if adapter.kind == "http":
            return None
        http = self.settings.http
        return http.timeout if "timeout" in http.model_fields_set else CALL_TIMEOUT

    # ------------------------------------------------------------------ judges

    def default_judge(self) -> Judge:
        """The judge the settings name (``--rag-judge``, config ``judge:``), built once.
        Raises :class:`ConfigError` when none can be built (no key, no local judge)."""
        if self._default_judge is None:
            from ..judges.factory import build_judge

            judge = build_judge(
                self.settings.judge,
                env=os.environ,
                cache_dir=self.judge_cache_dir,
                search_paths=self.search_paths,
            )
            self._keep_judge(judge, judge)
            self._default_judge = judge
        return self._default_judge

    def judge_for(self, value: Any) -> Judge | None:
        """What the ``rag_judge`` fixture gave, as a ready judge (adopted once per object):
        a :class:`Judge`, a ``prompt -> text`` callable, or ``None`` for no judge."""
        if value is None:
            return None
        kept = self._judges.get(id(value))
        if kept is not None:
            return kept[1]
        from ..judges.factory import as_judge

        judge = as_judge(value, self.settings.judge, self.judge_cache_dir)
        if judge is None:
            return None
        self._keep_judge(value, judge)
        return judge

    def _keep_judge(self, value: Any, judge: Judge) -> None:
        from ..judges.llm import LLMJudge

        # The value is kept alive with the judge, so its id() cannot be reused in this run.
        self._judges[id(value)] = (value, judge)
        if isinstance(judge, LLMJudge):
            judge.adopt(
                limiter=self.judge_limiter, redactor=self.redactor, deadline=self.judge_deadline
            )
        secrets = getattr(judge, "secrets", None)
        if callable(secrets):
            self.redactor.add(*secrets())
        if isinstance(judge, LLMJudge) and judge.cache and judge.fingerprint() is None:
            self.notice(
                f"rag-eval: judge {judge.describe()} has no stable name (a lambda, a function "
                "defined inside another, a callable object): its answers are not cached on "
                'disk; name it to cache them: CallableJudge(fn, model="my-judge-v1")'
            )

    def notice(self, line: str) -> None:
        """Tell the user something once per run, on the terminal."""
        if line in self._notices or self.notify is None:
            return
        self._notices.add(line)
        with contextlib.suppress(Exception):  # information only, never an error
            self.notify(self.redactor.text(line))

    def embedder_for(self, judge: Judge | None) -> Embed | None:
        """Embeddings for the embedding-based metrics: the judge's own when it has them,
        else the offline model when its extra is installed, else ``None``."""
        from ..judges.base import Judge as JudgeBase

        if judge is not None and type(judge).embed is not JudgeBase.embed:
            scrubbed = self._judge_embeds.get(id(judge))
            if scrubbed is None:
                scrubbed = self._judge_embeds[id(judge)] = scrubbing(judge.embed, self.redactor)
            return scrubbed
        if not self._local_embed_checked:
            self._local_embed_checked = True
            self._local_embed = local_embedder(
                self.settings.judge.local.device, self.vector_cache_dir()
            )
        return self._local_embed

    def vector_cache_dir(self) -> Path | None:
        """Where sentence vectors are kept between runs: the judge cache's folder, unless
        caching is off."""
        from ..judges.cache import JudgeCache
        from ..judges.factory import cache_for

        cache = cache_for(self.settings.judge, self.judge_cache_dir)
        return cache.directory if isinstance(cache, JudgeCache) else None

    def services(self, judge: Judge | None) -> Services:
        return Services(
            judge=judge,
            embed=self.embedder_for(judge),
            memo=self._questions,
            scrub=self.redactor.data,
        )

    # ------------------------------------------------------------------ metrics

    def evaluate_many(
        self,
        loaded: LoadedCase,
        response: RAGResponse,
        requests: list[MetricRequest],
        services: Services,
    ) -> list[MetricResult]:
        """Several metrics of one case, measured concurrently; results in request order."""
        instances = [get_metric(metric, **params) for metric, _, params in requests]

        async def measure_all() -> list[Measurement]:
            return list(
                await asyncio.gather(
                    *(self._measure(loaded, response, m, services) for m in instances)
                )
            )

        measurements = self.loop.run(measure_all())
        return [
            MetricResult.from_measurement(
                loaded.key,
                instance.name,
                measurement,
                instance.default_threshold if threshold is None else threshold,
            )
            for instance, (_, threshold, _), measurement in zip(
                instances, requests, measurements, strict=True
            )
        ]

    async def _measure(
        self, loaded: LoadedCase, response: RAGResponse, metric: Metric, services: Services
    ) -> Measurement:
        return await asyncio.shield(self.measure_task(loaded, response, metric, services))

    def measure_task(
        self, loaded: LoadedCase, response: RAGResponse, metric: Metric, services: Services
    ) -> asyncio.Task[Measurement]:
        """The (memoised) measurement of a metric on a case. Call on the loop."""
        memo_key = (loaded.key, metric.cache_key(), _services_identity(metric, services))
        task = self._measurements.get(memo_key)
        if task is None:
            task = asyncio.ensure_future(measure(metric, make_sample(loaded, response), services))
            task.add_done_callback(self._count_usage)
            self._measurements[memo_key] = task
        return task

    def _count_usage(self, task: asyncio.Task[Measurement]) -> None:
        if not task.cancelled() and task.exception() is None:
            self.progress.add_usage(task.result().usage)

    # ------------------------------------------------------------------ lifecycle

    def close(self, *, interrupted: bool = False) -> None:
        """Close clients and the loop. Blocking calls still running (the model loading, a
        slow RAG call after ``-x``) are waited for, for a while, unless the run was
        interrupted with Ctrl-C: then the process ends without them."""
        adapters = list(self._adapters)
        judges = [judge for _, judge in self._judges.values()]

        async def close_all() -> None:
            closers = [a.aclose for a in adapters] + [j.aclose for j in judges]
            for aclose in closers:
                with contextlib.suppress(Exception):  # best effort at the end of a run
                    await aclose()

        self.loop.close(close_all(), threads_timeout=0 if interrupted else THREADS_TIMEOUT)


def _services_identity(metric: Metric, services: Services) -> str:
    """What a measurement depends on besides the case and the metric: the judge of a judged
    metric (its fingerprint), the embedding model of an embedding metric, nothing for the
    others. A test module with its own rag_judge gets its own results; retrieval metrics are
    shared by all."""
    if "judge" in metric.requires:
        from ..judges.base import judge_key

        return judge_key(services.judge)
    if "embeddings" in metric.requires and services.embed is not None:
        return f"embed {id(getattr(services.embed, '__self__', services.embed))}"
    return ""


def scrubbing(embed: Embed, redactor: Redactor) -> Embed:
    """A judge's ``embed`` that never sends a known secret: its embeddings may come from a
    provider, like its answers."""

    async def scrubbed(texts: list[str]) -> list[list[float]]:
        return await embed([redactor.text(text) for text in texts])

    return scrubbed


def local_embedder(device: str = "cpu", cache_dir: Path | None = None) -> Embed | None:
    """The offline embedding model's ``embed``, or ``None`` when the extra is missing."""
    try:
        from ..judges.local.embeddings import shared_embedder
    except ImportError:
        return None
    embedder = shared_embedder(device)
    if embedder is not None:
        embedder.use_cache(cache_dir)
    return embedder.embed if embedder is not None else None


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
        expected_grades=case.expected_grades,
    )


async def measure(metric: Metric, sample: Sample, services: Services) -> Measurement:
    """Run a metric, turning missing inputs into an explicit *not judged*."""
    missing = metric.missing_input(sample, services)
    if missing is not None:
        return Measurement.not_judged(missing)
    return await metric.measure(sample, services)
