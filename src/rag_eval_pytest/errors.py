"""Exceptions and the warning class of rag-eval-pytest.

Stdlib and pytest only: this module is imported by the plugin entry point, which must stay
cheap when the plugin is dormant.
"""

from __future__ import annotations

import pytest
from _pytest.outcomes import Failed


class RagEvalError(Exception):
    """Base class of the plugin's own errors (user input, not bugs)."""


class DatasetError(RagEvalError):
    """A dataset file cannot be used: the message names the file, the case and the field."""


class ConfigError(RagEvalError):
    """The configuration (file, ini or command line) is invalid: the message names the key."""


class ReportError(RagEvalError):
    """A report file cannot be read back: the message names the file and what is wrong."""


class DocumentError(RagEvalError):
    """A document given to ``rag-eval generate`` cannot be used: the message names the file
    and what is wrong."""


class AdapterError(RagEvalError):
    """The RAG system could not be queried or returned something unusable for one case."""


class SetupFailed(Failed):
    """A test's fixture could not give the judge or the RAG system (a missing key or extra):
    the test fails with the one message, and the run ends with the fatal code."""

    __module__ = "builtins"  # shown as "SetupFailed: ...", as pytest shows "Failed: ..."


class RagEvalWarning(pytest.PytestWarning):
    """Warnings about datasets, configuration and skipped metrics."""


def raised(who: str, exc: BaseException) -> str:
    """``<who> raised <class>: <message>``, what user code that failed is reported as (the
    message left out when it has none)."""
    message = str(exc)
    return f"{who} raised {type(exc).__name__}" + (f": {message}" if message else "")
