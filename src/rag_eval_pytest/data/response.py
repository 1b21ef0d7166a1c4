"""What a RAG system returns for one question: :class:`RAGResponse` and its :class:`Context`.

Adapters build these; datasets use :class:`Context` for pre-recorded contexts. ``contexts=None``
means "unknown" (context metrics are skipped with a warning); ``[]`` means "retrieved nothing".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import islice
from typing import Any, Literal, TypedDict, TypeVar, cast, overload

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..text.escaping import strip_control

_T = TypeVar("_T")


class Message(TypedDict):
    """One message of a conversation's history, as adapters receive it: what the user said
    (``user``) or what the RAG system answered (``assistant``)."""

    role: Literal["user", "assistant"]
    content: str


class History(Sequence[Message]):
    """A conversation's turn's history: the first ``length`` of the conversation's messages
    (each turn's question and answer, oldest first). Every turn's history is a view of one
    list: a copy for each turn grew with the square of the turns (10,000 turns held 100
    million references)."""

    __slots__ = ("_length", "_messages")

    def __init__(self, messages: list[Message], length: int) -> None:
        self._messages = messages
        self._length = length

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[Message]:
        return islice(self._messages, self._length)

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...

    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        if isinstance(index, slice):
            return self._messages[: self._length][index]
        if not -self._length <= index < self._length:
            raise IndexError("history index out of range")
        return self._messages[index % self._length]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(map(_frozen, self)))

    def __repr__(self) -> str:
        return f"History({list(self)!r})"


def _frozen(message: Message) -> tuple[Any, ...]:
    return tuple(message.items())


def _inert(value: _T) -> _T:
    """Untrusted text without terminal control sequences (ANSI colours, screen clears,
    OSC-8 hyperlinks): they would act on the terminal, be stored in the reports and be
    read by a judge as words."""
    if isinstance(value, str):
        return cast("_T", strip_control(value))
    return value


class Context(BaseModel):
    """One retrieved passage and the document it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    source: str | None = None

    @field_validator("text", "source", mode="after")
    @classmethod
    def _strip_control(cls, value: str | None) -> str | None:
        return _inert(value)

    @classmethod
    def coerce(cls, value: object) -> Context:
        """Accept a string, a ``{"text", "source"}`` mapping, a Context, or a document object
        with ``page_content``/``text`` and ``metadata`` (LangChain, LlamaIndex)."""
        if isinstance(value, Context):
            return value
        if isinstance(value, str):
            return cls(text=value)
        if isinstance(value, Mapping):
            return cls.model_validate(dict(value))
        text = _document_text(value)
        if isinstance(text, str):
            return cls(text=text, source=_document_source(value))
        raise TypeError(
            f"a context must be a string or a {{'text': ..., 'source': ...}} mapping, "
            f"not {type(value).__name__}"
        )


def _document_text(document: object) -> object:
    """A document object's text: LangChain's ``page_content``, else LlamaIndex's ``text``."""
    text = getattr(document, "page_content", None)
    if text is None:
        text = getattr(document, "text", None)
    return text


def _document_source(document: object) -> str | None:
    """A document object's source: the first of its metadata's source keys it has."""
    metadata = getattr(document, "metadata", None) or {}
    if not isinstance(metadata, Mapping):
        return None
    keys = ("source", "file_name", "filename", "doc_id", "id")
    return next((str(metadata[key]) for key in keys if metadata.get(key) is not None), None)


class RAGResponse(BaseModel):
    """The answer of the RAG system under test, with what it retrieved.

    ``sources`` lists the document ids the system reports as retrieved; when empty, the
    sources of the contexts are used. ``latency`` is in seconds (``None`` for pre-recorded
    answers). ``raw`` keeps the system's own response object and is never serialised.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    answer: str
    contexts: list[Context] | None = None
    sources: list[str] = Field(default_factory=list)
    latency: float | None = None
    raw: Any = Field(default=None, exclude=True, repr=False)

    @field_validator("contexts", mode="before")
    @classmethod
    def _coerce_contexts(cls, value: object) -> object:
        if value is None:
            return value
        # A list (or tuple, or a generator) of contexts. Anything else that can be iterated
        # would be taken apart silently: a dict into its keys, a string into its letters.
        if isinstance(value, (Sequence, Iterator)) and not isinstance(value, (str, bytes)):
            return [Context.coerce(item) for item in value]
        hint = " (one context? put it in a list)" if isinstance(value, (str, Mapping)) else ""
        raise ValueError(
            "contexts must be a list of contexts (strings, {'text': ..., 'source': ...} "
            f"mappings or documents), not {type(value).__name__}{hint}"
        )

    @field_validator("answer", mode="after")
    @classmethod
    def _strip_answer(cls, value: str) -> str:
        return _inert(value)

    @field_validator("sources", mode="after")
    @classmethod
    def _strip_sources(cls, value: list[str]) -> list[str]:
        return [_inert(s) for s in value]

    @property
    def retrieved_sources(self) -> list[str]:
        """Sources in rank order: ``sources`` if given, else each context's source."""
        return [s for s in self.ranked_sources if s]

    @property
    def ranked_sources(self) -> list[str | None]:
        """The source at each rank: ``sources`` if given, else each context's source, with
        ``None`` for a context that names none (it keeps its rank)."""
        if self.sources:
            return list(self.sources)
        return [c.source or None for c in self.contexts or []]
