"""The RAG system's answers, each asked once per run: the memo of responses, the time a call
may take, and every way a call can fail turned into an error of its case."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TYPE_CHECKING, Any, NoReturn

from ..data.response import History
from ..errors import AdapterError, raised
from ..runtime.event_loop import LoopBlocked, raised_by_user_code, watch_blocking_calls
from .session import recorded_response

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine, Sequence

    from ..adapters.base import RAGAdapter
    from ..data.dataset import LoadedCase
    from ..data.response import Message, RAGResponse
    from ..runtime.event_loop import BlockingCalls
    from .session import EvalSession

Turn = tuple["LoadedCase", "RAGResponse", "Sequence[Message]"]
"""A conversation's turn as its metrics see it: the turn, its response, its history."""

CALL_TIMEOUT = 300.0
"""Seconds a RAG call of an adapter other than HTTP may take when no timeout is given."""


class RagQueries:
    """The responses of one process's cases: pre-recorded ones built once, the others queried
    once whatever the number of tests that read them, until :meth:`release`."""

    def __init__(self, session: EvalSession) -> None:
        self.session = session
        self.adapters: list[RAGAdapter] = []
        """Every adapter a query went through (their clients are closed at the end)."""
        self.description: str | None = None
        """The adapter of the latest query, as the reports name it."""
        self._responses: dict[str, asyncio.Future[RAGResponse]] = {}
        self._recorded: dict[str, RAGResponse] = {}
        self._conversations: dict[str, asyncio.Future[list[Turn]]] = {}

    def asked(self, key: str) -> bool:
        """Whether the case's query has started (its response needs no adapter)."""
        return key in self._responses or key in self._conversations

    def task(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> asyncio.Future[RAGResponse]:
        """The (memoised) query of a case (of a conversation: its last turn's response, its
        turns queried in order). Call on the loop."""
        if loaded.case.has_recorded_answer:
            future: asyncio.Future[RAGResponse] = asyncio.get_running_loop().create_future()
            future.set_result(self.recorded(loaded))
            return future
        task = self._responses.get(loaded.key)
        if task is None:
            task = self._responses[loaded.key] = self._start(loaded, adapter)
        return task

    def _start(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> asyncio.Future[RAGResponse]:
        """The query of a case not asked yet (a conversation's: its turns, in order)."""
        if loaded.turns:
            return asyncio.ensure_future(self._last_turn(loaded, adapter))
        assert adapter is not None, "an adapter is needed for a case not yet queried"
        self._use(adapter)
        return asyncio.ensure_future(self._query(loaded, adapter))

    async def _last_turn(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> RAGResponse:
        return (await self.turns(loaded, adapter))[-1][1]

    async def turns(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> list[Turn]:
        """A conversation's turns, each with its response and its history, asked once per
        run. Call on the loop."""
        task = self._conversations.get(loaded.key)
        if task is None:
            task = asyncio.ensure_future(self._ask_turns(loaded, adapter))
            self._conversations[loaded.key] = task
        return await asyncio.shield(task)

    async def _ask_turns(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> list[Turn]:
        """A turn is asked after the turns before it, with their questions and answers as
        its history (a turn with a recorded answer is not asked; its answer is the history
        of the next). A turn that fails fails the turns after it."""
        turns: list[Turn] = []
        messages: list[Message] = []  # each turn's history is a view of its start
        for turn in loaded.turns:
            history = History(messages, len(messages))
            if turn.case.has_recorded_answer:
                response = self.recorded(turn)
            else:
                task = self._responses.get(turn.key)
                if task is None:
                    assert adapter is not None, "an adapter is needed for a turn not yet queried"
                    self._use(adapter)
                    task = asyncio.ensure_future(self._query(turn, adapter, history))
                    self._responses[turn.key] = task
                response = await asyncio.shield(task)
            turns.append((turn, response, history))
            messages.append({"role": "user", "content": turn.case.question})
            messages.append({"role": "assistant", "content": response.answer})
        return turns

    def _use(self, adapter: RAGAdapter) -> None:
        if adapter not in self.adapters:
            self.adapters.append(adapter)
            self.session.add_secrets(adapter.secrets(), f"RAG adapter {adapter.describe()}")
        self.description = adapter.describe()

    async def response(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> RAGResponse:
        """The case's response, awaited without cancelling the query shared with others."""
        return await asyncio.shield(self.task(loaded, adapter))

    def recorded(self, loaded: LoadedCase) -> RAGResponse:
        """The pre-recorded answer of a case as a response, built once (every metric of the
        case and its test read it)."""
        if loaded.turns:
            return self.recorded(loaded.turns[-1])
        response = self._recorded.get(loaded.key)
        if response is None:
            response = self._recorded[loaded.key] = recorded_response(loaded)
        return response

    def release(self, loaded: LoadedCase) -> None:
        """Let go of a case's response (a conversation's: its turns' too). Call on the loop."""
        self._conversations.pop(loaded.key, None)
        for key in (loaded.key, *(turn.key for turn in loaded.turns)):
            self._responses.pop(key, None)
            self._recorded.pop(key, None)

    def call_timeout(self, adapter: RAGAdapter) -> float | None:
        """Seconds one RAG call may take: ``--rag-timeout`` (``http.timeout``) when given,
        else :data:`CALL_TIMEOUT`. The HTTP adapter bounds each of its attempts itself."""
        if adapter.kind == "http":
            return None
        http = self.session.settings.http
        return http.timeout if "timeout" in http.model_fields_set else CALL_TIMEOUT

    async def _query(
        self, loaded: LoadedCase, adapter: RAGAdapter, history: Sequence[Message] | None = None
    ) -> RAGResponse:
        """The case's query; a conversation's turn (``history`` given) is bounded in time on
        its own, and its error names the turn."""
        async with self.session.rag_limiter.slot():
            if history is None:
                return await self._timed_query(loaded, adapter, None)
            try:
                return await self._timed_query(loaded, adapter, history)
            except AdapterError as exc:
                raise AdapterError(f"turn {loaded.turn}: {exc}") from exc.__cause__

    async def _timed_query(
        self, loaded: LoadedCase, adapter: RAGAdapter, history: Sequence[Message] | None
    ) -> RAGResponse:
        started = time.perf_counter()
        timeout = self.call_timeout(adapter)
        query = functools.partial(self._guarded_query, adapter, loaded.case.question, history)
        try:
            with watch_blocking_calls() as calls:
                response = await self._call(adapter, query, timeout)
        except LoopBlocked:
            assert timeout is not None
            raise AdapterError(self._timed_out(adapter, timeout, 1, blocked=True)) from None
        except (AdapterError, asyncio.CancelledError):
            raise
        except Exception as exc:  # the system under test failed: an error, not a plugin crash
            self._raise_failed(adapter, exc, timeout, time.perf_counter() - started, calls)
        if response.latency is None:
            response = response.model_copy(update={"latency": time.perf_counter() - started})
        return response

    async def _call(
        self,
        adapter: RAGAdapter,
        query: Callable[[], Coroutine[Any, Any, RAGResponse]],
        timeout: float | None,
    ) -> RAGResponse:
        if adapter.kind == "http":  # the plugin's own client, on the plugin's loop
            return await query()
        # The RAG system's code, on a loop it may block.
        return await self.session.rag_loop.call(query, timeout)

    def _raise_failed(
        self,
        adapter: RAGAdapter,
        exc: Exception,
        timeout: float | None,
        elapsed: float,
        calls: BlockingCalls,
    ) -> NoReturn:
        """The query failed: past its time (the calls it left running abandoned), or with
        the error of the system under test."""
        if isinstance(exc, asyncio.TimeoutError) and timeout is not None and elapsed >= timeout:
            raise AdapterError(self._timed_out(adapter, timeout, calls.abandon())) from None
        raise AdapterError(self._raised(adapter, exc)) from exc

    async def _guarded_query(
        self, adapter: RAGAdapter, question: str, history: Sequence[Message] | None
    ) -> RAGResponse:
        """``adapter.aquery``, with any ``BaseException`` that its code raised (``SystemExit``,
        ``KeyboardInterrupt``, ``GeneratorExit``, a ``CancelledError`` of its own, a class of
        its own) turned into an error of the case: one that leaves a task stops the event
        loop or the test's fixture, and the cases after it would be lost. It is never a real
        Ctrl-C: signals reach only the main thread, not this loop's."""
        try:
            if history is None:
                return await adapter.aquery(question)
            return await adapter.aquery_turn(question, history)
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
