"""``LlamaIndexAdapter``: the RAG system under test is a LlamaIndex query engine (or an index).

An index is turned into a query engine with ``as_query_engine(**engine_kwargs)``. The answer
is the response text; contexts and sources come from ``source_nodes``. Queries go through
``aquery``. A chat engine (``index.as_chat_engine()``) runs conversations: each turn is
``achat(question, chat_history=[ChatMessage, ...])``, one conversation's turn at a time (a
chat engine keeps one memory, which ``chat_history`` replaces). ``llama-index-core`` is the
optional ``llamaindex`` extra, imported when the adapter is built.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..data.response import Context, RAGResponse
from ..errors import AdapterError, ConfigError
from ..extras import require_extra
from ..runtime.event_loop import to_thread
from .base import RAGAdapter, no_history
from .callable import target_of

if TYPE_CHECKING:
    from pathlib import Path

    from ..data.response import Message
from .langchain import SOURCE_KEYS

_LLAMA_SOURCE_KEYS = (*SOURCE_KEYS, "file_path")


class LlamaIndexAdapter(RAGAdapter):
    """Runs ``engine.aquery(question)`` for each case.

    ``source_key`` names the node metadata key of the source (default: ``source``,
    ``file_name``, ``filename``, ``doc_id``, ``id`` or ``file_path``, else the id of the
    document the node came from).
    """

    kind = "llamaindex"

    def __init__(
        self,
        engine: Any,
        *,
        source_key: str | None = None,
        engine_kwargs: Mapping[str, Any] | None = None,
        search_paths: Sequence[Path] = (),
    ) -> None:
        require_extra("llamaindex")
        self._name = engine if isinstance(engine, str) else type(engine).__name__
        target = _engine_of(target_of(engine, search_paths), engine_kwargs)
        self.chats = hasattr(target, "achat") or hasattr(target, "chat")
        if not (_queries(target) or self.chats):
            raise ConfigError(
                f"llamaindex target {self._name!r} is a {type(target).__name__}, neither a "
                "query engine, a chat engine nor an index"
            )
        self.engine = target
        self.source_key = source_key
        self._chat_lock: asyncio.Lock | None = None

    def describe(self) -> str:
        return f"llamaindex {self._name}"

    def query(self, question: str) -> RAGResponse:
        if not hasattr(self.engine, "query"):  # a chat engine: a conversation of one turn
            return self._convert(self.engine.chat(question, chat_history=[]))
        return self._convert(self.engine.query(question))

    async def aquery(self, question: str) -> RAGResponse:
        if hasattr(self.engine, "aquery"):
            return self._convert(await self.engine.aquery(question))
        if not hasattr(self.engine, "query"):
            return await self.aquery_turn(question, [])
        return await super().aquery(question)

    async def aquery_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        if not self.chats:
            raise AdapterError(
                no_history(
                    f"llamaindex engine {self._name}", "give a chat engine: index.as_chat_engine()"
                )
            )
        from llama_index.core.llms import ChatMessage, MessageRole

        roles = {"user": MessageRole.USER, "assistant": MessageRole.ASSISTANT}
        messages = [ChatMessage(role=roles[m["role"]], content=m["content"]) for m in history]
        if self._chat_lock is None:
            self._chat_lock = asyncio.Lock()
        async with self._chat_lock:  # one memory: one conversation's turn at a time
            if hasattr(self.engine, "achat"):
                answer = await self.engine.achat(question, chat_history=messages)
            else:
                chat = functools.partial(self.engine.chat, chat_history=messages)
                answer = await to_thread(chat, question)
        return self._convert(answer)

    def _convert(self, response: Any) -> RAGResponse:
        answer = self._answer(response)
        nodes = getattr(response, "source_nodes", None)
        contexts = None if nodes is None else [self._context(n) for n in nodes]
        return RAGResponse(answer=answer, contexts=contexts, raw=response)

    def _answer(self, response: Any) -> str:
        """The response's text (a chat's, or an agent's final response)."""
        answer = getattr(response, "response", None)
        if answer is None and hasattr(response, "get_response"):
            answer = getattr(response.get_response(), "response", None)
        if isinstance(answer, str):
            return answer
        if isinstance(response, str):
            return response
        raise AdapterError(
            f"llamaindex engine {self._name} returned a {type(response).__name__} "
            "without a text response"
        )

    def _context(self, scored: Any) -> Context:
        node = getattr(scored, "node", scored)
        getter = getattr(node, "get_content", None)
        text = getter() if callable(getter) else getattr(node, "text", None)
        if not isinstance(text, str):
            raise AdapterError(
                f"llamaindex engine {self._name} returned a source node without text "
                f"({type(node).__name__})"
            )
        return Context(text=text, source=self._source(node))

    def _source(self, node: Any) -> str | None:
        """The node's source: its metadata's (``source_key``, or the usual keys), else the id
        of the document it came from."""
        metadata = getattr(node, "metadata", None) or {}
        keys = (self.source_key,) if self.source_key else _LLAMA_SOURCE_KEYS
        source = _metadata_source(metadata, keys)
        if source is None:
            ref = getattr(node, "ref_doc_id", None)
            source = str(ref) if ref else None
        return source


def _queries(target: Any) -> bool:
    return hasattr(target, "aquery") or hasattr(target, "query")


def _engine_of(target: Any, engine_kwargs: Mapping[str, Any] | None) -> Any:
    """An index's query engine; a query or chat engine as it is."""
    if not _queries(target) and hasattr(target, "as_query_engine"):
        return target.as_query_engine(**dict(engine_kwargs or {}))
    return target


def _metadata_source(metadata: Any, keys: Sequence[str | None]) -> str | None:
    if not isinstance(metadata, Mapping):
        return None
    return next((str(metadata[k]) for k in keys if metadata.get(k) is not None), None)
