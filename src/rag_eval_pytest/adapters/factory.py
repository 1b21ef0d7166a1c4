"""Build the adapter named by the settings (``--rag-adapter``, ``--rag-target``, config)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..config import Settings
from ..errors import ConfigError
from .base import RAGAdapter


def adapter_from_settings(settings: Settings, search_paths: Sequence[Path] = ()) -> RAGAdapter:
    kind = settings.adapter or ("callable" if settings.target else None)
    if kind is None:
        raise ConfigError(
            "no RAG adapter configured: define a rag_adapter fixture in conftest.py, "
            "or pass --rag-target module:function (or set 'target' in eval-config.yaml)"
        )
    if kind == "callable":
        if not settings.target:
            raise ConfigError("the callable adapter needs a target: --rag-target module:function")
        from .callable import CallableAdapter

        return CallableAdapter(settings.target, search_paths=search_paths)
    raise ConfigError(f"unknown adapter {kind!r}")  # pragma: no cover - Literal-checked
