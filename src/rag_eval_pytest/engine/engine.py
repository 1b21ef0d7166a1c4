"""The run engine of one process: the façade that the ``rag_case`` fixture and the cases
call, over the rooms that do the work.

A process that runs tests (a plain run, or each xdist worker) has one :class:`Engine`, with
the :class:`~.judging.JudgeRegistry` beside it. The ``rag_case`` fixture is one call,
:meth:`Engine.rag_case`; everything the test then asks of its case comes back here, and
goes to one of:

* :class:`~.queries.RagQueries`: the RAG system is queried once per case however many tests
  use it, each call bounded in time and its failures turned into errors of the case.
* :class:`~.memos.MetricMemos`: each metric measured once per case, parameter set and judge
  identity (more votes where they can change a verdict). A case's memos are let go when its
  last selected test has run (a case made in code: when its test has), so a run keeps only
  what later tests will read, whatever the dataset's size.
* an :class:`~.ahead.AheadScheduler`: when the first test taking a case starts (it has the
  fixtures: the adapter and the judge), the RAG queries and the metrics known in advance are
  scheduled for the tests this process will run, in test order (critical cases first): a
  window ahead of the running test in a plain run, the next test on an xdist worker. Every
  piece goes through the memos, so a test waits for exactly its own results and nothing is
  done twice. With ``-x`` or ``--maxfail`` nothing more starts and what has not finished is
  cancelled (:class:`~.tasks.PendingTasks`).

The threshold of an assertion travels ``assertions → case → engine → metric``: the engine
fills in a metric's default and hands it to the measured result, never back to the case.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import AdapterError
from ..metrics.conversation import DEFAULT_AGGREGATE, split_aggregate
from ..metrics.registry import requirements
from .ahead import LookaheadScheduler, NoAhead, TestPlan, WindowScheduler
from .case import RECORDER_KEY, CaseTest, RagCase, ResultRecorder
from .conversations import conversation_results, measure_turns, start_guesses
from .judging import JudgeRegistry
from .memos import MetricMemos
from .queries import RagQueries
from .requests import attach_companions, with_companions
from .session import closing_wait
from .tasks import PendingTasks
from .zero_code import ZERO_CODE_CASE

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Awaitable, Callable, Iterator

    from ..config.settings import Settings
    from ..data.dataset import LoadedCase
    from ..data.response import RAGResponse
    from ..judges.base import Judge
    from ..metrics.base import MetricResult
    from ..metrics.conversation import Aggregate
    from .ahead import AheadScheduler
    from .queries import Turn
    from .requests import MetricRequest, PlannedMetric
    from .session import EvalSession


class Engine:
    """The work of one process's tests: RAG queries, measurements, the work ahead, judges."""

    def __init__(self, session: EvalSession) -> None:
        self.session = session
        self.judges = JudgeRegistry(session)
        self.queries = RagQueries(session)
        self.memos = MetricMemos(session, self.judges)
        self.tasks = PendingTasks()
        self.ahead: AheadScheduler = NoAhead()
        self.following: pytest.Item | None = None
        """Under xdist, the test that runs after the one starting (set as each test starts)."""

    def __repr__(self) -> str:
        return f"Engine(session={self.session!r}, adapter={self.adapter_description!r})"

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def adapter_description(self) -> str | None:
        return self.queries.description

    def plan(self, items: list[pytest.Item], *, lookahead: bool = False) -> None:
        """Plan the evaluation ahead of the selected ``items`` (already in run order). With
        ``lookahead`` (an xdist worker, which learns its tests one by one), only the running
        test's case and the next test's are scheduled, as each test starts."""
        scheduler = LookaheadScheduler if lookahead else WindowScheduler
        plan = TestPlan.of(items, self.settings)
        self.ahead = scheduler(
            plan, self.session, self.judges, self.queries, self.memos, self.tasks
        )

    # ------------------------------------------------------------------ the fixture

    def rag_case(self, request: pytest.FixtureRequest) -> Iterator[RagCase]:
        """The ``rag_case`` fixture: the test's case, its response queried (a failing RAG
        system fails the test here), and, around it, the evaluation ahead of the tests."""
        from ..errors import ConfigError

        node = request.node
        key = getattr(request, "param", None) or node.stash.get(ZERO_CODE_CASE, None)
        loaded = self.session.case(str(key))
        test = CaseTest(node, loaded, self.judges, self.session.redactor, request.getfixturevalue)
        following, self.following = self.following, None
        self.ahead.before_test(test, following)
        recorder = node.stash[RECORDER_KEY] = test.recorder
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

    # ------------------------------------------------------------------ what a case asks

    def response(self, test: CaseTest) -> RAGResponse:
        """The RAG response of the test's case: pre-recorded, or queried once per run (a
        conversation's: its last turn's, its turns asked in order)."""
        recorder = test.recorder
        if recorder.response is None:
            loaded = test.loaded
            if loaded.turns:
                recorder.response = self._converse(test)
            elif loaded.case.has_recorded_answer:
                recorder.response = self.queries.recorded(loaded)
            else:
                recorder.response = self._query(test)
        return recorder.response

    def _converse(self, test: CaseTest) -> RAGResponse:
        """A conversation's turns, asked in order (or recorded); its last turn's response."""
        recorder, loaded = test.recorder, test.loaded
        recorded = loaded.case.has_recorded_answer
        adapter = None if recorded or self.queries.asked(loaded.key) else test.adapter()
        recorder.turns = self.session.loop.run(self.queries.turns(loaded, adapter))
        if recorder.adapter is None and not recorded:
            recorder.adapter = self.adapter_description
        return recorder.turns[-1][1]

    def _query(self, test: CaseTest) -> RAGResponse:
        """The case's response from the RAG system, queried once per run."""
        recorder, loaded = test.recorder, test.loaded
        adapter = None if self.queries.asked(loaded.key) else test.adapter()
        response = self.session.loop.run(self.queries.response(loaded, adapter))
        if recorder.adapter is None:
            recorder.adapter = self.adapter_description
        return response

    def evaluate(
        self, test: CaseTest, requests: list[MetricRequest], turn: int = 0
    ) -> list[MetricResult]:
        """Several metrics of the test's case, measured concurrently, recorded; results in
        request order. What the test asks for is learned for its function's other cases.

        A conversation's metrics are measured on each turn (``turn``: on that turn only), and
        its result of each is the minimum (or the mean: the ``aggregate`` parameter) over
        its turns."""
        aggregates = _own_params(requests)
        new = _new_requests(test.recorder, requests)
        judge = _judge_of(test, requests)
        response = self.response(test)  # a conversation's turns are recorded with it
        turns = _turns_asked(test.recorder.turns, test.loaded, response, turn)
        guessed = self.ahead.guesses(test, judge)
        ride = start_guesses(self.session, self.memos, turns, guessed, requests, judge)
        if new and not test.inline:
            # Measured ahead for the function's other cases at once, while this test waits.
            self.ahead.learn(test, new)
        asked = with_companions(requests)
        aggregates += [DEFAULT_AGGREGATE] * (len(asked) - len(requests))  # the companions
        by_turn = self._measure(test, turns, asked, judge, ride)
        if test.recorder.turns is None:
            return _recorded(test.recorder, by_turn[0], len(requests))
        kept = _record_turns(test.recorder, turns, by_turn, len(requests))
        if turn:
            return kept
        results = conversation_results(test.loaded.key, by_turn, aggregates)
        return _recorded(test.recorder, results, len(requests))

    def _measure(
        self,
        test: CaseTest,
        turns: list[Turn],
        asked: list[MetricRequest],
        judge: Judge | None,
        ride: asyncio.Event | None,
    ) -> list[list[MetricResult]]:
        """The results of each turn; a setting found wrong only when used (a missing GPU)
        stops the run."""
        from ..errors import ConfigError

        try:
            return measure_turns(self.session, self.memos, turns, asked, judge, ride)
        except ConfigError as exc:
            test.setup_failed(str(exc))

    # ------------------------------------------------------------------ lifecycle

    def finished(self, test: CaseTest) -> None:
        """A test taking a case is over: after the last selected test of its case (for a case
        made in code, after its one test), let go of the case's response and results."""
        if test.inline or self.ahead.finished(test.loaded.key):
            self.session.loop.call_soon(self._release, test.loaded)

    def _release(self, loaded: LoadedCase) -> None:
        """Let go of a case's memos. Call on the loop."""
        self.memos.release(loaded.key)
        self.queries.release(loaded)

    def stop(self) -> None:
        """Start nothing more; cancel what has not finished (``-x``, ``--maxfail``)."""
        self.ahead.stop()

    def close(self, *, interrupted: bool = False) -> None:
        """Close the adapters' and judges' clients, then the session's loops. An adapter's
        own ``aclose`` runs on the loop its queries ran on, and waits no longer than the
        end of the run waits for a loop."""
        from ..adapters.base import RAGAdapter

        wait = closing_wait(interrupted)
        closers: list[Callable[[], Awaitable[Any]]] = []
        for adapter in self.queries.adapters:
            if adapter.kind == "http":
                closers.append(adapter.aclose)
            elif type(adapter).aclose is not RAGAdapter.aclose:
                closers.append(functools.partial(self.session.rag_loop.call, adapter.aclose, wait))
        closers += [j.aclose for j in self.judges.all()]
        self.session.close(closers, interrupted=interrupted)


def _own_params(requests: list[MetricRequest]) -> list[Aggregate]:
    """Each request's conversation aggregate; the requests keep their own parameters."""
    aggregates: list[Aggregate] = []
    for index, (metric, threshold, params) in enumerate(requests):
        aggregate, own = split_aggregate(params)
        aggregates.append(aggregate)
        requests[index] = (metric, threshold, own)
    return aggregates


def _new_requests(recorder: ResultRecorder, requests: list[MetricRequest]) -> list[PlannedMetric]:
    """The metrics named that the test asks for the first time, now recorded as asked."""
    new: list[PlannedMetric] = []
    for metric, _, params in requests:
        if isinstance(metric, str) and (metric, params) not in recorder.requests:
            new.append((metric, dict(params)))
    recorder.requests.extend(new)
    return new


def _judge_of(test: CaseTest, requests: list[MetricRequest]) -> Judge | None:
    """The test's judge for the metrics: for those judged; for those that embed, the judge's
    embeddings when it has them."""
    needs = frozenset().union(*(requirements(metric) for metric, _, _ in requests))
    if "judge" in needs:
        return test.judge_for_metrics()
    return test.judge_for_embeddings() if "embeddings" in needs else None


def _turns_asked(
    recorded: list[Turn] | None, loaded: LoadedCase, response: RAGResponse, turn: int
) -> list[Turn]:
    """The turns measured: a conversation's (``turn``: that one only); a case is measured as
    a conversation of one turn without history."""
    turns: list[Turn] = recorded or [(loaded, response, ())]
    return [turns[turn - 1]] if turn else turns


def _record_turns(
    recorder: ResultRecorder,
    turns: list[Turn],
    by_turn: list[list[MetricResult]],
    requested: int,
) -> list[MetricResult]:
    """Each turn's results recorded, with their companions; the last turn's."""
    kept: list[MetricResult] = []
    for (loaded, _, _), measured in zip(turns, by_turn, strict=True):
        kept = attach_companions(measured[:requested], measured[requested:])
        recorder.record_turn(loaded.turn, kept)
    return kept


def _recorded(
    recorder: ResultRecorder, results: list[MetricResult], requested: int
) -> list[MetricResult]:
    """The results of the ``requested`` metrics, their companions attached, recorded."""
    results = attach_companions(results[:requested], results[requested:])
    for result in results:
        recorder.record(result)
    return results
