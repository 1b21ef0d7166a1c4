"""``CallableAdapter``: a Python function (sync or async) is the RAG system under test."""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import TYPE_CHECKING, Any

from ..errors import AdapterError, ConfigError
from ..runtime.event_loop import to_thread
from ..targets import load_target
from .base import RAGAdapter, no_history, to_response

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from ..data.response import Message, RAGResponse


def target_of(spec: Any, search_paths: Sequence[Path] = ()) -> Any:
    """``spec`` imported with :func:`load_target` when it is text, else ``spec`` itself."""
    return load_target(spec, search_paths) if isinstance(spec, str) else spec


class CallableAdapter(RAGAdapter):
    """Calls ``fn(question)``; ``fn`` may be sync or async, or a ``module:function`` string.
    A conversation's turns call ``fn(question, history)`` (the earlier turns as
    ``[{"role": "user"|"assistant", "content": ...}]``) when ``fn`` takes a second parameter.

    ``fn`` returns ``(answer, contexts)``, a mapping with ``answer``/``contexts``/``sources``,
    a bare answer string, or a :class:`RAGResponse`.
    """

    kind = "callable"

    def __init__(
        self,
        fn: Callable[[str], Any] | str,
        *,
        search_paths: Sequence[Path] = (),
    ) -> None:
        self._spec = fn if isinstance(fn, str) else None
        target = target_of(fn, search_paths)
        if not callable(target):
            raise ConfigError(f"target {fn!r} is not callable")
        self.fn: Callable[..., Any] = target
        self._name = self._spec or getattr(target, "__qualname__", repr(target))
        self.takes_history = takes_history(target)
        self._needs_history = takes_history(target, required=True)

    def describe(self) -> str:
        return f"callable {self._name}"

    def query(self, question: str) -> RAGResponse:
        value = self.fn(question, []) if self._needs_history else self.fn(question)
        if inspect.isawaitable(value):
            value = asyncio.run(_await(value))
        return to_response(value, origin=f"RAG callable {self._name}")

    async def aquery(self, question: str) -> RAGResponse:
        if self._needs_history:  # fn(question, history): a case is a conversation of one turn
            return await self.aquery_turn(question, [])
        value, latency = await timed_call(self.fn, question)
        return with_latency(to_response(value, origin=f"RAG callable {self._name}"), latency)

    async def aquery_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        if not self.takes_history:
            raise AdapterError(
                no_history(f"RAG callable {self._name}", "define fn(question, history)")
            )
        value, latency = await timed_call(self.fn, question, list(history))
        return with_latency(to_response(value, origin=f"RAG callable {self._name}"), latency)


def takes_history(fn: Callable[..., Any], *, required: bool = False) -> bool:
    """Whether ``fn`` takes a second positional parameter (a conversation's history); with
    ``required``, whether it must be given one (it has no default)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: one question
        return False
    positional = 0
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return not required
        if _positional(parameter, required=required):
            positional += 1
    return positional >= 2


def _positional(parameter: inspect.Parameter, *, required: bool) -> bool:
    """Whether a parameter takes a positional argument (with ``required``: one it has no
    default for)."""
    return parameter.kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ) and not (required and parameter.default is not inspect.Parameter.empty)


async def _await(value: Any) -> Any:
    return await value


async def timed_call(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``fn(*args)`` (the question, and a conversation's history) and how long the call
    itself took. A sync callable is timed in its worker thread, from when it starts to when
    it returns: the time it waited for a thread (the pool busy with the plugin's own work,
    such as loading the local judge's model) is not the RAG system's latency."""
    if _is_async(fn):
        started = time.perf_counter()
        value = await fn(*args)
        return value, time.perf_counter() - started
    value, latency = await to_thread(_timed, fn, *args)
    if inspect.isawaitable(value):
        started = time.perf_counter()
        value = await value
        latency += time.perf_counter() - started
    return value, latency


def _timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - started


def with_latency(response: RAGResponse, latency: float) -> RAGResponse:
    """``response`` with ``latency`` unless the RAG system reported its own."""
    if response.latency is not None:
        return response
    return response.model_copy(update={"latency": latency})


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - async callable objects
    )


def as_adapter(obj: object) -> RAGAdapter:
    """Whatever a ``rag_adapter`` fixture returned, as a :class:`RAGAdapter`."""
    if isinstance(obj, RAGAdapter):
        return obj
    if hasattr(obj, "aquery") or hasattr(obj, "query"):
        return _DuckAdapter(obj)
    if callable(obj):
        return CallableAdapter(obj)
    raise ConfigError(
        f"rag_adapter returned {type(obj).__name__}; return a callable, an object with "
        "query()/aquery(), or an adapter such as CallableAdapter(fn)"
    )


class _DuckAdapter(RAGAdapter):
    """An object with ``query``/``aquery`` that does not subclass :class:`RAGAdapter`."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.kind = "custom"

    def describe(self) -> str:
        return type(self.obj).__name__

    async def aquery(self, question: str) -> RAGResponse:
        origin = f"{type(self.obj).__name__}.query"
        method = self.obj.aquery if hasattr(self.obj, "aquery") else self.obj.query
        if takes_history(method, required=True):
            return await self.aquery_turn(question, [])
        value, latency = await timed_call(method, question)
        return with_latency(to_response(value, origin=origin), latency)

    async def aquery_turn(self, question: str, history: Sequence[Message]) -> RAGResponse:
        origin = f"{type(self.obj).__name__}.query"
        method = self.obj.aquery if hasattr(self.obj, "aquery") else self.obj.query
        if not takes_history(method):
            raise AdapterError(no_history(origin, "define query(question, history)"))
        value, latency = await timed_call(method, question, list(history))
        return with_latency(to_response(value, origin=origin), latency)
