"""The test running now in this process, and the way to its run's engine.

A case made in code (:func:`~rag_eval_pytest.engine.inline.make_case`) is evaluated by the
test that runs when an ``assert_*`` helper receives it: the entry module marks each test as
running (:func:`running`), and the case finds the test (:func:`current_item`) and the run's
engine (:func:`engine_for`). A run without ``--rag-dataset`` makes its engine then, on first
use, through the activation the entry module leaves in the config's stash.

Imported by the entry module in every run, so it imports only pytest and the stdlib.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from .engine import Engine

ENGINE_KEY: pytest.StashKey[Engine] = pytest.StashKey()
"""The process's engine: made at start-up with a dataset, else when a test first evaluates a
case made in code."""

ACTIVATE_KEY: pytest.StashKey[Callable[[], Engine]] = pytest.StashKey()
"""How a run without a dataset makes its engine (and, where reports are written, its
aggregator) when a test first evaluates a case made in code."""

_RUNNING: list[pytest.Item] = []
"""The tests running now, innermost last (a test may run pytest in-process: pytester)."""


@contextlib.contextmanager
def running(item: pytest.Item) -> Iterator[None]:
    """Mark ``item`` as the test running now, for the duration of its protocol."""
    _RUNNING.append(item)
    try:
        yield
    finally:
        for index in range(len(_RUNNING) - 1, -1, -1):
            if _RUNNING[index] is item:
                del _RUNNING[index]
                break


def current_item() -> pytest.Item | None:
    """The innermost test running now; ``None`` outside a test."""
    return _RUNNING[-1] if _RUNNING else None


def engine_for(config: pytest.Config) -> Engine | None:
    """The run's engine, made now in a run without a dataset; ``None`` when the plugin is
    not loaded in this run (``-p no:rag_eval``). Raises what making it raised (a
    :class:`~rag_eval_pytest.errors.RagEvalError` for a bad configuration)."""
    engine = config.stash.get(ENGINE_KEY, None)
    if engine is not None:
        return engine
    activate = config.stash.get(ACTIVATE_KEY, None)
    return activate() if activate is not None else None
