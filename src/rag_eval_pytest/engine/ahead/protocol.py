"""What the engine asks of the work ahead of the tests, whichever way it is scheduled."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pytest

    from ...judges.base import Judge
    from ..case import CaseTest
    from ..requests import PlannedMetric


class AheadScheduler(Protocol):
    """Schedules the RAG queries and the measurements that the selected tests will wait
    for, before they run; every piece goes through the memos, so nothing is done twice."""

    def before_test(self, test: CaseTest, following: pytest.Item | None) -> None:
        """A test taking a case starts (``following``: the next test, under xdist)."""

    def learn(self, test: CaseTest, requests: list[PlannedMetric]) -> None:
        """The test asked for ``requests``: measure them for its function's other cases."""

    def guesses(self, test: CaseTest, judge: Judge | None) -> list[PlannedMetric]:
        """What the test measures beside its evaluation on a guess: what its function will
        likely ask for, while it has not said yet, where ``judge`` asks them at no cost."""

    def finished(self, case: str) -> bool:
        """A test of ``case`` is over: whether it was the case's last selected one."""

    def stop(self) -> None:
        """Start nothing more, cancel what has not finished (``-x``, ``--maxfail``)."""


class NoAhead:
    """Nothing ahead: each test measures what it asks for, when it asks
    (``concurrency.prefetch: false``, or before the tests are planned)."""

    def before_test(self, test: CaseTest, following: pytest.Item | None) -> None:
        pass

    def learn(self, test: CaseTest, requests: list[PlannedMetric]) -> None:
        pass

    def guesses(self, test: CaseTest, judge: Judge | None) -> list[PlannedMetric]:
        return []

    def finished(self, case: str) -> bool:
        return False  # no plan counts a case's tests: its memos stay for the run

    def stop(self) -> None:
        pass
