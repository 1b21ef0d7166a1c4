"""The adapter contract and the conversion of whatever a RAG system returns.

An adapter answers ``query(question) -> RAGResponse`` (sync) and/or ``aquery`` (async). The
plugin always calls :meth:`RAGAdapter.aquery` from its event loop; a sync-only adapter runs in
a worker thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..data.response import RAGResponse
from ..errors import AdapterError
from ..runtime.event_loop import to_thread


class RAGAdapter:
    """Base class of adapters. Override :meth:`query` or :meth:`aquery` (or both)."""

    kind = "custom"

    def query(self, question: str) -> RAGResponse:
        raise NotImplementedError(f"{type(self).__name__} implements neither query nor aquery")

    async def aquery(self, question: str) -> RAGResponse:
        if type(self).query is RAGAdapter.query:
            raise NotImplementedError(f"{type(self).__name__} implements neither query nor aquery")
        return await to_thread(self.query, question)

    def describe(self) -> str:
        """One line for the report header, with no secrets in it."""
        return type(self).__name__

    async def aclose(self) -> None:
        """Release connections. Called once at the end of the run."""

    def secrets(self) -> list[str]:
        """Values this adapter sends that must never appear in an output (auth headers).
        The session adds them to its redactor before the first query."""
        return []


def to_response(value: object, *, origin: str) -> RAGResponse:
    """Turn what a RAG callable returned into a :class:`RAGResponse`.

    Accepted: a RAGResponse; ``(answer, contexts)``; ``(answer, contexts, sources)``; a mapping
    with ``answer`` (and ``contexts``/``sources``); a bare answer string (contexts unknown).
    """
    try:
        if isinstance(value, RAGResponse):
            return value
        if isinstance(value, str):
            return RAGResponse(answer=value, contexts=None)
        if isinstance(value, tuple) and len(value) in (2, 3):
            fields: dict[str, Any] = {"answer": value[0], "contexts": value[1]}
            if len(value) == 3:
                fields["sources"] = value[2]
            return RAGResponse.model_validate(fields)
        if isinstance(value, Mapping):
            if "answer" not in value:
                keys = ", ".join(map(str, value)) or "none"
                raise AdapterError(f"{origin} returned a mapping without 'answer' (keys: {keys})")
            allowed = {"answer", "contexts", "sources", "latency"}
            return RAGResponse.model_validate({k: v for k, v in value.items() if k in allowed})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "response"
        raise AdapterError(
            f"{origin} returned an unusable response: field {loc!r}: "
            f"{str(err['msg']).removeprefix('Value error, ')}"
        ) from None
    except TypeError as exc:
        raise AdapterError(f"{origin} returned an unusable response: {exc}") from None
    raise AdapterError(
        f"{origin} returned {type(value).__name__}; expected (answer, contexts), a mapping "
        "with 'answer', a string or a RAGResponse"
    )
