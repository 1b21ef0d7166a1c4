"""Evaluating ahead of the tests: the selected cases are queried and judged concurrently, in
test order (critical cases first), so that tests only read finished results.

Started by the first test that takes a case (it has the fixtures: the adapter and the judge),
it schedules, for every case this process will run:

* the RAG query (bounded by the session's RAG limiter);
* the metrics known in advance: the zero-code metrics, and for tests taking ``rag_case`` the
  metrics the same test function asked for, learned from the previous run (kept in pytest's
  cache) or, on a first run, from the first case of the function to finish.

Every piece of work goes through the session's memo, so a test asking for it waits for
exactly that task, and nothing is ever done twice. Concurrency is bounded per case
(``concurrency.limit``), per RAG query and per judge request (adaptive). With ``-x`` or
``--maxfail``, :meth:`Prefetcher.stop` starts nothing more and cancels what has not started.

Under pytest-xdist a worker does not know its cases in advance: it receives its tests one at
a time. There the prefetcher looks one test ahead (pytest's ``nextitem``): as a test starts,
its case and the next test's are scheduled, so each worker keeps two cases in flight, and
xdist supplies the parallelism across workers.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from ..metrics.registry import get_metric, requirements

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ..adapters.base import RAGAdapter
    from ..data.dataset import LoadedCase
    from ..data.response import RAGResponse
    from ..judges.base import Judge
    from ..runtime.limits import AdaptiveLimiter
    from .session import EvalSession, PlannedMetric

PLAN_CACHE_KEY = "rag_eval/metric_plan"
JUDGE_PLAN_CACHE_KEY = "rag_eval/judge_plan"  # each judge group's judge, by fingerprint
UNNAMED = "unnamed:"  # a judge without a fingerprint, by the first group that used it
WARM_UP_WAIT = 10.0  # seconds: a judge that never answers does not keep the model unloaded


@dataclass
class PlannedTest:
    """One selected test: its case, the test function it belongs to, what it will measure,
    and its judge group (the tests that resolve ``rag_judge`` alike: a test function, or
    the zero-code tests of one dataset file)."""

    case: str
    function: str
    requests: list[PlannedMetric]
    group: str = ""
    nodeid: str = ""

    def __post_init__(self) -> None:
        self.group = self.group or self.function


@dataclass
class Prefetcher:
    """Schedules the selected tests' work ahead of them. With ``lookahead`` (an xdist worker,
    which learns its tests one by one from the scheduler), only the running test's case and
    the next test's are scheduled, as each test starts."""

    session: EvalSession
    tests: list[PlannedTest]
    learned: dict[str, list[PlannedMetric]] = field(default_factory=dict)
    judge_plan: dict[str, str | None] = field(default_factory=dict)  # from the last run
    lookahead: bool = False
    started: bool = False
    stopped: bool = False
    _ahead: set[str] = field(default_factory=set)  # lookahead: node ids scheduled
    _tasks: list[asyncio.Future[Any]] = field(default_factory=list)
    # The judge of each group whose test has resolved it. Another group's judged metrics wait
    # for one of its tests to start: a module may override rag_judge, and its cases must not
    # be judged ahead by another module's judge.
    _judges: dict[str, Judge | None] = field(default_factory=dict)
    _confirmed: set[str] = field(default_factory=set)  # groups whose test resolved the judge
    _adapter: RAGAdapter | None = None
    _scheduled: set[tuple[str, str, int]] = field(default_factory=set)
    _warmed: bool = False
    _checked: set[str] = field(default_factory=set)  # groups seen by _group_started
    # Indexes of ``tests``, so that each test's calls cost the same whatever the suite's size.
    _by_node: dict[str, PlannedTest] = field(init=False)
    _by_group: dict[str, list[PlannedTest]] = field(init=False)
    _by_function: dict[str, list[PlannedTest]] = field(init=False)
    _known: dict[str, list[PlannedMetric]] = field(init=False)  # per function, planned or learned

    def __post_init__(self) -> None:
        self._by_node = {t.nodeid: t for t in self.tests if t.nodeid}
        self._by_group, self._by_function, self._known = {}, {}, {}
        for test in self.tests:
            self._by_group.setdefault(test.group, []).append(test)
            self._by_function.setdefault(test.function, []).append(test)
            known = self._known.setdefault(test.function, [])
            known.extend(r for r in test.requests if r not in known)

    # ------------------------------------------------------------------ from the main thread

    def before_test(
        self,
        item: pytest.Item,
        following: pytest.Item | None,
        adapter: Callable[[], RAGAdapter],
        judge: Callable[[], Judge | None],
    ) -> None:
        """As a test that takes a case starts (``following`` is the test after it, when known):
        the first one starts the evaluation ahead; the first of each judge group gives the
        group's judge; with ``lookahead``, its case and the following test's are scheduled."""
        group = judge_group(item)
        self.start(adapter, judge, group)
        self._group_started(group, judge)
        self._look_ahead([item.nodeid, *([following.nodeid] if following is not None else [])])

    def start(
        self, adapter: Callable[[], RAGAdapter], judge: Callable[[], Judge | None], group: str
    ) -> None:
        """Schedule everything known, as the first test (of judge group ``group``) starts.
        ``adapter`` and ``judge`` resolve its fixtures; a failure there only means less is
        prefetched (the tests report it themselves)."""
        if self.started or self.stopped:
            return
        self.started = True
        self.session.progress.cases = len({t.case for t in self.tests})
        if any(not self.session.case(t.case).case.has_recorded_answer for t in self.tests):
            with contextlib.suppress(Exception):
                self._adapter = adapter()
        if any(self._needs_judge(r) for t in self.tests for r in t.requests) or self.learned:
            first = self._resolve(group, judge)
            # A group whose judge had this one's fingerprint in the last run is assumed to
            # use this one (a session-wide rag_judge), and checked when its first test
            # starts. A judge without a fingerprint (a lambda) only for the groups that had
            # the very same judge object as this group in the last run.
            planned = self._planned_as(group, first)
            if first is not None and planned is not None:
                for other in {t.group for t in self.tests} - {group}:
                    if self.judge_plan.get(other) == planned:
                        self._judges[other] = first
        if not self.lookahead:
            self.session.loop.run(self._schedule(self.tests))

    def _group_started(self, group: str, judge: Callable[[], Judge | None]) -> None:
        """The first test of a judge group gives the group's judge, and the group's judged
        metrics are scheduled with it."""
        if not self.started or self.stopped or group in self._checked:
            return
        self._checked.add(group)
        if group in self._confirmed:
            return
        tests = self._by_group.get(group, [])
        if not any(self._needs_judge(r) for t in tests for r in t.requests):
            return
        assumed = self._judges.get(group)
        if self._resolve(group, judge) is assumed and assumed is not None:
            return  # judged ahead with the right judge already
        if self.lookahead:
            tests = [t for t in tests if t.nodeid in self._ahead]
        self.session.loop.run(self._schedule(tests))

    def _look_ahead(self, nodeids: list[str]) -> None:
        """Lookahead: schedule the work of these tests (the running one and the next)."""
        if not self.lookahead or not self.started or self.stopped:
            return
        new = [n for n in nodeids if n not in self._ahead]
        self._ahead.update(new)
        tests = [self._by_node[n] for n in new if n in self._by_node]
        if tests:
            self.session.loop.run(self._schedule(tests))

    def _planned_as(self, group: str, judge: Judge | None) -> str | None:
        """How the last run's plan would name ``group``'s judge, if this is the same one."""
        if judge is None:
            return None
        fingerprint = judge.fingerprint()
        if fingerprint is not None:
            return fingerprint
        planned = self.judge_plan.get(group)
        return planned if planned is not None and planned.startswith(UNNAMED) else None

    def judge_fingerprints(self) -> dict[str, str | None]:
        """The judge of each group a test resolved this run (for the next): its fingerprint,
        or for a judge without one (a lambda) only which groups shared that object, as
        ``unnamed:`` and the first such group; ``None`` for no judge."""
        confirmed = sorted(g for g in self._judges if g in self._confirmed)
        plan: dict[str, str | None] = {}
        for group in confirmed:
            judge = self._judges[group]
            fingerprint = judge.fingerprint() if judge is not None else None
            if judge is not None and fingerprint is None:
                fingerprint = UNNAMED + next(g for g in confirmed if self._judges[g] is judge)
            plan[group] = fingerprint
        return plan

    def _resolve(self, group: str, judge: Callable[[], Judge | None]) -> Judge | None:
        """The group's judge, from one of its tests (``None`` when it has none)."""
        self._confirmed.add(group)
        self._judges[group] = None
        with contextlib.suppress(Exception, pytest.fail.Exception, pytest.skip.Exception):
            self._judges[group] = judge()
        return self._judges[group]

    def learn(
        self,
        function: str,
        requests: list[PlannedMetric],
        judge: Callable[[], Judge | None] | None = None,
    ) -> None:
        """A test of ``function`` asked for ``requests``: measure the same for
        the function's other cases, if this was not known yet. ``judge`` resolves the judge
        that test used, for a first run where nothing judged was known at the start."""
        if self.stopped or not self.started or not requests:
            return
        known = self._known.setdefault(function, [])
        new = [r for r in requests if r not in known]
        if not new:
            return
        known.extend(new)
        self.learned[function] = self.learned.get(function, []) + new
        if (
            function not in self._confirmed
            and judge is not None
            and any(self._needs_judge(r) for r in new)
        ):
            self._resolve(function, judge)
        tests = self._by_function.get(function, [])
        if self.lookahead:  # the function's later tests are scheduled as they come
            for test in tests:
                test.requests.extend(new)
            pending = [t for t in tests if t.nodeid in self._ahead]
        else:
            pending = [PlannedTest(t.case, t.function, new) for t in tests]
        self.session.loop.run(self._schedule(pending))

    def after_test(
        self,
        function: str,
        requests: list[PlannedMetric],
        *,
        stopping: bool,
        judge: Callable[[], Judge | None] | None = None,
    ) -> None:
        """Called after each test that took a case."""
        if stopping:
            self.stop()
        else:
            self.learn(function, requests, judge)

    def stop(self) -> None:
        """Start nothing more; cancel what has not finished."""
        if self.stopped:
            return
        self.stopped = True
        if self.started:
            self.session.loop.run(self._cancel())

    # ------------------------------------------------------------------ on the loop

    async def _schedule(self, tests: list[PlannedTest]) -> None:
        limiter = self.session.case_limiter
        progress = self.session.progress
        for test in tests:
            task = asyncio.ensure_future(self._prefetch(test, limiter))
            progress.track(test.case, task)
            self._tasks.append(task)

    async def _prefetch(self, test: PlannedTest, limiter: AdaptiveLimiter) -> None:
        # The case slot bounds the queries; the judge limiter bounds the judging, in the order
        # the metrics were scheduled, so a slow metric never holds back the next cases.
        async with limiter.slot():
            if self.stopped:
                return
            session = self.session
            loaded = session.case(test.case)
            if not loaded.case.has_recorded_answer and (
                self._adapter is None and not session.has_response(test.case)
            ):
                return
            response_task = session.response_task(loaded, self._adapter)
            self._tasks.append(response_task)
            try:
                response = await asyncio.shield(response_task)
            except Exception:  # the test reports the adapter's error
                return
        self._measure(test, loaded, response)

    def _measure(self, test: PlannedTest, loaded: LoadedCase, response: RAGResponse) -> None:
        """Schedule the case's known metrics (not awaited: tests wait for their own)."""
        session = self.session
        judge = self._judges.get(test.group)
        requests = [
            r for r in test.requests if (test.case, repr(r), id(judge)) not in self._scheduled
        ]
        if judge is None:
            requests = [r for r in requests if not self._needs_judge(r)]
        if not requests or self.stopped:
            return
        self._scheduled.update((test.case, repr(r), id(judge)) for r in requests)
        services = session.services(judge)
        if services.embed is not None and not self._warmed and any(map(_uses_model, requests)):
            self._warmed = True  # load the embedding model while the judge is busy
            warm_up = asyncio.ensure_future(self._warm_up(services.embed, judge))
            # A model that fails to load fails the tests that need it, with the reason.
            warm_up.add_done_callback(lambda t: t.cancelled() or t.exception())
            self._tasks.append(warm_up)
        for name, params in requests:
            try:
                metric = get_metric(name, **params)
            except (KeyError, TypeError, ValueError):  # the test reports its own mistake
                continue
            task = session.measure_task(loaded, response, metric, services)
            session.progress.track(test.case, task)
            self._tasks.append(task)

    async def _warm_up(
        self, embed: Callable[[list[str]], Awaitable[Any]], judge: Judge | None
    ) -> None:
        """Load the embedding model before a metric needs it. Beside an LLM judge, only once
        the judge has answered: importing its SDK and sending the first requests is the
        critical path, and two large imports at once delay both."""
        from ..judges.llm import LLMJudge

        if isinstance(judge, LLMJudge):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.session.judge_limiter.responded.wait(), WARM_UP_WAIT)
        await embed(["warm up"])

    async def _cancel(self) -> None:
        pending = [t for t in self._tasks if not t.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    @staticmethod
    def _needs_judge(request: PlannedMetric) -> bool:
        return "judge" in _requires(request)


def _requires(request: PlannedMetric) -> frozenset[str]:
    """What the requested metric needs (nothing known for a metric not registered)."""
    with contextlib.suppress(KeyError):
        return requirements(request[0])
    return frozenset()


def _uses_model(request: PlannedMetric) -> bool:
    """Whether a metric may need the embedding model: the embedding metrics, and every
    judged one (the local judge embeds; answer relevance embeds beside any judge)."""
    return bool({"judge", "embeddings"} & _requires(request))


def function_id(item: pytest.Item) -> str:
    """The test function an item belongs to: its node id without the parameters."""
    return item.nodeid.partition("[")[0]


def judge_group(item: pytest.Item) -> str:
    """The tests that resolve ``rag_judge`` alike: a test function's cases, or the zero-code
    tests of one dataset file."""
    from .zero_code import ZERO_CODE_CASE

    if item.stash.get(ZERO_CODE_CASE, None) is not None and item.parent is not None:
        return item.parent.nodeid
    return function_id(item)


def plan_tests(
    items: list[pytest.Item],
    session: EvalSession,
    learned: dict[str, list[PlannedMetric]],
    *,
    judge_plan: dict[str, str | None] | None = None,
    lookahead: bool = False,
) -> Prefetcher:
    """The prefetcher for the selected ``items`` (already in run order)."""
    from .zero_code import ZERO_CODE_CASE, configured_metrics

    zero_code: list[PlannedMetric] = [
        (m.name, m.params) for m in configured_metrics(session.settings)
    ]
    tests: list[PlannedTest] = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        key = callspec.params.get("rag_case") if callspec is not None else None
        if key is not None:
            function = function_id(item)
            tests.append(
                PlannedTest(str(key), function, list(learned.get(function, [])), nodeid=item.nodeid)
            )
            continue
        key = item.stash.get(ZERO_CODE_CASE, None)
        if key is not None:
            tests.append(
                PlannedTest(
                    str(key), function_id(item), list(zero_code), judge_group(item), item.nodeid
                )
            )
    functions = {t.function for t in tests}
    return Prefetcher(
        session,
        tests,
        learned={f: r for f, r in learned.items() if f in functions},
        judge_plan=judge_plan or {},
        lookahead=lookahead,
    )


def read_learned(cache: Any) -> dict[str, list[PlannedMetric]]:
    """What each test function measured in earlier runs (pytest's cache), validated."""
    raw = cache.get(PLAN_CACHE_KEY, {}) if cache is not None else {}
    learned: dict[str, list[PlannedMetric]] = {}
    if not isinstance(raw, dict):
        return learned
    for function, requests in raw.items():
        if isinstance(function, str) and isinstance(requests, list):
            learned[function] = [
                (r[0], r[1])
                for r in requests
                if isinstance(r, list)
                and len(r) == 2
                and isinstance(r[0], str)
                and isinstance(r[1], dict)
            ]
    return learned


def read_judge_plan(cache: Any) -> dict[str, str | None]:
    """Each judge group's judge fingerprint in earlier runs (pytest's cache)."""
    raw = cache.get(JUDGE_PLAN_CACHE_KEY, {}) if cache is not None else {}
    if not isinstance(raw, dict):
        return {}
    return {
        g: d for g, d in raw.items() if isinstance(g, str) and (d is None or isinstance(d, str))
    }


def write_learned(cache: Any, prefetcher: Prefetcher) -> None:
    """Remember what each test function measured and which judge each group used."""
    if cache is None:
        return
    with contextlib.suppress(Exception):  # the cache is an optimisation, never an error
        if prefetcher.learned:
            merged = read_learned(cache)
            merged.update(prefetcher.learned)
            cache.set(PLAN_CACHE_KEY, {f: [list(r) for r in rs] for f, rs in merged.items()})
        judges = prefetcher.judge_fingerprints()
        if judges:
            cache.set(JUDGE_PLAN_CACHE_KEY, {**read_judge_plan(cache), **judges})
