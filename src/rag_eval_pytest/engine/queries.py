"""The RAG system's answers, each asked once per run: the memo of responses, the time a call
may take, and every way a call can fail turned into an error of its case."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TYPE_CHECKING

from ..errors import AdapterError, raised
from ..runtime.event_loop import LoopBlocked, raised_by_user_code, watch_blocking_calls
from .session import recorded_response

if TYPE_CHECKING:
    from ..adapters.base import RAGAdapter
    from ..data.dataset import LoadedCase
    from ..data.response import RAGResponse
    from .session import EvalSession

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

    def asked(self, key: str) -> bool:
        """Whether the case's query has started (its response needs no adapter)."""
        return key in self._responses

    def task(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> asyncio.Future[RAGResponse]:
        """The (memoised) query of a case. Call on the loop."""
        if loaded.case.has_recorded_answer:
            future: asyncio.Future[RAGResponse] = asyncio.get_running_loop().create_future()
            future.set_result(self.recorded(loaded))
            return future
        task = self._responses.get(loaded.key)
        if task is None:
            assert adapter is not None, "an adapter is needed for a case not yet queried"
            if adapter not in self.adapters:
                self.adapters.append(adapter)
                self.session.add_secrets(adapter.secrets(), f"RAG adapter {adapter.describe()}")
            self.description = adapter.describe()
            task = asyncio.ensure_future(self._query(loaded, adapter))
            self._responses[loaded.key] = task
        return task

    async def response(self, loaded: LoadedCase, adapter: RAGAdapter | None) -> RAGResponse:
        """The case's response, awaited without cancelling the query shared with others."""
        return await asyncio.shield(self.task(loaded, adapter))

    def recorded(self, loaded: LoadedCase) -> RAGResponse:
        """The pre-recorded answer of a case as a response, built once (every metric of the
        case and its test read it)."""
        response = self._recorded.get(loaded.key)
        if response is None:
            response = self._recorded[loaded.key] = recorded_response(loaded)
        return response

    def release(self, key: str) -> None:
        """Let go of a case's response. Call on the loop."""
        self._responses.pop(key, None)
        self._recorded.pop(key, None)

    def call_timeout(self, adapter: RAGAdapter) -> float | None:
        """Seconds one RAG call may take: ``--rag-timeout`` (``http.timeout``) when given,
        else :data:`CALL_TIMEOUT`. The HTTP adapter bounds each of its attempts itself."""
        if adapter.kind == "http":
            return None
        http = self.session.settings.http
        return http.timeout if "timeout" in http.model_fields_set else CALL_TIMEOUT

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
