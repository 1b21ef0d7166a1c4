"""Build the adapter named by the settings (``--rag-adapter``, ``--rag-target``, config).

Each adapter module is imported only when its kind is selected, so a run that uses the
callable adapter never imports httpx, LangChain or LlamaIndex.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..config.settings import Settings
    from .base import RAGAdapter


def adapter_from_settings(
    settings: Settings, search_paths: Sequence[Path] = (), config_file: str = ""
) -> RAGAdapter:
    """The adapter the settings name; ``config_file`` says which config file is in force
    (or where none was found), for the error when none is configured."""
    kind = settings.adapter
    if kind is None:
        if settings.http.endpoint:
            kind = "http"
        elif settings.target:
            kind = "callable"
    if kind is None:
        raise ConfigError(
            "no RAG adapter configured: define a rag_adapter fixture in conftest.py, "
            "or pass --rag-target module:function or --rag-endpoint URL (or set 'target' "
            "or 'http.endpoint' in eval-config.yaml)"
            + (f"; config file in force: {config_file}" if config_file else "")
        )
    if kind == "http":
        from .http import HttpAdapter

        return HttpAdapter.from_settings(settings.http)
    if not settings.target:
        what = {
            "callable": "module:function",
            "langchain": "module:chain",
            "llamaindex": "module:query_engine",
        }.get(kind, "module:attr")
        raise ConfigError(f"the {kind} adapter needs a target: --rag-target {what}")
    if kind == "callable":
        from .callable import CallableAdapter

        return CallableAdapter(settings.target, search_paths=search_paths)
    if kind == "langchain":
        from .langchain import LangChainAdapter

        lc = settings.langchain
        return LangChainAdapter(
            settings.target,
            search_paths=search_paths,
            input_key=lc.input_key,
            answer_key=lc.answer_key,
            context_key=lc.context_key,
            source_key=lc.source_key,
        )
    if kind == "llamaindex":
        from .llamaindex import LlamaIndexAdapter

        return LlamaIndexAdapter(
            settings.target, search_paths=search_paths, source_key=settings.llamaindex.source_key
        )
    raise ConfigError(f"unknown adapter {kind!r}")  # pragma: no cover - Literal-checked
