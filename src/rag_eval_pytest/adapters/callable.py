"""``CallableAdapter``: a Python function (sync or async) is the RAG system under test."""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..runtime.event_loop import to_thread
from ..targets import load_target
from .base import RAGAdapter, to_response

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from ..data.response import RAGResponse


def target_of(spec: Any, search_paths: Sequence[Path] = ()) -> Any:
    """``spec`` imported with :func:`load_target` when it is text, else ``spec`` itself."""
    return load_target(spec, search_paths) if isinstance(spec, str) else spec


class CallableAdapter(RAGAdapter):
    """Calls ``fn(question)``; ``fn`` may be sync or async, or a ``module:function`` string.

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
        self.fn: Callable[[str], Any] = target
        self._name = self._spec or getattr(target, "__qualname__", repr(target))

    def describe(self) -> str:
        return f"callable {self._name}"

    def query(self, question: str) -> RAGResponse:
        value = self.fn(question)
        if inspect.isawaitable(value):
            value = asyncio.run(_await(value))
        return to_response(value, origin=f"RAG callable {self._name}")

    async def aquery(self, question: str) -> RAGResponse:
        value, latency = await timed_call(self.fn, question)
        return with_latency(to_response(value, origin=f"RAG callable {self._name}"), latency)


async def _await(value: Any) -> Any:
    return await value


async def timed_call(fn: Callable[[str], Any], question: str) -> tuple[Any, float]:
    """``fn(question)`` and how long the call itself took. A sync callable is timed in its
    worker thread, from when it starts to when it returns: the time it waited for a thread
    (the pool busy with the plugin's own work, such as loading the local judge's model) is
    not the RAG system's latency."""
    if _is_async(fn):
        started = time.perf_counter()
        value = await fn(question)
        return value, time.perf_counter() - started
    value, latency = await to_thread(_timed, fn, question)
    if inspect.isawaitable(value):
        started = time.perf_counter()
        value = await value
        latency += time.perf_counter() - started
    return value, latency


def _timed(fn: Callable[[str], Any], question: str) -> tuple[Any, float]:
    started = time.perf_counter()
    value = fn(question)
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
        value, latency = await timed_call(method, question)
        return with_latency(to_response(value, origin=origin), latency)
