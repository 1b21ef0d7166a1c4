"""A conversation's metrics: each turn measured with its own response and the turns before it
as its history, every request judged against its threshold (the metric's default, or the
calibration's, when the test gives none), and the conversation's result of each request
made from its turns' results, by that request's aggregate. A single question is measured the
same way, as one turn without history."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from rag_eval_pytest.data.response import Message, RAGResponse
from rag_eval_pytest.engine.conversations import conversation_results, measure_turns
from rag_eval_pytest.engine.judging import JudgeRegistry
from rag_eval_pytest.engine.memos import MetricMemos
from rag_eval_pytest.engine.queries import Turn
from rag_eval_pytest.engine.session import EvalSession
from rag_eval_pytest.metrics.base import Measurement, Metric, Sample, Services
from tests.unit.engine.fakes import eval_session, loaded

CHAT = loaded("chat", turns=[{"question": f"q{n}?"} for n in (1, 2, 3)])


class Attention(Metric):
    """A metric of how much a turn has to keep in mind: 1 for a first turn, 1/2 after one
    earlier turn, 1/3 after two. Writes down what it saw."""

    name = "attention"
    default_threshold = 0.4
    seen: ClassVar[list[tuple[str, str, int]]] = []

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        earlier = len(sample.history) // 2  # a question and an answer per earlier turn
        self.seen.append((sample.case_key, sample.answer, earlier))
        return Measurement(score=1 / (1 + earlier), reason=f"{earlier} earlier turns")


def history(*answers: str) -> tuple[Message, ...]:
    messages: list[Message] = []
    for n, answer in enumerate(answers, start=1):
        messages += [
            {"role": "user", "content": f"q{n}?"},
            {"role": "assistant", "content": answer},
        ]
    return tuple(messages)


def chat_turns() -> list[Turn]:
    answers = ["a1", "a2", "a3"]
    return [
        (turn, RAGResponse(answer=answers[n], contexts=[]), history(*answers[:n]))
        for n, turn in enumerate(CHAT.turns)
    ]


@pytest.fixture
def session() -> Iterator[EvalSession]:
    Attention.seen.clear()
    session = eval_session(CHAT)
    yield session
    session.close()


def measure(session: EvalSession, turns: list[Turn], *requests: Any) -> list[list[Any]]:
    memos = MetricMemos(session, JudgeRegistry(session))
    return measure_turns(session, memos, turns, list(requests), None)


def test_each_turn_is_measured_on_its_own_answer_with_the_turns_before_it(
    session: EvalSession,
) -> None:
    by_turn = measure(session, chat_turns(), (Attention(), 0.4, {}))
    assert sorted(Attention.seen) == [
        ("chat/turn-1", "a1", 0),
        ("chat/turn-2", "a2", 1),
        ("chat/turn-3", "a3", 2),
    ]
    assert [[(r.case, r.score, r.status) for r in turn] for turn in by_turn] == [
        [("chat/turn-1", 1.0, "passed")],
        [("chat/turn-2", 0.5, "passed")],
        [("chat/turn-3", pytest.approx(1 / 3), "failed")],
    ]


def test_a_threshold_not_given_is_the_metrics_or_the_calibrations(session: EvalSession) -> None:
    turns = chat_turns()[:1]
    ((default, given),) = measure(session, turns, (Attention(), None, {}), (Attention(), 0.9, {}))
    assert (default.threshold, given.threshold) == (0.4, 0.9)
    calibrated = eval_session(
        CHAT, calibration={"metrics": {"attention": {"best_threshold": 0.25}}}
    )
    try:
        ((result,),) = measure(calibrated, turns, (Attention(), None, {}))
        assert result.threshold == 0.25
    finally:
        calibrated.close()


def test_a_single_question_is_one_turn_without_history(session: EvalSession) -> None:
    single = loaded("single", question="q?")
    response = RAGResponse(answer="a", contexts=[])
    ((result,),) = measure(session, [(single, response, ())], ("retrieval_recall", None, {}))
    # The case expects no document: recall is not judged, and the threshold is recall's own.
    assert (result.case, result.status, result.threshold) == ("single", "not_judged", 0.8)
    ((attention,),) = measure(session, [(single, response, ())], (Attention(), None, {}))
    assert attention.score == 1.0


def test_each_requests_result_is_made_from_its_turns_by_its_aggregate(
    session: EvalSession,
) -> None:
    by_turn = measure(session, chat_turns(), (Attention(), 0.4, {}), (Attention(), 0.4, {}))
    lowest, mean = conversation_results("chat", by_turn, ["min", "mean"])
    # The turns score 1, 1/2 and 1/3: the lowest is turn 3's, under 0.4; their mean
    # 11/18 meets it.
    assert (lowest.case, lowest.status) == ("chat", "failed")
    assert lowest.score == pytest.approx(1 / 3)
    assert lowest.details["turn"] == 3
    assert mean.status == "passed"
    assert mean.score == pytest.approx(11 / 18)
    assert lowest.threshold == mean.threshold == 0.4
