"""The selected tests as the work ahead sees them: each one's case, test function, judge
group and the metrics known in advance, with the indexes that keep each test's cost flat."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..zero_code import ZERO_CODE_CASE, configured_metrics

if TYPE_CHECKING:
    import pytest

    from ...config.settings import Settings
    from ..requests import PlannedMetric


@dataclass
class PlannedTest:
    """One selected test: its case, the test function it belongs to, what it will measure,
    and its judge group (the tests that resolve ``rag_judge`` alike)."""

    case: str
    function: str
    requests: list[PlannedMetric]
    group: str = ""
    nodeid: str = ""

    def __post_init__(self) -> None:
        self.group = self.group or self.function


@dataclass
class TestPlan:
    """The planned tests in run order, indexed by node id, judge group and test function,
    with the metrics known so far of each test function."""

    __test__ = False  # not a pytest test class

    tests: list[PlannedTest]
    by_node: dict[str, PlannedTest] = field(default_factory=dict)
    position: dict[str, int] = field(default_factory=dict)
    by_group: dict[str, list[PlannedTest]] = field(default_factory=dict)
    by_function: dict[str, list[PlannedTest]] = field(default_factory=dict)
    known: dict[str, list[PlannedMetric]] = field(default_factory=dict)
    configured: list[PlannedMetric] = field(default_factory=list)
    """The run's configured metrics (zero-code mode's): what a test function that has not
    said what it measures most likely measures."""

    def __post_init__(self) -> None:
        self.by_node = {t.nodeid: t for t in self.tests if t.nodeid}
        self.position = {t.nodeid: i for i, t in enumerate(self.tests) if t.nodeid}
        for test in self.tests:
            self._index(test)

    def _index(self, test: PlannedTest) -> None:
        """The test in its judge group and test function, its requests known of its
        function."""
        self.by_group.setdefault(test.group, []).append(test)
        self.by_function.setdefault(test.function, []).append(test)
        known = self.known.setdefault(test.function, [])
        known.extend(r for r in test.requests if r not in known)

    @classmethod
    def of(cls, items: list[pytest.Item], settings: Settings) -> TestPlan:
        """The plan of the selected ``items`` (already in run order) that take a case."""
        zero_code: list[PlannedMetric] = [(m.name, m.params) for m in configured_metrics(settings)]
        tests: list[PlannedTest] = []
        for item in items:
            callspec = getattr(item, "callspec", None)
            key = callspec.params.get("rag_case") if callspec is not None else None
            if key is not None:
                tests.append(PlannedTest(str(key), function_id(item), [], nodeid=item.nodeid))
                continue
            key = item.stash.get(ZERO_CODE_CASE, None)
            if key is not None:
                tests.append(
                    PlannedTest(
                        str(key), function_id(item), list(zero_code), judge_group(item), item.nodeid
                    )
                )
        return cls(tests, configured=zero_code)


def function_id(item: pytest.Item) -> str:
    """The test function an item belongs to: its node id without the parameters."""
    return item.nodeid.partition("[")[0]


def judge_group(item: pytest.Item) -> str:
    """The tests that resolve ``rag_judge`` alike: a test function's cases, or the zero-code
    tests of one dataset file."""
    if item.stash.get(ZERO_CODE_CASE, None) is not None and item.parent is not None:
        return item.parent.nodeid
    return function_id(item)
