"""``LangChainAdapter``: the RAG system under test is a LangChain ``Runnable``.

The chain is an object or a ``module:chain`` / ``path/to/rag.py:chain`` target. Its output is
read in the common retrieval-chain shape ``{"answer": ..., "context": [Document, ...]}`` (keys
configurable); a plain string or message output is an answer with unknown contexts. Documents
become contexts, their metadata gives the sources. Queries go through ``ainvoke``.
``langchain-core`` is the optional ``langchain`` extra, imported when the adapter is built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..data.response import Context, RAGResponse
from ..errors import AdapterError, ConfigError
from ..extras import require_extra
from .base import RAGAdapter
from .callable import target_of

if TYPE_CHECKING:
    from pathlib import Path

    from ..data.response import Message


class LangChainAdapter(RAGAdapter):
    """Runs ``chain.ainvoke(question)`` (or ``{input_key: question}``) for each case.

    ``answer_key`` and ``context_key`` name the answer and the retrieved documents in a
    mapping output; a conversation's turn is ``{input_key or "input": question, history_key:
    [("human" | "ai", text), ...]}`` (``history_key`` defaults to ``chat_history``);
    ``source_key`` names the metadata key of a document's source (default:
    ``source``, ``file_name``, ``filename``, ``doc_id`` or ``id``, else the document's id).
    """

    kind = "langchain"

    def __init__(
        self,
        chain: Any,
        *,
        input_key: str | None = None,
        answer_key: str = "answer",
        context_key: str = "context",
        source_key: str | None = None,
        history_key: str = "chat_history",
        search_paths: Sequence[Path] = (),
    ) -> None:
        require_extra("langchain")
        self._name = chain if isinstance(chain, str) else type(chain).__name__
        target = target_of(chain, search_paths)
        if not (hasattr(target, "ainvoke") or hasattr(target, "invoke")):
            raise ConfigError(
                f"langchain target {self._name!r} is a {type(target).__name__}, not a Runnable "
                "(an object with invoke/ainvoke)"
            )
        self.chain = target
        self.input_key = input_key
        self.answer_key = answer_key
        self.context_key = context_key
        self.source_key = source_key
        self.history_key = history_key

    def describe(self) -> str:
        return f"langchain {self._name}"

    def _input(self, question: str) -> Any:
        return question if self.input_key is None else {self.input_key: question}

    def query(self, question: str) -> RAGResponse:
        return self._convert(self.chain.invoke(self._input(question)))

    async def aquery(self, question: str) -> RAGResponse:
        if hasattr(self.chain, "ainvoke"):
            return self._convert(await self.chain.ainvoke(self._input(question)))
        return await super().aquery(question)

    def _turn_input(self, question: str, history: Sequence[Message]) -> dict[str, Any]:
        """LangChain's convention for a chat chain: the question under ``input_key``
        (``input`` by default) and the earlier turns under ``history_key`` as
        ``("human" | "ai", text)`` messages, which ``MessagesPlaceholder`` reads."""
        roles = {"user": "human", "assistant": "ai"}
        return {
            self.input_key or "input": question,
            self.history_key: [(roles[m["role"]], m["content"]) for m in history],
        }

    def query_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        return self._convert(self.chain.invoke(self._turn_input(question, history)))

    async def aquery_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        if hasattr(self.chain, "ainvoke"):
            return self._convert(await self.chain.ainvoke(self._turn_input(question, history)))
        return await super().aquery_turn(question, history)

    def _convert(self, output: Any) -> RAGResponse:
        origin = f"langchain chain {self._name}"
        if isinstance(output, Mapping):
            if self.answer_key not in output:
                keys = ", ".join(map(str, output)) or "none"
                raise AdapterError(
                    f"{origin} output has no {self.answer_key!r} key (keys: {keys}); set "
                    "langchain.answer_key"
                )
            answer = _text(output[self.answer_key])
            docs = output.get(self.context_key)
            contexts = None if docs is None else self._contexts(docs, origin)
        else:
            answer, contexts = _text(output), None
        if answer is None:
            raise AdapterError(
                f"{origin} answered with a {type(output).__name__}, not text or a mapping with "
                f"{self.answer_key!r}"
            )
        return RAGResponse(answer=answer, contexts=contexts, raw=output)

    def _contexts(self, docs: Any, origin: str) -> list[Context]:
        if isinstance(docs, (str, bytes)) or not isinstance(docs, Sequence):
            raise AdapterError(
                f"{origin} output {self.context_key!r} is a {type(docs).__name__}, not a list "
                "of documents"
            )
        return [self._context(doc, origin) for doc in docs]

    def _context(self, doc: Any, origin: str) -> Context:
        """A retrieved document (or text) as a context, with its source."""
        if isinstance(doc, str):
            return Context(text=doc)
        text = getattr(doc, "page_content", None)
        if not isinstance(text, str):
            raise AdapterError(
                f"{origin} output {self.context_key!r} holds a {type(doc).__name__}, not a Document"
            )
        metadata = getattr(doc, "metadata", None) or {}
        return Context(text=text, source=_source(metadata, self.source_key, doc))


def _text(value: Any) -> str | None:
    """An answer: a string, or a chat message whose content is a string."""
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)
    if isinstance(content, str):
        return content
    return None


SOURCE_KEYS = ("source", "file_name", "filename", "doc_id", "id")


def _source(metadata: Any, source_key: str | None, doc: Any) -> str | None:
    keys = (source_key,) if source_key else SOURCE_KEYS
    if isinstance(metadata, Mapping):
        for key in keys:
            if metadata.get(key) is not None:
                return str(metadata[key])
    doc_id = getattr(doc, "id", None)
    return str(doc_id) if doc_id else None
