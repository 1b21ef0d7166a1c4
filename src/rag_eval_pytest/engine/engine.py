"""The run engine of one process: it owns every piece of work a test may wait for.

A process that runs tests (a plain run, or each xdist worker) has one :class:`Engine`, with
the :class:`~.judging.JudgeRegistry` beside it. The ``rag_case`` fixture is one call,
:meth:`Engine.rag_case`; everything the test then asks of its case comes back here:

* **Memos.** The RAG system is queried once per case however many tests use it, and each
  metric is measured once per case, parameter set and judge identity. A case's memos are let
  go when its last selected test has run (a case made in code: when its test has), so a run
  keeps only what later tests will read, whatever the dataset's size.
* **Evaluating ahead.** When the first test taking a case starts (it has the fixtures: the
  adapter and the judge), the engine schedules, for the tests this process will run and in
  test order (critical cases first), the RAG query and the metrics known in advance: the
  zero-code metrics, and for tests taking ``rag_case`` the metrics the same test function
  asked for, learned from its first case to ask. It works a window of tests ahead of the
  running one (:data:`AHEAD_PER_SLOT` per case slot), refilled as the tests go: far enough
  to keep the RAG system and the judge busy, near enough that the results waiting for their
  tests stay few whatever the dataset's size. Every piece of work goes through the memos,
  so a test waits for exactly its own results and nothing is done twice. Concurrency is
  bounded per case (``concurrency.limit``), per RAG query and per judge request (adaptive).
  With ``-x`` or ``--maxfail`` nothing more starts and what has not finished is cancelled.
* **Judges.** Judged metrics are evaluated ahead only with the judge of the tests that will
  read them, which only a test of the same judge group (a test function, or the zero-code
  tests of a dataset file) can resolve: a module or class may override ``rag_judge``.

Under pytest-xdist a worker does not know its tests in advance: it receives them one at a
time. There the engine looks one test ahead (pytest's ``nextitem``, :attr:`Engine.following`):
as a test starts, its case and the next test's are scheduled, so each worker keeps two cases
in flight, and xdist supplies the parallelism across workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import AdapterError, raised
from ..judges.base import VOTES
from ..metrics.base import Measurement, MetricResult, Sample, Services
from ..metrics.registry import get_metric, metric_class, requirements
from ..runtime.event_loop import LoopBlocked, raised_by_user_code, watch_blocking_calls
from .case import (
    RECORDER_KEY,
    CaseTest,
    MetricRequest,
    PlannedMetric,
    RagCase,
    attach_companions,
    with_companions,
)
from .judging import JudgeRegistry
from .session import closing_wait, make_sample, measure, recorded_response
from .zero_code import ZERO_CODE_CASE, configured_metrics

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterator

    from ..adapters.base import RAGAdapter
    from ..config.settings import Settings
    from ..data.dataset import LoadedCase
    from ..data.response import RAGResponse
    from ..judges.base import Judge
    from ..metrics.base import Embed, Metric
    from ..runtime.limits import AdaptiveLimiter
    from .session import EvalSession

CALL_TIMEOUT = 300.0
"""Seconds a RAG call of an adapter other than HTTP may take when no timeout is given."""

WARM_UP_WAIT = 10.0
"""Seconds the embedding model waits for an LLM judge's first answer before loading."""

AHEAD_PER_SLOT = 4
"""How far ahead of the running test the engine works: tests per case slot
(``concurrency.limit``; 32 tests with the default 8)."""


@dataclass
class PlannedTest:
    """One selected test: its case, the test function it belongs to, what it will measure,
    and its judge group (the tests that resolve ``rag_judge`` alike)."""

    case: str
    function: str
    requests: list[PlannedMetric]
    group: str = ""
    nodeid: str = ""

    def __post_init__(self) -> None:
        self.group = self.group or self.function


@dataclass
class Engine:
    """The work of one process's tests: memos, evaluation ahead of the tests, judges."""

    session: EvalSession
    judges: JudgeRegistry = field(init=False)
    following: pytest.Item | None = None
    """Under xdist, the test that runs after the one starting (set as each test starts)."""
    adapter_description: str | None = None
    # memos
    _responses: dict[str, asyncio.Future[RAGResponse]] = field(default_factory=dict)
    _recorded: dict[str, RAGResponse] = field(default_factory=dict)
    _measurements: dict[tuple[str, Any, str], asyncio.Future[Measurement]] = field(
        default_factory=dict
    )
    # The questions asked of judges, per case (a repeat within the case is answered from
    # memory; across cases the judge's disk cache answers it).
    _questions: dict[str, dict[tuple[str, str, str], asyncio.Future[Any]]] = field(
        default_factory=dict
    )
    _adapters: list[RAGAdapter] = field(default_factory=list)
    # evaluation ahead of the tests (set by plan)
    _tests: list[PlannedTest] = field(default_factory=list)
    _planned: bool = False
    _lookahead: bool = False
    _started: bool = False
    _stopped: bool = False
    _adapter: RAGAdapter | None = None
    _ahead: set[str] = field(default_factory=set)  # node ids scheduled
    _position: dict[str, int] = field(default_factory=dict)  # node id: place in the plan
    _cursor: int = 0  # the planned tests before it are scheduled
    _tasks: set[asyncio.Future[Any]] = field(default_factory=set)  # pending, to cancel
    # The selected tests of each case that have not finished (0: all have), and the keys of
    # its measurements, so that its memos are let go after its last test.
    _unfinished: dict[str, int] = field(default_factory=dict)
    _memo_keys: dict[str, list[tuple[str, Any, str]]] = field(default_factory=dict)
    # The judge of each group whose test has resolved it: another group's judged metrics
    # wait for one of its tests to start.
    _group_judges: dict[str, Judge | None] = field(default_factory=dict)
    _groups_seen: set[str] = field(default_factory=set)
    _scheduled: set[tuple[str, str, str]] = field(default_factory=set)
    _warmed: bool = False
    # Indexes of the planned tests, so that each test costs the same whatever the suite's size.
    _by_node: dict[str, PlannedTest] = field(default_factory=dict)
    _by_group: dict[str, list[PlannedTest]] = field(default_factory=dict)
    _by_function: dict[str, list[PlannedTest]] = field(default_factory=dict)
    _known: dict[str, list[PlannedMetric]] = field(default_factory=dict)  # per function

    def __post_init__(self) -> None:
        self.judges = JudgeRegistry(self.session)

    def __repr__(self) -> str:
        return f"Engine(session={self.session!r}, adapter={self.adapter_description!r})"

    @property
    def settings(self) -> Settings:
        return self.session.settings

    # ------------------------------------------------------------------ the fixture

    def rag_case(self, request: pytest.FixtureRequest) -> Iterator[RagCase]:
        """The ``rag_case`` fixture: the test's case, its response queried (a failing RAG
        system fails the test here), and, around it, the evaluation ahead of the tests."""
        node = request.node
        key = getattr(request, "param", None) or node.stash.get(ZERO_CODE_CASE, None)
        loaded = self.session.case(str(key))
        redactor = self.session.redactor
        test = CaseTest(node, loaded, self.judges, redactor, request.getfixturevalue)
        following, self.following = self.following, None
        self._before_test(test, following)
        recorder = node.stash[RECORDER_KEY] = test.recorder
        from ..errors import ConfigError

        try:
            self.response(test)  # query now, so a failing RAG system is a setup error
        except (AdapterError, ConfigError) as exc:
            recorder.error = self.session.redactor.text(str(exc))
        if recorder.error is not None:
            pytest.fail(f"{test.loaded.key}: {recorder.error}", pytrace=False)
        yield RagCase(test, self)
        if request.session.shouldfail or request.session.shouldstop:
            self.stop()
        self.finished(test)

    # ------------------------------------------------------------------ responses

    def response(self, test: CaseTest) -> RAGResponse:
        """The RAG response of the test's case: pre-recorded, or queried once per run."""
        recorder = test.recorder
        if recorder.response is None:
            loaded = test.loaded
            if loaded.case.has_recorded_answer:
                recorder.response = self._recorded_response(loaded)
            else:
                adapter = None if loaded.key in self._responses else test.adapter()
                recorder.response = self.session.loop.run(self._response(loaded, adapter))
                if recorder.adapter is None:
                    recorder.adapter = self.adapter_description
        return recorder.response

    async def _response(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> RAGResponse:
        return await asyncio.shield(self._response_task(loaded, adapter))

    def _response_task(
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
                self.session.add_secrets(adapter.secrets(), f"RAG adapter {adapter.describe()}")
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

    async def _query(self, loaded: LoadedCase, adapter: RAGAdapter) -> RAGResponse:
        async with self.session.rag_limiter.slot():
            return await self._timed_query(loaded, adapter)

    async def _timed_query(self, loaded: LoadedCase, adapter: RAGAdapter) -> RAGResponse:
        started = time.perf_counter()
        timeout = self.call_timeout(adapter)
        query = functools.partial(self._guarded_query, adapter, loaded.case.question)
        try:
            with watch_blocking_calls() as calls:
                if adapter.kind == "http":  # the plugin's own client, on the plugin's loop
                    response = await query()
                else:  # the RAG system's code, on a loop it may block
                    response = await self.session.rag_loop.call(query, timeout)
        except LoopBlocked:
            assert timeout is not None
            raise AdapterError(self._timed_out(adapter, timeout, 1, blocked=True)) from None
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
        """``adapter.aquery``, with any ``BaseException`` that its code raised (``SystemExit``,
        ``KeyboardInterrupt``, ``GeneratorExit``, a ``CancelledError`` of its own, a class of
        its own) turned into an error of the case: one that leaves a task stops the event
        loop or the test's fixture, and the cases after it would be lost. It is never a real
        Ctrl-C: signals reach only the main thread, not this loop's."""
        try:
            return await adapter.aquery(question)
        except Exception:
            raise  # an error of the case, a timeout: told apart by the caller
        except BaseException as exc:
            if not raised_by_user_code(exc):
                raise
            raise AdapterError(
                self._raised(adapter, exc)
                + " (whatever the RAG system raises is an error of its case, not the run's end)"
            ) from None

    def _raised(self, adapter: RAGAdapter, exc: BaseException) -> str:
        return self.session.redactor.text(raised(adapter.describe(), exc))

    def _timed_out(
        self, adapter: RAGAdapter, timeout: float, abandoned: int, *, blocked: bool = False
    ) -> str:
        message = f"{adapter.describe()} did not answer within {timeout:g} s (--rag-timeout)"
        if blocked:
            message += (
                ", blocking the event loop: an async function must not make blocking calls "
                "(time.sleep, a sync HTTP client); use asyncio.sleep or an async client, or "
                "make the function sync"
            )
        if abandoned:
            message += (
                "; the call was abandoned, but a Python thread cannot be stopped: it may go "
                "on running in the background until the run ends"
            )
        return self.session.redactor.text(message)

    def call_timeout(self, adapter: RAGAdapter) -> float | None:
        """Seconds one RAG call may take: ``--rag-timeout`` (``http.timeout``) when given,
        else :data:`CALL_TIMEOUT`. The HTTP adapter bounds each of its attempts itself."""
        if adapter.kind == "http":
            return None
        http = self.settings.http
        return http.timeout if "timeout" in http.model_fields_set else CALL_TIMEOUT

    # ------------------------------------------------------------------ metrics

    def evaluate(self, test: CaseTest, requests: list[MetricRequest]) -> list[MetricResult]:
        """Several metrics of the test's case, measured concurrently, recorded; results in
        request order. What the test asks for is learned for its function's other cases."""
        recorder = test.recorder
        new: list[PlannedMetric] = []
        for metric, _, params in requests:
            if isinstance(metric, str) and (metric, params) not in recorder.requests:
                new.append((metric, dict(params)))
        recorder.requests.extend(new)
        needs = frozenset().union(*(requirements(metric) for metric, _, _ in requests))
        judge = test.judge_for_metrics() if "judge" in needs else None
        if new and not test.inline:
            # Measured ahead for the function's other cases at once, while this test waits.
            self._learn(test, new)
        from ..errors import ConfigError

        try:
            results = self._measure_all(
                test.loaded, self.response(test), with_companions(requests), judge
            )
        except ConfigError as exc:  # a setting found wrong only when used (a missing GPU)
            test.setup_failed(str(exc))
        results = attach_companions(results[: len(requests)], results[len(requests) :])
        for result in results:
            recorder.record(result)
        return results

    def _measure_all(
        self,
        loaded: LoadedCase,
        response: RAGResponse,
        requests: list[MetricRequest],
        judge: Judge | None,
    ) -> list[MetricResult]:
        instances = [get_metric(metric, **params) for metric, _, params in requests]
        services = self.services(loaded.key, judge, instances)
        thresholds = [
            self.session.default_threshold(instance) if threshold is None else threshold
            for instance, (_, threshold, _) in zip(instances, requests, strict=True)
        ]

        async def measure_all() -> list[Measurement]:
            measured = list(
                await asyncio.gather(
                    *(
                        asyncio.shield(self._measure_task(loaded, response, m, services))
                        for m in instances
                    )
                )
            )
            # judge.passes: auto: a verdict near its threshold is asked again with more votes,
            # where they can change it; the others keep their one vote.
            votes = more_votes(judge)
            again = [
                i
                for i, (m, measurement, threshold) in enumerate(
                    zip(instances, measured, thresholds, strict=True)
                )
                if votes is not None
                and "judge" in m.requires
                and measurement.score is not None
                and abs(measurement.score - threshold) <= votes[1]
            ]
            if again and votes is not None:
                revoted = await asyncio.gather(
                    *(
                        asyncio.shield(
                            self._measure_task(loaded, response, instances[i], services, votes[0])
                        )
                        for i in again
                    )
                )
                for i, measurement in zip(again, revoted, strict=True):
                    # The first vote's cost stays counted beside the votes added to it.
                    usage = measured[i].usage + measurement.usage
                    measured[i] = measurement.model_copy(update={"usage": usage})
            return measured

        measurements = self.session.loop.run(measure_all())
        return [
            MetricResult.from_measurement(
                loaded.key,
                instance.result_name,
                measurement,
                threshold,
                self.session.settings.judge.local.unsure,
            )
            for instance, threshold, measurement in zip(
                instances, thresholds, measurements, strict=True
            )
        ]

    def services(self, case: str, judge: Judge | None, metrics: list[Metric]) -> Services:
        """What ``metrics`` of ``case`` may use: the judge, and embeddings only when one of
        them embeds (the embedding model is loaded for nothing else)."""
        embed: Embed | None = None
        if any("embeddings" in m.requires | m.optional for m in metrics):
            embed = self.judges.embedder(judge)
        return Services(
            judge=judge,
            judge_id=self.judges.identity(judge),
            embed=embed,
            memo=self._questions.setdefault(case, {}),
            scrub=self.session.redactor.data,
        )

    def _measure_task(
        self,
        loaded: LoadedCase,
        response: RAGResponse,
        metric: Metric,
        services: Services,
        votes: int | None = None,
    ) -> asyncio.Future[Measurement]:
        """The (memoised) measurement of a metric on a case, with ``votes`` per question
        when a verdict is asked again (``judge.passes: auto``). Call on the loop."""
        depends = self._depends_on(metric, services.judge) + (f" votes={votes}" if votes else "")
        memo_key = (loaded.key, metric.cache_key(), depends)
        task = self._measurements.get(memo_key)
        if task is None:
            sample = make_sample(loaded, response)
            task = asyncio.ensure_future(
                measure(metric, sample, services)
                if votes is None
                else measured_with_votes(metric, sample, services, votes)
            )
            task.add_done_callback(self._count_usage)
            self._measurements[memo_key] = task
            self._memo_keys.setdefault(loaded.key, []).append(memo_key)
        return task

    def _depends_on(self, metric: Metric, judge: Judge | None) -> str:
        """What a measurement depends on besides the case and the metric: the judge of a
        judged metric, the embedding model of an embedding metric (the judge's own or the
        offline one), nothing for the others. A test module with its own rag_judge gets its
        own results; retrieval metrics are shared by all."""
        if "judge" in metric.requires:
            return self.judges.identity(judge)
        if "embeddings" in metric.requires:
            return self.judges.identity(judge) if self.judges.embeds_itself(judge) else "model"
        return ""

    def _count_usage(self, task: asyncio.Future[Measurement]) -> None:
        if not task.cancelled() and task.exception() is None:
            self.session.progress.add_usage(task.result().usage)

    # ------------------------------------------------------------------ ahead of the tests

    def plan(self, items: list[pytest.Item], *, lookahead: bool = False) -> None:
        """Plan the evaluation ahead of the selected ``items`` (already in run order). With
        ``lookahead`` (an xdist worker, which learns its tests one by one), only the running
        test's case and the next test's are scheduled, as each test starts."""
        zero_code: list[PlannedMetric] = [
            (m.name, m.params) for m in configured_metrics(self.settings)
        ]
        tests: list[PlannedTest] = []
        for item in items:
            callspec = getattr(item, "callspec", None)
            key = callspec.params.get("rag_case") if callspec is not None else None
            if key is not None:
                tests.append(PlannedTest(str(key), function_id(item), [], nodeid=item.nodeid))
                continue
            key = item.stash.get(ZERO_CODE_CASE, None)
            if key is not None:
                tests.append(
                    PlannedTest(
                        str(key), function_id(item), list(zero_code), judge_group(item), item.nodeid
                    )
                )
        self._tests, self._planned, self._lookahead = tests, True, lookahead
        self._by_node = {t.nodeid: t for t in tests if t.nodeid}
        self._position = {t.nodeid: i for i, t in enumerate(tests) if t.nodeid}
        if not lookahead:  # a worker runs only some of the tests it collected: it keeps all
            for test in tests:
                self._unfinished[test.case] = self._unfinished.get(test.case, 0) + 1
        for test in tests:
            self._by_group.setdefault(test.group, []).append(test)
            self._by_function.setdefault(test.function, []).append(test)
            known = self._known.setdefault(test.function, [])
            known.extend(r for r in test.requests if r not in known)

    def _before_test(self, test: CaseTest, following: pytest.Item | None) -> None:
        """As a test that takes a case starts: the first one starts the evaluation ahead;
        the first of each judge group gives the group's judge; the window ahead moves on
        (with lookahead: to this test's case and the following test's)."""
        if not self._planned or self._stopped:
            return
        group = judge_group(test.item)
        if not self._started:
            self._start(test, group)
        elif group not in self._groups_seen:
            self._group_started(test, group)
        self._groups_seen.add(group)
        if self._lookahead:
            nodeids = [test.item.nodeid, *([following.nodeid] if following is not None else [])]
            new = [n for n in nodeids if n not in self._ahead]
            self._ahead.update(new)
            self._schedule([self._by_node[n] for n in new if n in self._by_node])
        else:
            self._advance(test.item.nodeid)

    def _advance(self, nodeid: str) -> None:
        """Schedule the planned tests up to the window ahead of test ``nodeid``, once less
        than half of the window is left (so a thread switch is paid every few tests)."""
        position = self._position.get(nodeid)
        if position is None:  # a test the plan does not know: a case made in code
            return
        window = AHEAD_PER_SLOT * self.settings.concurrency.limit
        if self._cursor > position + window // 2:
            return
        end = min(len(self._tests), position + 1 + window)
        new = self._tests[self._cursor : end]
        self._cursor = max(self._cursor, end)
        self._ahead.update(t.nodeid for t in new)
        self._schedule(new)

    def _start(self, test: CaseTest, group: str) -> None:
        """Start evaluating ahead, as the first test (of judge group ``group``) starts. Its
        fixtures give the adapter and the judge; a failure there only means less is
        prefetched (the tests report it themselves)."""
        self._started = True
        session = self.session
        session.progress.cases = len({t.case for t in self._tests})
        if any(not session.case(t.case).case.has_recorded_answer for t in self._tests):
            with contextlib.suppress(Exception):
                self._adapter = test.adapter()
        if any(_needs_judge(r) for t in self._by_group.get(group, []) for r in t.requests):
            self._resolve(group, test)

    def _group_started(self, test: CaseTest, group: str) -> None:
        """The first test of another judge group gives the group's judge, and the group's
        judged metrics are scheduled with it (those within the window; the others as it
        reaches them)."""
        tests = self._by_group.get(group, [])
        if not any(_needs_judge(r) for t in tests for r in t.requests):
            return
        self._resolve(group, test)
        self._schedule([t for t in tests if t.nodeid in self._ahead])

    def _resolve(self, group: str, test: CaseTest) -> None:
        """The group's judge, from one of its tests (``None`` when it has none or it fails:
        the test reports why)."""
        self._group_judges[group] = None
        with contextlib.suppress(Exception, pytest.fail.Exception, pytest.skip.Exception):
            self._group_judges[group] = test.judge()

    def _learn(self, test: CaseTest, requests: list[PlannedMetric]) -> None:
        """A test asked for ``requests``: measure the same for its function's other cases,
        if this was not known yet."""
        if self._stopped or not self._started:
            return
        function = function_id(test.item)
        known = self._known.setdefault(function, [])
        new = [r for r in requests if r not in known]
        if not new:
            return
        known.extend(new)
        if function not in self._group_judges and any(_needs_judge(r) for r in new):
            self._resolve(function, test)  # the judge this test used
        # The function's tests within the window are scheduled again (what they already
        # have is not measured twice); the later ones take the new metrics when it reaches
        # them. A case whose tests have all run is left alone: nothing would read it.
        tests = self._by_function.get(function, [])
        for planned in tests:
            planned.requests.extend(new)
        self._schedule(
            [t for t in tests if t.nodeid in self._ahead and self._unfinished.get(t.case) != 0]
        )

    def stop(self) -> None:
        """Start nothing more; cancel what has not finished (``-x``, ``--maxfail``)."""
        if self._stopped:
            return
        self._stopped = True
        if self._started:
            self.session.loop.run(self._cancel())

    def _schedule(self, tests: list[PlannedTest]) -> None:
        tests = [t for t in tests if self._waits(t)]
        if tests:
            self.session.loop.run(self._schedule_on_loop(tests))

    def _waits(self, test: PlannedTest) -> bool:
        """Whether evaluating the test's case ahead saves its test a wait: a RAG query, or a
        metric that is not immediate (a judge, a model, a custom metric's own work)."""
        if not self.session.case(test.case).case.has_recorded_answer:
            return True
        return any(not _immediate(r) for r in test.requests)

    # ------------------------------------------------------------------ on the loop

    async def _schedule_on_loop(self, tests: list[PlannedTest]) -> None:
        limiter = self.session.case_limiter
        progress = self.session.progress
        for test in tests:
            task = asyncio.ensure_future(self._prefetch(test, limiter))
            progress.track(test.case, task)
            self._keep(task)

    async def _prefetch(self, test: PlannedTest, limiter: AdaptiveLimiter) -> None:
        # The case slot bounds the queries; the judge limiter bounds the judging, in the order
        # the metrics were scheduled, so a slow metric never holds back the next cases.
        async with limiter.slot():
            if self._stopped or self._unfinished.get(test.case) == 0:
                return
            loaded = self.session.case(test.case)
            if not loaded.case.has_recorded_answer and (
                self._adapter is None and test.case not in self._responses
            ):
                return
            response_task = self._response_task(loaded, self._adapter)
            self._keep(response_task)
            try:
                response = await asyncio.shield(response_task)
            except Exception:  # the test reports the adapter's error
                return
        self._measure_ahead(test, loaded, response)

    def _measure_ahead(self, test: PlannedTest, loaded: LoadedCase, response: RAGResponse) -> None:
        """Schedule the case's known metrics (not awaited: tests wait for their own)."""
        judge = self._group_judges.get(test.group)
        identity = self.judges.identity(judge)
        requests = [
            r for r in test.requests if (test.case, repr(r), identity) not in self._scheduled
        ]
        if judge is None:
            requests = [r for r in requests if not _needs_judge(r)]
        requests = [r for r in requests if not _immediate(r)]
        if not requests or self._stopped:
            return
        self._scheduled.update((test.case, repr(r), identity) for r in requests)
        metrics: list[Metric] = []
        for name, params in requests:
            try:
                metrics.append(get_metric(name, **params))
            except (KeyError, TypeError, ValueError):  # the test reports its own mistake
                continue
        services = self.services(loaded.key, judge, metrics)
        if not self._warmed and self._uses_model(metrics, judge):
            self._warmed = True  # load the embedding model while the judge is busy
            embed = services.embed or self.judges.embedder(judge)
            if embed is not None:
                warm_up = asyncio.ensure_future(self._warm_up(embed, judge))
                # A model that fails to load fails the tests that need it, with the reason.
                warm_up.add_done_callback(lambda t: t.cancelled() or t.exception())
                self._keep(warm_up)
        for metric in metrics:
            task = self._measure_task(loaded, response, metric, services)
            self.session.progress.track(test.case, task)
            self._keep(task)

    def _uses_model(self, metrics: list[Metric], judge: Judge | None) -> bool:
        """Whether these metrics load an embedding model: an embedding metric, or a judged
        one with a judge that embeds (the offline judge)."""
        embeds = self.judges.embeds_itself(judge)
        return any(
            "embeddings" in m.requires | m.optional or (embeds and "judge" in m.requires)
            for m in metrics
        )

    async def _warm_up(self, embed: Embed, judge: Judge | None) -> None:
        """Load the embedding model before a metric needs it. Beside an LLM judge, only once
        the judge has answered: importing its SDK and sending the first requests is the
        critical path, and two large imports at once delay both."""
        from ..judges.llm import LLMJudge

        if isinstance(judge, LLMJudge):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.session.judge_limiter.responded.wait(), WARM_UP_WAIT)
        await embed(["warm up"])

    def _keep(self, task: asyncio.Future[Any]) -> None:
        """Remember pending work, to cancel on a stop. Call on the loop."""
        if not task.done():
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def finished(self, test: CaseTest) -> None:
        """A test taking a case is over: after the last selected test of its case (for a case
        made in code, after its one test), let go of the case's response and results."""
        key = test.loaded.key
        if not test.inline:
            left = self._unfinished.get(key)
            if left is None:  # not a selected test of a plan that counts (xdist)
                return
            self._unfinished[key] = left - 1 if left > 1 else 0
            if left > 1:
                return
        self.session.loop.call_soon(self._release, key)

    def _release(self, key: str) -> None:
        """Let go of a case's memos. Call on the loop."""
        for memo_key in self._memo_keys.pop(key, ()):
            self._measurements.pop(memo_key, None)
        self._questions.pop(key, None)
        self._responses.pop(key, None)
        self._recorded.pop(key, None)

    async def _cancel(self) -> None:
        pending = [t for t in self._tasks if not t.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    # ------------------------------------------------------------------ lifecycle

    def close(self, *, interrupted: bool = False) -> None:
        """Close the adapters' and judges' clients, then the session's loops. An adapter's
        own ``aclose`` runs on the loop its queries ran on, and waits no longer than the
        end of the run waits for a loop."""
        from ..adapters.base import RAGAdapter

        wait = closing_wait(interrupted)
        closers: list[Callable[[], Awaitable[Any]]] = []
        for adapter in self._adapters:
            if adapter.kind == "http":
                closers.append(adapter.aclose)
            elif type(adapter).aclose is not RAGAdapter.aclose:
                closers.append(functools.partial(self.session.rag_loop.call, adapter.aclose, wait))
        closers += [j.aclose for j in self.judges.all()]
        self.session.close(closers, interrupted=interrupted)


def _immediate(request: PlannedMetric) -> bool:
    """Whether the requested metric is computed from the case alone (never ahead)."""
    with contextlib.suppress(KeyError):
        return metric_class(request[0]).immediate
    return False


def _needs_judge(request: PlannedMetric) -> bool:
    """Whether the requested metric asks a judge (nothing known for one not registered)."""
    with contextlib.suppress(KeyError):
        return "judge" in requirements(request[0])
    return False


def function_id(item: pytest.Item) -> str:
    """The test function an item belongs to: its node id without the parameters."""
    return item.nodeid.partition("[")[0]


def judge_group(item: pytest.Item) -> str:
    """The tests that resolve ``rag_judge`` alike: a test function's cases, or the zero-code
    tests of one dataset file."""
    if item.stash.get(ZERO_CODE_CASE, None) is not None and item.parent is not None:
        return item.parent.nodeid
    return function_id(item)


def more_votes(judge: Judge | None) -> tuple[int, float] | None:
    """``(votes, margin)`` when the judge asks a verdict near its threshold again with more
    votes (an LLM judge under ``judge.passes: auto``), else ``None``."""
    most = getattr(judge, "max_passes", None)
    if most is None or most <= (getattr(judge, "passes", None) or 1):
        return None
    return int(most), float(getattr(judge, "vote_margin", 0.0))


async def measured_with_votes(
    metric: Metric, sample: Sample, services: Services, votes: int
) -> Measurement:
    """The metric measured with ``votes`` per judge question (its first vote kept), and the
    votes recorded in its details."""
    token = VOTES.set(votes)
    try:
        measured = await measure(metric, sample, services)
    finally:
        VOTES.reset(token)
    return measured.model_copy(update={"details": {**measured.details, "votes": votes}})
