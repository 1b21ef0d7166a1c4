"""The ``rag_case`` a test receives, and the recorder that turns its results into a payload.

Runs in the process that runs the test. One :class:`RagCase` per test item: it knows its
dataset case and asks the run's engine (:class:`CaseEngine`) for the RAG response (queried
once per run) and for metric results, which the test's :class:`ResultRecorder` keeps for the
reports. :class:`CaseTest` is what the engine knows of the test: its fixtures.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

import pytest

from ..reporting.payload import CasePayload, case_payload

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from ..adapters.base import RAGAdapter
    from ..config.settings import Settings
    from ..data.dataset import Case, LoadedCase
    from ..data.response import Context, Message, RAGResponse
    from ..judges.base import Judge
    from ..metrics.base import Metric, MetricResult
    from ..redaction import Redactor
    from .judging import JudgeRegistry
    from .queries import Turn
    from .requests import MetricRequest, PlannedMetric


RECORDER_KEY: pytest.StashKey[ResultRecorder] = pytest.StashKey()
"""The recorder of a test taking a case, on its item (the report hooks read it)."""

INLINE_INDEX = 1_000_000_000
"""The index of a case made in code: reports sort them after every dataset case, by key."""


class ResultRecorder:
    """Collects what one test learned about its case: response, error, metric results."""

    def __init__(self, loaded: LoadedCase) -> None:
        self.loaded = loaded
        self.response: RAGResponse | None = None
        self.error: str | None = None
        self.setup_error: str | None = None
        self.adapter: str | None = None
        self.judge: str | None = None
        self.judge_identity: str | None = None
        self.judge_deterministic = False
        self.judge_passes = 1
        self.requests: list[PlannedMetric] = []
        self.results: list[MetricResult] = []
        self.turns: list[Turn] | None = None
        """A conversation's turns, with their responses and histories, once asked."""
        self.turn_results: dict[int, list[MetricResult]] = {}

    def record(self, result: MetricResult) -> None:
        self.results.append(result)

    def record_turn(self, turn: int, results: list[MetricResult]) -> None:
        """The results of a conversation's turn ``turn`` (from 1)."""
        self.turn_results.setdefault(turn, []).extend(results)

    def properties(self) -> list[tuple[str, object]]:
        """Scores and thresholds as (name, value) pairs for JUnit XML."""
        props: list[tuple[str, object]] = [("rag_case", self.loaded.key)]
        for result in self.results:
            score = "not judged" if result.score is None else round(result.score, 4)
            # The names are shared by every test's report, which pytest keeps to the end.
            props.append((sys.intern(f"rag_{result.metric}"), score))
            if result.threshold is not None:
                props.append((sys.intern(f"rag_{result.metric}_threshold"), result.threshold))
        return props

    def cause_properties(self, status: str) -> list[tuple[str, object]]:
        """The test's failure cause as a (name, value) pair for JUnit XML
        (``rag_failure_cause``), decided from this test's own results by the function the
        reports use; none when the test did not fail (``status``) or nothing explains it."""
        from ..reporting.causes import failure_causes

        causes = failure_causes(self.payload(), self.results, status)
        return [("rag_failure_cause", causes[0])] if causes else []

    def payload(self) -> CasePayload:
        payload = case_payload(
            self.loaded,
            self.response,
            self.results,
            error=self.error,
            setup_error=self.setup_error,
            adapter=self.adapter,
            judge=self.judge,
        )
        if self.judge_identity is not None:
            payload["judge_identity"] = self.judge_identity
            payload["judge_deterministic"] = self.judge_deterministic
            payload["judge_passes"] = self.judge_passes
        if self.loaded.turns:
            self._add_turns(payload)
        return payload

    def _add_turns(self, payload: CasePayload) -> None:
        """A conversation's turns, each with its response and results; its latency."""
        responses = {t.turn: response for t, response, _ in self.turns or []}
        payload["latency"] = _slowest(responses.values())
        payload["turns"] = [
            case_payload(
                turn,
                responses.get(turn.turn),
                self.turn_results.get(turn.turn, []),
                adapter=self.adapter,
                judge=self.judge,
            )
            for turn in self.loaded.turns
        ]


def _slowest(responses: Iterable[RAGResponse]) -> float | None:
    """A conversation is as slow as its slowest turn: each turn is one RAG call."""
    latencies = [r.latency for r in responses if r.latency is not None]
    return max(latencies) if latencies else None


class CaseTest:
    """One test taking a case, as the engine sees it: its item, its case, its recorder and
    its fixtures. The adapter and the judge are resolved from the test's own fixtures (a
    module or class may override ``rag_judge``), the judge once. ``fixture`` is the running
    test's ``getfixturevalue``; without it (a case made in code in a test that has no
    fixtures) the judge is the run's configured one."""

    def __init__(
        self,
        item: pytest.Item,
        loaded: LoadedCase,
        judges: JudgeRegistry,
        redactor: Redactor,
        fixture: Callable[[str], Any] | None,
    ) -> None:
        self.item = item
        self.loaded = loaded
        self.recorder = ResultRecorder(loaded)
        self._fixture = fixture
        self._judges = judges
        self._redactor = redactor
        self._judge: list[Judge | None] = []  # resolved once

    @property
    def inline(self) -> bool:
        """A case made in code (``make_case``), not one of the run's datasets."""
        return self.loaded.index >= INLINE_INDEX

    @property
    def judge_resolved(self) -> bool:
        """Whether the test resolved its judge (once it is over, the fixture cannot be)."""
        return bool(self._judge)

    def adapter(self) -> RAGAdapter:
        """The test's RAG system (the ``rag_adapter`` fixture, as an adapter)."""
        from ..adapters.callable import as_adapter

        if self._fixture is None:
            raise AssertionError("a case made in code has its answer: no RAG system is called")
        adapter = as_adapter(self._fixture("rag_adapter"))
        self.recorder.adapter = adapter.describe()
        return adapter

    def judge(self) -> Judge | None:
        """The test's judge (the ``rag_judge`` fixture's, as the run built it); raises what the
        fixture raised."""
        if not self._judge:
            if self._fixture is None:
                self._judge.append(self._judges.default())
            else:
                self._judge.append(self._judges.from_fixture(self._fixture("rag_judge")))
        return self._judge[0]

    def judge_for_metrics(self) -> Judge | None:
        """The test's judge for its judged metrics: a judge that cannot be built stops the
        run (:meth:`setup_failed`)."""
        from ..errors import ConfigError, SetupFailed

        try:
            judge = self.judge()
        except SetupFailed as exc:  # from the rag_judge fixture
            self.setup_failed(str(exc.msg))
        except ConfigError as exc:
            self.setup_failed(str(exc))
        if judge is not None:
            self._record_judge(judge)
        return judge

    def _record_judge(self, judge: Judge) -> None:
        """Who judges the test's case, as its payload says: the reports name it, the trend
        and the baselines go by its identity, and its votes say how stable its verdicts are."""
        recorder = self.recorder
        recorder.judge = judge.describe()
        recorder.judge_identity = self._judges.identity(judge)
        recorder.judge_deterministic = judge.deterministic
        recorder.judge_passes = getattr(judge, "passes", None) or 1

    def judge_for_embeddings(self) -> Judge | None:
        """The test's judge for metrics that only embed, when it has embeddings of its own:
        its vectors score them, as they do beside a judged metric. ``None`` (the offline
        model embeds) when it has none, or when it cannot be built: these metrics need no
        judge, so that stops nothing."""
        from ..errors import ConfigError, SetupFailed

        try:
            judge = self.judge()
        except (SetupFailed, ConfigError):
            return None
        if not self._judges.embeds_itself(judge):
            return None
        assert judge is not None
        self._record_judge(judge)
        return judge

    def redact(self, text: str) -> str:
        """``text`` with the run's known secrets masked."""
        return self._redactor.text(text)

    def setup_failed(self, error: str) -> NoReturn:
        """A setup error (a judge that cannot be built, a missing extra or key): the same for
        every case, so the run stops here with one message and the fatal exit code."""
        __tracebackhide__ = True
        message = self._redactor.text(error)
        self.recorder.setup_error = message
        self.item.session.shouldfail = f"rag-eval: {message}"
        pytest.fail(f"{self.loaded.key}: {message}", pytrace=False)


class CaseEngine(Protocol):
    """What a :class:`RagCase` asks of the run's engine."""

    @property
    def settings(self) -> Settings: ...

    def response(self, test: CaseTest) -> RAGResponse: ...

    def evaluate(
        self, test: CaseTest, requests: list[MetricRequest], turn: int = 0
    ) -> list[MetricResult]: ...


class RagCase:
    """One case inside a test: its fields, the RAG system's response, and :meth:`evaluate`.
    The ``rag_case`` fixture gives a dataset's cases, :func:`~rag_eval_pytest.make_case`
    cases made in code. Tests usually pass it to the ``assert_*`` helpers."""

    def __init__(self, test: CaseTest, engine: CaseEngine) -> None:
        self._test = test
        self._engine = engine

    def __repr__(self) -> str:
        return f"<RagCase {self.id} critical={self.critical}>"

    def _bind(self) -> tuple[CaseTest, CaseEngine]:
        """The test this case is evaluated in, and the run's engine."""
        return self._test, self._engine

    def defer_not_judged(self, reasons: list[str]) -> None:
        """Record on the test that evaluates this case the checks it asserted that were not
        judged: a test that passes its other assertions is reported as skipped with them."""
        if reasons:
            from .unjudged import defer_not_judged

            defer_not_judged(self._bind()[0].item, reasons)

    # --- the dataset side
    @property
    def id(self) -> str:
        """The case's key in the run's reports."""
        return self._test.loaded.key

    @property
    def case(self) -> Case:
        return self._test.loaded.case

    @property
    def question(self) -> str:
        return self.case.question

    @property
    def ground_truth(self) -> str | None:
        """The case's reference answer; ``None`` when it has none."""
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

    @property
    def is_conversation(self) -> bool:
        """Whether the case is a conversation (its metrics are measured on each turn)."""
        return self.case.turns is not None

    @property
    def turns(self) -> list[TurnCase]:
        """A conversation's turns, each a case of its own for per-turn assertions
        (``assert_faithful(rag_case.turns[2], 0.9)``); empty for a single question."""
        count = len(self.case.turns or ())
        return [TurnCase(self, number) for number in range(1, count + 1)]

    def answer_of(self, result: MetricResult) -> str:
        """The answer ``result`` was measured on: a conversation's result, its turn's."""
        turn = result.details.get("turn") if self.is_conversation else None
        if isinstance(turn, int):
            return self.turns[turn - 1].answer
        return self.answer

    # --- the RAG system's side
    @property
    def response(self) -> RAGResponse:
        """The RAG response (queried on first access, once per run for this case)."""
        test, engine = self._bind()
        return engine.response(test)

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
        return self._evaluate_many(requests, 0)

    def _evaluate_many(self, requests: list[MetricRequest], turn: int) -> list[MetricResult]:
        """Score several metrics concurrently (one judge round trip for all of them) and
        record every result. ``requests`` are ``(metric, threshold, params)``; a threshold
        that is not a number in [0, 1] is an error of the test, before anything is measured."""
        from ..metrics.base import check_threshold

        requests = [
            (
                metric,
                check_threshold(threshold, metric if isinstance(metric, str) else metric.name),
                params,
            )
            for metric, threshold, params in requests
        ]
        test, engine = self._bind()
        return engine.evaluate(test, requests, turn)

    @property
    def settings(self) -> Settings:
        return self._bind()[1].settings

    def _redact(self, text: str) -> str:
        """``text`` with the run's known secrets masked, for a failure message."""
        return self._bind()[0].redact(text)


class TurnCase(RagCase):
    """Turn ``number`` (from 1) of a conversation, a case of its own: its question, its
    response, its metrics measured with the turns before it as their history. Its results
    are recorded under its conversation, for the reports."""

    def __init__(self, conversation: RagCase, number: int) -> None:
        self._conversation = conversation
        self.number = number

    def __repr__(self) -> str:
        return f"<RagCase {self.id} turn {self.number} of {self._conversation.id}>"

    def _bind(self) -> tuple[CaseTest, CaseEngine]:
        return self._conversation._bind()

    @property
    def id(self) -> str:
        from ..data.dataset import turn_key

        return turn_key(self._conversation.id, self.number)

    @property
    def case(self) -> Case:
        return self._conversation.case.turn_case(self.number)

    @property
    def is_conversation(self) -> bool:
        return False

    @property
    def history(self) -> list[Message]:
        """The earlier turns, oldest first, as the RAG system received them."""
        return list(self._turn()[2])

    @property
    def response(self) -> RAGResponse:
        return self._turn()[1]

    def _turn(self) -> Turn:
        test, engine = self._bind()
        engine.response(test)  # the conversation's turns, asked once
        assert test.recorder.turns is not None
        return test.recorder.turns[self.number - 1]

    def evaluate_many(self, requests: list[MetricRequest]) -> list[MetricResult]:
        return self._evaluate_many(requests, self.number)

    @property
    def settings(self) -> Settings:
        return self._conversation.settings

    def _redact(self, text: str) -> str:
        return self._conversation._redact(text)
