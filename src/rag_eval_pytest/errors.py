"""Exceptions and the warning class of rag-eval-pytest.

Stdlib and pytest only: this module is imported by the plugin entry point, which must stay
cheap when the plugin is dormant.
"""

from __future__ import annotations

import pytest


class RagEvalError(Exception):
    """Base class of the plugin's own errors (user input, not bugs)."""


class DatasetError(RagEvalError):
    """A dataset file cannot be used: the message names the file, the case and the field."""


class ConfigError(RagEvalError):
    """The configuration (file, ini or command line) is invalid: the message names the key."""


class AdapterError(RagEvalError):
    """The RAG system could not be queried or returned something unusable for one case."""


class RagEvalWarning(pytest.PytestWarning):
    """Warnings about datasets, configuration and skipped metrics."""
