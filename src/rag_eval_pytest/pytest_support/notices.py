"""The run's warnings about its data (a dataset older than 30 days, cases without
``expected_contexts``) and its configuration (a deprecated key, converted), issued as
:class:`RagEvalWarning` under the user's warning filters.

They go through pytest's own configure-time warnings (``config.issue_config_time_warning``),
so they appear in the "warnings summary" and ``ignore::rag_eval_pytest.RagEvalWarning``
silences them. A strict suite's blanket ``filterwarnings = error`` would turn them into an
exception at configure time, and a suite that passed the day it was written would crash a
month later because its dataset aged: under such a filter they are printed in the header
instead. Only a filter that names ``RagEvalWarning`` (or a subclass) itself as an error makes
them fatal: that user asked for it.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ..errors import ConfigError, RagEvalWarning

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pytest

IGNORE_FILTER = "ignore::rag_eval_pytest.RagEvalWarning"


def issue(config: pytest.Config, messages: Sequence[str]) -> list[str]:
    """Issue ``messages`` as warnings; return the header lines of those that the filters
    turned into errors. Raises :class:`ConfigError` when a filter names RagEvalWarning as an
    error."""
    lines: list[str] = []
    for message in messages:
        try:
            config.issue_config_time_warning(RagEvalWarning(message), stacklevel=2)
        except RagEvalWarning:
            if _named_as_error(config):
                raise ConfigError(
                    f"{message} (a warnings filter makes RagEvalWarning an error; "
                    f"'{IGNORE_FILTER}' silences it)"
                ) from None
            lines.append(
                f"rag-eval: warning: {message} (RagEvalWarning, shown here because a warnings "
                f"filter makes warnings errors; '{IGNORE_FILTER}' silences it)"
            )
    return lines


def _named_as_error(config: pytest.Config) -> bool:
    """Whether the first of the user's filters that applies to RagEvalWarning is an
    ``error`` filter whose category is RagEvalWarning or a subclass (not a blanket one)."""
    from _pytest.config import apply_warning_filters

    cmdline = config.known_args_namespace.pythonwarnings or []
    with warnings.catch_warnings():
        apply_warning_filters(config.getini("filterwarnings"), cmdline)
        for action, _message, category, _module, _lineno in warnings.filters:
            if isinstance(category, type) and issubclass(RagEvalWarning, category):
                return action == "error" and issubclass(category, RagEvalWarning)
    return False
