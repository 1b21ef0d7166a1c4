"""Build the adapter named by the settings (``--rag-adapter``, ``--rag-target``, config).

Each adapter module is imported only when its kind is selected, so a run that uses the
callable adapter never imports httpx, LangChain or LlamaIndex.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from ..config.settings import Settings
    from .base import RAGAdapter


def adapter_from_settings(
    settings: Settings, search_paths: Sequence[Path] = (), config_file: str = ""
) -> RAGAdapter:
    """The adapter the settings name; ``config_file`` says which config file is in force
    (or where none was found), for the error when none is configured."""
    kind = _kind(settings, config_file)
    if kind == "http":
        from .http import HttpAdapter

        return HttpAdapter.from_settings(settings.http)
    if not settings.target:
        what = _TARGETS.get(kind, "module:attr")
        raise ConfigError(f"the {kind} adapter needs a target: --rag-target {what}")
    build = _BUILDERS.get(kind)
    if build is None:  # pragma: no cover - Literal-checked
        raise ConfigError(f"unknown adapter {kind!r}")
    return build(settings, settings.target, search_paths)


def _kind(settings: Settings, config_file: str) -> str:
    """The adapter's kind as configured; else http for an endpoint, callable for a target."""
    kind = settings.adapter if settings.adapter is not None else _implied(settings)
    if kind is None:
        raise ConfigError(
            "no RAG adapter configured: define a rag_adapter fixture in conftest.py, "
            "or pass --rag-target module:function or --rag-endpoint URL (or set 'target' "
            "or 'http.endpoint' in eval-config.yaml)"
            + (f"; config file in force: {config_file}" if config_file else "")
        )
    return kind


def _implied(settings: Settings) -> str | None:
    if settings.http.endpoint:
        return "http"
    if settings.target:
        return "callable"
    return None


_TARGETS = {
    "callable": "module:function",
    "langchain": "module:chain",
    "llamaindex": "module:query_engine",
}
"""What each adapter's ``--rag-target`` names."""


def _callable(settings: Settings, target: str, search_paths: Sequence[Path]) -> RAGAdapter:
    from .callable import CallableAdapter

    return CallableAdapter(target, search_paths=search_paths)


def _langchain(settings: Settings, target: str, search_paths: Sequence[Path]) -> RAGAdapter:
    from .langchain import LangChainAdapter

    lc = settings.langchain
    return LangChainAdapter(
        target,
        search_paths=search_paths,
        input_key=lc.input_key,
        answer_key=lc.answer_key,
        context_key=lc.context_key,
        source_key=lc.source_key,
    )


def _llamaindex(settings: Settings, target: str, search_paths: Sequence[Path]) -> RAGAdapter:
    from .llamaindex import LlamaIndexAdapter

    source_key = settings.llamaindex.source_key
    return LlamaIndexAdapter(target, search_paths=search_paths, source_key=source_key)


_BUILDERS: dict[str, Callable[[Settings, str, Sequence[Path]], RAGAdapter]] = {
    "callable": _callable,
    "langchain": _langchain,
    "llamaindex": _llamaindex,
}
