"""Optional extras: import a framework only when its adapter is used, or say how to get it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .errors import ConfigError

if TYPE_CHECKING:
    from types import ModuleType

EXTRAS: dict[str, tuple[str, str]] = {
    # extra name: (module to import, distribution it comes from)
    "langchain": ("langchain_core", "langchain-core"),
    "llamaindex": ("llama_index.core", "llama-index-core"),
}


def install_line(extra: str) -> str:
    return f"pip install 'rag-eval-pytest[{extra}]'"


def require_extra(extra: str) -> ModuleType:
    """The extra's main module, or a :class:`ConfigError` with the exact install command."""
    module, distribution = EXTRAS[extra]
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(
            f"the {extra} adapter needs {distribution}, which is not installed: "
            f"{install_line(extra)}"
        ) from None
