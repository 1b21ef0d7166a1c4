"""What a dataset run sets aside for Python's cycle collector it gives back, and a process
that froze objects of its own keeps them frozen."""

from __future__ import annotations

import gc

from rag_eval_pytest.runtime.heap import paused_collection, restore, set_aside


def test_what_is_set_aside_is_given_back() -> None:
    assert gc.get_freeze_count() == 0
    kept = [[] for _ in range(10)]
    set_aside()
    assert gc.get_freeze_count() >= len(kept)
    restore()
    assert gc.get_freeze_count() == 0


def test_objects_the_process_froze_itself_stay_frozen() -> None:
    gc.freeze()
    theirs = gc.get_freeze_count()
    try:
        set_aside()
        restore()
        # Still frozen (an unfreeze gives 0) and nothing more frozen; a frozen object that
        # reference counting freed meanwhile (another thread's) lowers the count.
        assert 0 < gc.get_freeze_count() <= theirs
    finally:
        gc.unfreeze()


def test_the_collector_is_paused_for_the_block_and_as_it_was_after() -> None:
    assert gc.isenabled()
    with paused_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_collection():
            pass
        assert not gc.isenabled()  # not turned on by the block
    finally:
        gc.enable()
