"""The test running now in this process, and the way to its run's engine.

A case made in code (:func:`~rag_eval_pytest.engine.inline.make_case`) is evaluated by the
test that runs when an ``assert_*`` helper receives it: the entry module marks each test as
running (:func:`running`), and the case finds the test (:func:`current_item`) and the run's
engine (:func:`engine_for`). A run without ``--rag-dataset`` makes its engine then, on first
use, through the dormant run's plugin object.

Imported by the entry module in every run, so it imports only pytest and the stdlib.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pytest

    from .engine import Engine

RUNNER_PLUGIN = "rag_eval_runner"
"""The plugin object of a process that runs tests (it holds the process's engine)."""

DORMANT_PLUGIN = "rag_eval_dormant"
"""The plugin object of a run without a dataset, until a test evaluates a case made in code:
it makes the run's engine then (and, where reports are written, its aggregator)."""


class _Runner(Protocol):
    engine: Engine


class _Dormant(Protocol):
    def activate(self) -> Engine: ...


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
    runner: _Runner | None = config.pluginmanager.get_plugin(RUNNER_PLUGIN)
    if runner is not None:
        return runner.engine
    dormant: _Dormant | None = config.pluginmanager.get_plugin(DORMANT_PLUGIN)
    return dormant.activate() if dormant is not None else None
