"""The RAG system's answers: each case asked once however many ask for it at once, a recorded
answer built once and never asked, a conversation asked turn by turn with the turns before
it as history, and every way a call fails (an error, an exit, no answer in time) turned into
an error of its case that names the system, masks its secrets and, for a turn, the turn."""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from rag_eval_pytest.adapters.base import RAGAdapter
from rag_eval_pytest.data.response import Message, RAGResponse
from rag_eval_pytest.engine.queries import CALL_TIMEOUT, RagQueries
from rag_eval_pytest.engine.session import EvalSession
from rag_eval_pytest.errors import AdapterError
from rag_eval_pytest.redaction import MASK
from tests.unit.engine.fakes import eval_session, loaded

SECRET = "sk-live-0123456789abcdef"
ASK = loaded("ask", question="Refunds?")
CHAT = loaded(
    "chat",
    turns=[
        {"question": "Refunds?"},
        {"question": "Recorded?", "answer": "Yes, recorded."},
        {"question": "Shipping?"},
    ],
)


class System(RAGAdapter):
    """Answers each question with ``answer to <question>``, or raises what ``fails`` gives
    for it; writes down each question and the history it came with."""

    def __init__(self, fails: dict[str, BaseException] | None = None, latency: float | None = None):
        self.fails = fails or {}
        self.latency = latency
        self.asked: list[tuple[str, list[str] | None]] = []

    def describe(self) -> str:
        return "the system"

    def secrets(self) -> list[str]:
        return [SECRET]

    async def aquery(self, question: str) -> RAGResponse:
        return self._answer(question, None)

    async def aquery_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        return self._answer(question, [m["content"] for m in history])

    def _answer(self, question: str, history: list[str] | None) -> RAGResponse:
        self.asked.append((question, history))
        if question in self.fails:
            raise self.fails[question]
        return RAGResponse(answer=f"answer to {question}", contexts=[], latency=self.latency)


@pytest.fixture
def session() -> Iterator[EvalSession]:
    session = eval_session(ASK, CHAT)
    yield session
    session.close()


def test_a_case_is_asked_once_however_many_ask_for_it_at_once(session: EvalSession) -> None:
    queries, system = RagQueries(session), System()

    async def three() -> list[RAGResponse]:
        return list(await asyncio.gather(*(queries.response(ASK, system) for _ in range(3))))

    responses = session.loop.run(three())
    assert system.asked == [("Refunds?", None)]
    assert responses[0] is responses[1] is responses[2]
    assert queries.asked("ask")
    # Asked already: a later test needs no adapter for it.
    assert session.loop.run(queries.response(ASK, None)) is responses[0]


def test_the_system_is_known_by_its_description_and_its_secrets_masked(
    session: EvalSession,
) -> None:
    queries = RagQueries(session)
    session.loop.run(queries.response(ASK, System()))
    assert queries.description == "the system"
    assert session.redactor.text(f"key {SECRET}") == f"key {MASK}"


def test_a_recorded_answer_is_built_once_and_never_asked(session: EvalSession) -> None:
    recorded = loaded("rec", question="Refunds?", answer="Within 30 days.", contexts=["c"])
    queries = RagQueries(session)
    response = queries.recorded(recorded)
    assert (response.answer, response.latency) == ("Within 30 days.", None)
    assert queries.recorded(recorded) is response
    assert session.loop.run(queries.response(recorded, None)) is response
    assert not queries.asked("rec")


def test_a_conversation_is_asked_turn_by_turn_with_the_turns_before_it(
    session: EvalSession,
) -> None:
    queries, system = RagQueries(session), System()
    turns = session.loop.run(queries.turns(CHAT, system))
    # The recorded turn is not asked; its answer is the history of the next.
    assert system.asked == [
        ("Refunds?", []),
        ("Shipping?", ["Refunds?", "answer to Refunds?", "Recorded?", "Yes, recorded."]),
    ]
    assert [(t.key, r.answer, len(h)) for t, r, h in turns] == [
        ("chat/turn-1", "answer to Refunds?", 0),
        ("chat/turn-2", "Yes, recorded.", 2),
        ("chat/turn-3", "answer to Shipping?", 4),
    ]
    # The conversation's response is its last turn's, from the same asking.
    assert session.loop.run(queries.response(CHAT, system)).answer == "answer to Shipping?"
    assert len(system.asked) == 2


def test_a_long_conversations_histories_share_its_messages(session: EvalSession) -> None:
    """Each turn's history is the start of the conversation's one list of messages: a copy
    per turn made 10,000 turns hold 100 million references (1.15 GB)."""
    turns = 3000
    chat = loaded(
        "long",
        turns=[{"question": f"Question {n}?", "answer": f"Answer {n}."} for n in range(turns)],
    )
    queries = RagQueries(session)
    tracemalloc.start()
    try:
        asked = session.loop.run(queries.turns(chat, None))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    histories = [history for _, _, history in asked]
    assert [len(h) for h in histories[:3]] == [0, 2, 4] and len(histories[-1]) == 2 * turns - 2
    assert list(histories[2]) == [
        {"role": "user", "content": "Question 0?"},
        {"role": "assistant", "content": "Answer 0."},
        {"role": "user", "content": "Question 1?"},
        {"role": "assistant", "content": "Answer 1."},
    ]
    assert histories[2][-1]["content"] == "Answer 1." and list(histories[2][1:2]) == [
        histories[2][1]
    ]
    # A copy per turn: 3,000 x 3,000 references, 72 MB.
    assert peak < 20_000_000


def test_a_failing_turn_names_its_turn_and_fails_the_turns_after_it(
    session: EvalSession,
) -> None:
    queries = RagQueries(session)
    system = System(fails={"Refunds?": RuntimeError("index offline")})
    with pytest.raises(AdapterError, match=r"^turn 1: .*the system.*index offline"):
        session.loop.run(queries.turns(CHAT, system))
    assert [q for q, _ in system.asked] == ["Refunds?"]


def test_an_error_of_the_system_is_an_error_of_its_case_with_its_secret_masked(
    session: EvalSession,
) -> None:
    queries = RagQueries(session)
    system = System(fails={"Refunds?": RuntimeError(f"key {SECRET} refused")})
    with pytest.raises(AdapterError) as failed:
        session.loop.run(queries.response(ASK, system))
    message = str(failed.value)
    assert "the system" in message and "RuntimeError" in message
    assert MASK in message and SECRET not in message


def test_an_exit_raised_by_the_system_is_an_error_of_its_case_not_the_runs_end(
    session: EvalSession,
) -> None:
    queries = RagQueries(session)
    system = System(fails={"Refunds?": SystemExit(3)})
    with pytest.raises(AdapterError, match="an error of its case, not the run's end"):
        session.loop.run(queries.response(ASK, system))


def test_the_latency_is_measured_unless_the_system_reports_its_own(
    session: EvalSession,
) -> None:
    measured = session.loop.run(RagQueries(session).response(ASK, System()))
    assert measured.latency is not None and measured.latency >= 0
    reported = session.loop.run(RagQueries(session).response(ASK, System(latency=2.5)))
    assert reported.latency == 2.5


class Http(System):
    kind = "http"


def test_a_calls_time_limit_is_the_configured_one_or_the_default() -> None:
    default = RagQueries(eval_session())
    assert default.call_timeout(System()) == CALL_TIMEOUT
    assert default.call_timeout(Http()) is None  # bounds each attempt itself
    configured = RagQueries(eval_session(http={"timeout": 12.5}))
    assert configured.call_timeout(System()) == 12.5


class Silent(System):
    async def aquery(self, question: str) -> RAGResponse:
        await asyncio.Event().wait()  # never answers
        raise AssertionError("unreachable")


def test_a_system_that_does_not_answer_in_time_is_an_error_naming_the_limit() -> None:
    session = eval_session(ASK, http={"timeout": 0.02})
    try:
        with pytest.raises(AdapterError, match=r"the system did not answer within 0.02 s"):
            session.loop.run(RagQueries(session).response(ASK, Silent()))
    finally:
        session.close()


def test_a_released_case_is_asked_again(session: EvalSession) -> None:
    queries, system = RagQueries(session), System()
    session.loop.run(queries.turns(CHAT, system))

    async def release() -> Any:
        queries.release(CHAT)

    session.loop.run(release())
    assert not queries.asked("chat")
    session.loop.run(queries.turns(CHAT, system))
    assert [q for q, _ in system.asked] == ["Refunds?", "Shipping?"] * 2
