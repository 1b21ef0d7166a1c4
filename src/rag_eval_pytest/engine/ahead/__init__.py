"""The work ahead of the running test, behind one protocol (:class:`AheadScheduler`): a
window of a plain run's tests (:class:`WindowScheduler`), one test ahead on an xdist worker
(:class:`LookaheadScheduler`), or nothing (:class:`NoAhead`)."""

from __future__ import annotations

from .lookahead import LookaheadScheduler
from .plan import PlannedTest, TestPlan, function_id, judge_group
from .protocol import AheadScheduler, NoAhead
from .window import AHEAD_PER_SLOT, WindowScheduler

__all__ = [
    "AHEAD_PER_SLOT",
    "AheadScheduler",
    "LookaheadScheduler",
    "NoAhead",
    "PlannedTest",
    "TestPlan",
    "WindowScheduler",
    "function_id",
    "judge_group",
]
