"""Python's cycle collector in a run of a large dataset.

The collector walks every container object again at each of its full collections, and a full
collection comes each time the objects kept since the last one reach a quarter of those it
found alive. A run keeps most of what it makes (the dataset's cases and the test items until
the end, the reports' parts until they are written), and none of it is cyclic garbage: in a
run of tens of thousands of cases that walking cost more per test than the plugin's own work,
and more the larger the dataset. So:

* :func:`paused_collection` pauses the collector while a large structure that lives on is
  built (the datasets read, the tests collected, the reports made); reference counting
  frees as usual.
* :func:`set_aside` sets what exists once the tests are collected (the modules, the test
  items, the dataset), and again once the reports are made, aside for the collector until
  the run ends (:func:`restore`): its collections then walk only what the tests make, and
  the terminal summary does not walk the reports. An object that existed then and later
  becomes unreachable inside a reference cycle is freed at the end of the run instead.
  Objects without cycles are freed by reference counting as usual, set aside or not.
"""

from __future__ import annotations

import contextlib
import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


@contextlib.contextmanager
def paused_collection() -> Iterator[None]:
    """The cycle collector paused for the block (as it was after it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_set_aside = False  # whether the objects frozen now are the run's


def set_aside() -> None:
    """Keep the collector from walking what exists now, until :func:`restore`. A process that
    froze objects of its own (a server preloaded before it forks) is left as it is."""
    global _set_aside
    # Counting the frozen objects walks them all: asked only before the run froze any.
    if not _set_aside and gc.get_freeze_count():
        return
    gc.freeze()
    _set_aside = True


def restore() -> None:
    """Give the collector back everything the run set aside."""
    global _set_aside
    if _set_aside:
        gc.unfreeze()
        _set_aside = False
