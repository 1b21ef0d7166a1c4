"""The shared machinery of the schedulers: starting as the first test starts, the judge of
each judge group, learning what a test function measures, and the work of one test ahead
(its case's RAG query, then its known metrics)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

import pytest

from ...judges.gathering import HELD
from ...metrics.conversation import split_aggregate
from ...metrics.registry import get_metric, metric_class, requirements
from .plan import function_id, judge_group

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ...adapters.base import RAGAdapter
    from ...data.dataset import LoadedCase
    from ...judges.base import Judge
    from ...metrics.base import Embed, Metric, Services
    from ...runtime.limits import AdaptiveLimiter
    from ..case import CaseTest
    from ..judging import JudgeRegistry
    from ..memos import MetricMemos
    from ..queries import RagQueries, Turn
    from ..requests import PlannedMetric
    from ..session import EvalSession
    from ..tasks import PendingTasks
    from .plan import PlannedTest, TestPlan

WARM_UP_WAIT = 10.0
"""Seconds the embedding model waits for an LLM judge's first answer before loading."""


class Scheduler:
    """Evaluates a plan's tests ahead of the running one; subclasses choose which tests
    (:meth:`_move`) and whether a case's tests are counted (:meth:`finished`)."""

    counts_cases = False
    """Whether the plan's tests are all this process runs, so that a case's memos can be let
    go after its last test."""

    def __init__(
        self,
        plan: TestPlan,
        session: EvalSession,
        judges: JudgeRegistry,
        queries: RagQueries,
        memos: MetricMemos,
        tasks: PendingTasks,
    ) -> None:
        self.plan = plan
        self.session = session
        self.judges = judges
        self.queries = queries
        self.memos = memos
        self.tasks = tasks
        self.ahead: set[str] = set()  # node ids scheduled
        # The selected tests of each case that have not finished (0: all have); only a
        # scheduler that knows its tests counts them.
        self.unfinished: dict[str, int] = {}
        if self.counts_cases:
            for test in plan.tests:
                self.unfinished[test.case] = self.unfinished.get(test.case, 0) + 1
        self._started = False
        self._stopped = False
        self._adapter: RAGAdapter | None = None
        # The judge of each group whose test has resolved it: another group's judged
        # metrics wait for one of its tests to start.
        self._group_judges: dict[str, Judge | None] = {}
        self._groups_seen: set[str] = set()
        self._scheduled: set[tuple[str, str, str]] = set()
        # Set as the test teaching its function's metrics ends; what was started ahead with
        # them holds its judge questions until then (a cascade asks a case's together).
        self._teaching: asyncio.Event | None = None
        self._teaching_case = ""
        self._warmed = False

    # ------------------------------------------------------------------ the protocol

    def before_test(self, test: CaseTest, following: pytest.Item | None) -> None:
        """The first test starts the evaluation ahead; the first of each judge group gives
        the group's judge; then the window ahead moves on."""
        if self._stopped:
            return
        group = judge_group(test.item)
        if not self._started:
            self._start(test, group)
        elif group not in self._groups_seen:
            self._group_started(test, group)
        self._groups_seen.add(group)
        self._move(test, following)

    def learn(self, test: CaseTest, requests: list[PlannedMetric]) -> None:
        """A test asked for ``requests``: measure the same for its function's other cases,
        if this was not known yet."""
        if self._stopped or not self._started:
            return
        function = function_id(test.item)
        new = self._newly_known(function, requests)
        if not new:
            return
        if function not in self._group_judges and _judged(new):
            self._resolve(function, test)  # the judge this test used
        self._teaches(test)
        self._reschedule(function, new)

    def guesses(self, test: CaseTest, judge: Judge | None) -> list[PlannedMetric]:
        """The run's configured metrics that ask a judge, while the test's function has not
        said what it measures (its first test, before its first evaluation); nothing after.
        Measured beside that first evaluation with a judge that asks a case's questions in
        one request (:meth:`~...judges.base.Judge.gathers_cases`), their questions go in its
        request instead of one request per later evaluation."""
        if judge is None or not judge.gathers_cases() or self._taught_by(test):
            return []
        return [r for r in self.plan.configured if needs_judge(r)]

    def _taught_by(self, test: CaseTest) -> bool:
        """Whether what the test's function measures is known (or nothing is learned of
        it: a case made in code, a stopped run)."""
        return self._stopped or test.inline or bool(self.plan.known.get(function_id(test.item)))

    def _teaches(self, test: CaseTest) -> None:
        """The running test teaches its function's metrics: what is started ahead for the
        other cases holds its judge questions until it ends."""
        if self._teaching is None:
            self._teaching = asyncio.Event()
        teaching = self.plan.by_node.get(test.item.nodeid)
        self._teaching_case = teaching.case if teaching is not None else ""

    def _newly_known(self, function: str, requests: list[PlannedMetric]) -> list[PlannedMetric]:
        """The ``requests`` not known yet of the test function, now known."""
        known = self.plan.known.setdefault(function, [])
        new = [r for r in requests if r not in known]
        known.extend(new)
        return new

    def _reschedule(self, function: str, new: list[PlannedMetric]) -> None:
        """The function's tests within the window are scheduled again (what they already
        have is not measured twice); the later ones take the new metrics when it reaches
        them. A case whose tests have all run is left alone: nothing would read it."""
        tests = self.plan.by_function.get(function, [])
        for planned in tests:
            planned.requests.extend(new)
        self._schedule(
            [t for t in tests if t.nodeid in self.ahead and self.unfinished.get(t.case) != 0]
        )

    def finished(self, case: str) -> bool:
        self._taught()
        left = self.unfinished.get(case)
        if left is None:  # not counted (a worker's plan, a test the plan does not know)
            return False
        self.unfinished[case] = left - 1 if left > 1 else 0
        return left <= 1

    def _taught(self) -> None:
        """A test that taught its function's metrics is over: the questions of the work
        started ahead with them may be asked (:data:`~...judges.gathering.HELD`)."""
        teaching, self._teaching = self._teaching, None
        if teaching is not None:
            self.session.loop.call_soon(teaching.set)

    def stop(self) -> None:
        if self._stopped:
            return
        self._taught()
        self._stopped = True
        if self._started:
            self.session.loop.run(self.tasks.cancel())

    # ------------------------------------------------------------------ for subclasses

    def _move(self, test: CaseTest, following: pytest.Item | None) -> None:
        raise NotImplementedError

    def _schedule(self, tests: list[PlannedTest]) -> None:
        tests = [t for t in tests if self._waits(t)]
        if tests:
            self.session.loop.run(self._schedule_on_loop(tests))

    # ------------------------------------------------------------------ judges

    def _start(self, test: CaseTest, group: str) -> None:
        """Start evaluating ahead, as the first test (of judge group ``group``) starts. Its
        fixtures give the adapter and the judge; a failure there only means less is
        prefetched (the tests report it themselves)."""
        self._started = True
        session, tests = self.session, self.plan.tests
        session.progress.cases = len({t.case for t in tests})
        self._open_adapter(test)
        if _judged(r for t in self.plan.by_group.get(group, []) for r in t.requests):
            self._resolve(group, test)

    def _open_adapter(self, test: CaseTest) -> None:
        """The adapter, from the first test's fixtures, when a case has no recorded answer."""
        session = self.session
        if any(not session.case(t.case).case.has_recorded_answer for t in self.plan.tests):
            with contextlib.suppress(Exception):
                self._adapter = test.adapter()

    def _group_started(self, test: CaseTest, group: str) -> None:
        """The first test of another judge group gives the group's judge, and the group's
        judged metrics are scheduled with it (those within the window; the others as it
        reaches them)."""
        tests = self.plan.by_group.get(group, [])
        if not _judged(r for t in tests for r in t.requests):
            return
        self._resolve(group, test)
        self._schedule([t for t in tests if t.nodeid in self.ahead])

    def _resolve(self, group: str, test: CaseTest) -> None:
        """The group's judge, from one of its tests (``None`` when it has none or it fails:
        the test reports why)."""
        self._group_judges[group] = None
        with contextlib.suppress(Exception, pytest.fail.Exception, pytest.skip.Exception):
            self._group_judges[group] = test.judge()

    # ------------------------------------------------------------------ on the loop

    def _waits(self, test: PlannedTest) -> bool:
        """Whether evaluating the test's case ahead saves its test a wait: a RAG query, or a
        metric that is not immediate (a judge, a model, a custom metric's own work)."""
        if not self.session.case(test.case).case.has_recorded_answer:
            return True
        return any(not immediate(r) for r in test.requests)

    async def _schedule_on_loop(self, tests: list[PlannedTest]) -> None:
        limiter = self.session.case_limiter
        progress = self.session.progress
        for test in tests:
            # The tasks made here carry the hold, but for the teaching test's own case: that
            # test waits for them.
            teaching = self._teaching if test.case != self._teaching_case else None
            held = HELD.set(teaching)
            try:
                task = asyncio.ensure_future(self._prefetch(test, limiter))
            finally:
                HELD.reset(held)
            progress.track(test.case, task)
            self.tasks.keep(task)

    async def _prefetch(self, test: PlannedTest, limiter: AdaptiveLimiter) -> None:
        # The case slot bounds the queries; the judge limiter bounds the judging, in the order
        # the metrics were scheduled, so a slow metric never holds back the next cases.
        async with limiter.slot():
            if self._stopped or self.unfinished.get(test.case) == 0:
                return
            loaded = self.session.case(test.case)
            if self._unanswerable(loaded, test.case):
                return
            turns = await self._turns(loaded)
            if turns is None:
                return
        self._measure_ahead(test, loaded, turns)

    def _unanswerable(self, loaded: LoadedCase, case: str) -> bool:
        """Whether the case has no answer to measure ahead: none recorded, no adapter, and
        no query asked by its test."""
        return (
            not loaded.case.has_recorded_answer
            and self._adapter is None
            and not self.queries.asked(case)
        )

    async def _turns(self, loaded: LoadedCase) -> list[Turn] | None:
        """The case's RAG answer (each turn's, for a conversation); ``None`` when the adapter
        failed (the test reports the adapter's error)."""
        response_task = self.queries.task(loaded, self._adapter)
        self.tasks.keep(response_task)
        try:
            response = await asyncio.shield(response_task)
            if loaded.turns:
                return await self.queries.turns(loaded, self._adapter)
            return [(loaded, response, ())]
        except Exception:
            return None

    def _measure_ahead(self, test: PlannedTest, loaded: LoadedCase, turns: list[Turn]) -> None:
        """Schedule the case's known metrics (not awaited: tests wait for their own)."""
        judge = self._group_judges.get(test.group)
        identity = self.judges.identity(judge)
        requests = [r for r in test.requests if self._measurable(r, test.case, judge, identity)]
        if not requests or self._stopped:
            return
        self._scheduled.update((test.case, repr(r), identity) for r in requests)
        metrics = _metrics(requests)
        services = self.memos.services(loaded.key, judge, metrics)
        self._warm_up_once(metrics, judge, services)
        self._measure_turns(test.case, metrics, services, turns)

    def _measure_turns(
        self, case: str, metrics: list[Metric], services: Services, turns: list[Turn]
    ) -> None:
        """Start measuring each metric on each turn (a conversation's; one for a case)."""
        for metric in metrics:
            for turn, response, history in turns:
                task = self.memos.task(turn, response, metric, services, history=history)
                self.session.progress.track(case, task)
                self.tasks.keep(task)

    def _measurable(
        self, request: PlannedMetric, case: str, judge: Judge | None, identity: str
    ) -> bool:
        """Whether the request is measured ahead for the case: not scheduled yet with this
        judge, judged only where the group has a judge, and not immediate."""
        return (
            (case, repr(request), identity) not in self._scheduled
            and (judge is not None or not needs_judge(request))
            and not immediate(request)
        )

    def _warm_up_once(self, metrics: list[Metric], judge: Judge | None, services: Services) -> None:
        """Load the embedding model while the judge is busy, the first time metrics use it."""
        if self._warmed or not self._uses_model(metrics, judge):
            return
        self._warmed = True
        embed = services.embed or self.judges.embedder(judge)
        if embed is not None:
            warm_up = asyncio.ensure_future(self._warm_up(embed, judge))
            # A model that fails to load fails the tests that need it, with the reason.
            warm_up.add_done_callback(lambda t: t.cancelled() or t.exception())
            self.tasks.keep(warm_up)

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
        from ...judges.runtime import JudgeRuntime

        if isinstance(judge, JudgeRuntime):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.session.judge_limiter.responded.wait(), WARM_UP_WAIT)
        await embed(["warm up"])


def _metrics(requests: list[PlannedMetric]) -> list[Metric]:
    """The metrics requested; a request that names no metric, or a wrong parameter, is left
    out (its test reports its own mistake)."""
    metrics: list[Metric] = []
    for name, params in requests:
        try:
            metrics.append(get_metric(name, **split_aggregate(params)[1]))
        except (KeyError, TypeError, ValueError):
            continue
    return metrics


def _judged(requests: Iterable[PlannedMetric]) -> bool:
    """Whether any of the requests asks a judge."""
    return any(needs_judge(r) for r in requests)


def immediate(request: PlannedMetric) -> bool:
    """Whether the requested metric is computed from the case alone (never ahead)."""
    with contextlib.suppress(KeyError):
        return metric_class(request[0]).immediate
    return False


def needs_judge(request: PlannedMetric) -> bool:
    """Whether the requested metric asks a judge (nothing known for one not registered)."""
    with contextlib.suppress(KeyError):
        return "judge" in requirements(request[0])
    return False
