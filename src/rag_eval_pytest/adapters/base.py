"""The adapter contract and the conversion of whatever a RAG system returns.

An adapter answers ``query(question) -> RAGResponse`` (sync) and/or ``aquery`` (async). The
plugin always calls :meth:`RAGAdapter.aquery` from its event loop; a sync-only adapter runs in
a worker thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..data.response import RAGResponse
from ..errors import AdapterError
from ..runtime.event_loop import to_thread

if TYPE_CHECKING:
    from ..data.response import Message


class RAGAdapter:
    """Base class of adapters. Override :meth:`query` or :meth:`aquery` (or both)."""

    kind = "custom"

    def query(self, question: str) -> RAGResponse:
        raise NotImplementedError(f"{type(self).__name__} implements neither query nor aquery")

    async def aquery(self, question: str) -> RAGResponse:
        if type(self).query is RAGAdapter.query:
            raise NotImplementedError(f"{type(self).__name__} implements neither query nor aquery")
        return await to_thread(self.query, question)

    def query_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        """A conversation's turn: ``question`` after the earlier turns (``history``, oldest
        first). Override it (or :meth:`aquery_turn`) to run conversation cases."""
        raise NotImplementedError

    async def aquery_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        """The async form of :meth:`query_turn`; an adapter that implements neither cannot
        run a conversation, which is an error of the case."""
        if type(self).query_turn is not RAGAdapter.query_turn:
            return await to_thread(self.query_turn, question, history)
        raise AdapterError(no_history(self.describe(), "implement query_turn(question, history)"))

    def describe(self) -> str:
        """One line for the report header, with no secrets in it."""
        return type(self).__name__

    async def aclose(self) -> None:
        """Release connections. Called once at the end of the run."""

    def secrets(self) -> list[str]:
        """Values this adapter sends that must never appear in an output (auth headers).
        The session adds them to its redactor before the first query."""
        return []


def no_history(name: str, remedy: str) -> str:
    """The error of a conversation case whose RAG system takes no history."""
    return (
        f"{name} takes one question, not a conversation's history: a conversation case "
        f"needs it ({remedy}; the history is the earlier turns as "
        "[{'role': 'user'|'assistant', 'content': ...}])"
    )


def to_response(value: object, *, origin: str) -> RAGResponse:
    """Turn what a RAG callable returned into a :class:`RAGResponse`.

    Accepted: a RAGResponse; ``(answer, contexts)``; ``(answer, contexts, sources)``; a mapping
    with ``answer`` (and ``contexts``/``sources``); a bare answer string (contexts unknown).
    """
    try:
        response = _response_of(value, origin)
    except ValidationError as exc:
        raise _unusable(origin, exc) from None
    except TypeError as exc:
        raise AdapterError(f"{origin} returned an unusable response: {exc}") from None
    if response is None:
        raise AdapterError(
            f"{origin} returned {type(value).__name__}; expected (answer, contexts), a mapping "
            "with 'answer', a string or a RAGResponse"
        )
    return response


def _response_of(value: object, origin: str) -> RAGResponse | None:
    """The response ``value`` stands for, or ``None`` for a value of no accepted shape."""
    if isinstance(value, RAGResponse):
        return value
    if isinstance(value, str):
        return RAGResponse(answer=value, contexts=None)
    if isinstance(value, tuple) and len(value) in (2, 3):
        return RAGResponse.model_validate(_tuple_fields(value))
    if isinstance(value, Mapping):
        return _from_mapping(value, origin)
    return None


def _tuple_fields(value: tuple[Any, ...]) -> dict[str, Any]:
    fields: dict[str, Any] = {"answer": value[0], "contexts": value[1]}
    if len(value) == 3:
        fields["sources"] = value[2]
    return fields


def _from_mapping(value: Mapping[Any, Any], origin: str) -> RAGResponse:
    if "answer" not in value:
        keys = ", ".join(map(str, value)) or "none"
        raise AdapterError(f"{origin} returned a mapping without 'answer' (keys: {keys})")
    allowed = {"answer", "contexts", "sources", "latency"}
    return RAGResponse.model_validate({k: v for k, v in value.items() if k in allowed})


def _unusable(origin: str, exc: ValidationError) -> AdapterError:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"]) or "response"
    return AdapterError(
        f"{origin} returned an unusable response: field {loc!r}: "
        f"{str(err['msg']).removeprefix('Value error, ')}"
    )
