"""Collects test outcomes and case payloads in the aggregating process.

Runs in a plain pytest run and in the xdist controller (never in workers). Reports arrive in
any order; everything is keyed by case key and sorted by dataset order at the end, so the
result does not depend on scheduling.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..metrics.base import MetricResult
from .models import CaseTest, CriticalTest, Outcome
from .payload import case_payload
from .spool import EventSpool

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from ..data.dataset import LoadedCase
    from .payload import CasePayload

_SEVERITY: dict[str, int] = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


class CaseRecord:
    """Everything learned about one case across the tests that used it.

    While the run goes on, the record keeps its case, its tests and its metrics' results as
    JSON text and tuples of text: Python's cycle collector never walks those, while it walks
    every dict, list and model again at each of its full collections, which in a run of tens
    of thousands of cases cost more than everything else the plugin does per test. They are
    read back when the run's end asks for them (:attr:`payload`, :attr:`tests`,
    :attr:`metrics`).
    """

    __slots__ = (
        "_metric_cache",
        "_metrics",
        "_missing",
        "_payload",
        "_payload_cache",
        "_tests",
        "_turn_metrics",
    )

    def __init__(self, payload: CasePayload) -> None:
        kept = dict(payload)
        kept["metrics"] = []  # the transport's form; the results are kept in _metrics
        if "turns" in payload:
            kept["turns"] = [_without_metrics(t) for t in payload["turns"]]
        self._payload = json.dumps(kept)
        self._payload_cache: CasePayload | None = None
        # What a later test's payload may still bring: the response an earlier (failed) test
        # did not reach, an error. Only then is the text read back and written again.
        self._missing = _missing(payload)
        self._tests: dict[str, tuple[str, Outcome, str | None]] = {}
        self._metrics: dict[str, tuple[str, str]] = {}  # name: (status, result as JSON)
        self._metric_cache: dict[str, MetricResult] | None = None
        # A conversation's: each turn's metrics (name: (status, result as JSON)), by turn.
        self._turn_metrics: list[dict[str, tuple[str, str]]] | None = (
            [{} for _ in payload["turns"]] if "turns" in payload else None
        )

    @property
    def turns(self) -> list[TurnRecord] | None:
        """A conversation's turns: each turn's payload and its metrics' most telling
        results; ``None`` for a case that is no conversation."""
        if self._turn_metrics is None:
            return None
        payloads = self.payload.get("turns", [])
        return [
            (
                turn,
                {
                    name: MetricResult.model_validate_json(text)
                    for name, (_, text) in metrics.items()
                },
            )
            for turn, metrics in zip(payloads, self._turn_metrics, strict=True)
        ]

    @property
    def payload(self) -> CasePayload:
        """The case and its response (its ``metrics`` are in :attr:`metrics`)."""
        if self._payload_cache is None:
            self._payload_cache = json.loads(self._payload)
        return self._payload_cache

    @property
    def tests(self) -> Mapping[str, CaseTest]:
        """The tests that used the case, each with its worst outcome (:meth:`add_test` adds
        one)."""
        return MappingProxyType(
            {n: CaseTest(nodeid=n, outcome=o, message=m) for n, o, m in self._tests.values()}
        )

    @property
    def metrics(self) -> dict[str, MetricResult]:
        """Each metric's most telling result."""
        if self._metric_cache is None:
            self._metric_cache = {
                name: MetricResult.model_validate_json(text)
                for name, (_, text) in self._metrics.items()
            }
        return self._metric_cache

    def add_test(self, nodeid: str, outcome: Outcome, message: str | None) -> None:
        """A test of the case, kept with its worst outcome."""
        previous = self._tests.get(nodeid)
        if previous is None or _SEVERITY[outcome] > _SEVERITY[previous[1]]:
            self._tests[nodeid] = (nodeid, outcome, message)

    def merge(self, payload: CasePayload) -> None:
        filled = self._filled(payload)
        if filled:
            current = self.payload
            _fill(current, payload, filled)
            self._payload = json.dumps(current)
            self._missing.difference_update(filled)
            self._payload_cache = None
        self.add_payload_metrics(payload)

    def _filled(self, payload: CasePayload) -> list[str]:
        """What a later payload brings that the record still misses: the response an earlier
        (failed) test did not reach, an error, a conversation's turns' responses."""
        filled = [k for k in self._missing if payload.get(k) not in (None, [])]
        if "turns" in payload and not any(
            t["answer"] is not None for t in self.payload.get("turns", [])
        ):  # the turns' responses an earlier (failed) test did not reach
            filled.append("turns")
        return filled

    def add_payload_metrics(self, payload: CasePayload) -> None:
        """The metric results a payload carries, in their JSON form (a conversation's: its
        turns' too)."""
        for result in payload["metrics"]:
            self._keep_metric(str(result["metric"]), str(result["status"]), json.dumps(result))
        if self._turn_metrics is not None:
            for kept, turn in zip(self._turn_metrics, payload.get("turns", []), strict=False):
                for result in turn["metrics"]:
                    _keep(kept, str(result["metric"]), str(result["status"]), json.dumps(result))

    def add_metric(self, result: MetricResult) -> None:
        self._keep_metric(result.metric, result.status, result.model_dump_json())

    def _keep_metric(self, name: str, status: str, text: str) -> None:
        if _keep(self._metrics, name, status, text):
            self._metric_cache = None

    @property
    def status(self) -> Outcome:
        if self.payload.get("error"):
            return "error"
        # From the tests' outcomes: a score below its threshold that a test only recorded
        # (evaluate() without asserting) is shown in the report but fails nothing.
        outcomes = [outcome for _, outcome, _ in self._tests.values()]
        if not outcomes:
            return "skipped"
        worst = max(outcomes, key=lambda o: _SEVERITY[o])
        if worst == "skipped" and "passed" in outcomes:
            return "passed"
        return worst


_RANK = {"failed": 2, "passed": 1, "not_judged": 0}

TurnRecord = tuple["CasePayload", dict[str, MetricResult]]
"""A conversation's turn in the reports: its payload and its metrics' results."""


def _keep(kept: dict[str, tuple[str, str]], name: str, status: str, text: str) -> bool:
    """Keep the most telling result of a metric asserted by several tests: a failure over a
    pass, a pass over "not judged". Whether ``text`` was kept."""
    current = kept.get(name)
    if current is None or _RANK[status] >= _RANK[current[0]]:
        kept[name] = (status, text)
        return True
    return False


def _missing(payload: CasePayload) -> set[str]:
    """What a later test's payload may still bring: the response an earlier (failed) test did
    not reach, an error."""
    return {k for k in _FILLABLE if payload.get(k) in (None, [])}


def _fill(current: CasePayload, payload: CasePayload, filled: list[str]) -> None:
    """``current`` with the ``filled`` fields taken from a later ``payload``."""
    for key in filled:
        current[key] = payload[key]  # type: ignore[literal-required]
    if "turns" in filled:
        current["turns"] = [_without_metrics(t) for t in payload["turns"]]
    if "error" in filled and payload.get("crashed"):  # the error is a crash's
        current["crashed"] = True


def _without_metrics(turn: CasePayload) -> CasePayload:
    kept = dict(turn)
    kept["metrics"] = []
    return kept  # type: ignore[return-value]


_FILLABLE = ("answer", "contexts", "sources", "latency", "error")


@dataclass
class RunCollector:
    """The run's test outcomes and case payloads. Each payload goes to the spool as it
    arrives (:class:`~.spool.EventSpool`); :meth:`records` reads each case back alone, in
    report order, at the end."""

    spool: EventSpool = field(default_factory=EventSpool)
    critical_tests: dict[str, CriticalTest] = field(default_factory=dict)
    setup_error: str | None = None
    """The first setup error a test met (a judge that cannot be built): the run is fatal."""

    @property
    def cases(self) -> Mapping[str, object]:
        """The keys of the cases collected so far (in the order first met)."""
        return self.spool.entries

    def add(
        self,
        *,
        nodeid: str,
        when: str,
        outcome: str,
        payload: CasePayload | None,
        critical_marker: bool,
        message: str | None = None,
    ) -> None:
        """Take one test report (setup, call or teardown phase)."""
        mapped = _map_outcome(when, outcome)
        if mapped is None:
            return
        # A marked test is critical itself, with or without a case; a test of a critical
        # case is already counted with its case.
        if critical_marker and (payload is None or not payload["critical"]):
            self._critical_test(nodeid, mapped)
        if payload is not None:
            self._add_payload(payload, [nodeid, mapped, message])

    def _add_payload(self, payload: CasePayload, test: list[str | None]) -> None:
        """Spool a test's case payload with the test; keep the first setup error."""
        if payload.get("setup_error") and self.setup_error is None:
            self.setup_error = payload["setup_error"]
        event = {"test": test, "payload": payload}
        self.spool.add(payload["key"], payload["index"], event)

    def _critical_test(self, nodeid: str, outcome: Outcome) -> None:
        previous = self.critical_tests.get(nodeid)
        if previous is None or _SEVERITY[outcome] > _SEVERITY[previous.outcome]:
            self.critical_tests[nodeid] = CriticalTest(nodeid=nodeid, outcome=outcome)

    def records(self) -> Iterator[CaseRecord]:
        """Each case's record, built from its spooled payloads alone, in report order (by the
        case's index, then its key)."""
        for key in self.spool.in_order():
            yield self.record(key)

    def record(self, key: str) -> CaseRecord:
        """The case's record: its payloads merged, its tests' outcomes."""
        record: CaseRecord | None = None
        for event in self.spool.events(key):
            payload = event["payload"]
            if record is None:
                record = CaseRecord(payload)
                record.add_payload_metrics(payload)
            else:
                record.merge(payload)
            record.add_test(*event["test"])
        assert record is not None
        return record

    def sorted_cases(self) -> list[CaseRecord]:
        """Every case's record, in report order (all in memory: for a few cases)."""
        return list(self.records())

    def close(self) -> None:
        """Remove the spool."""
        self.spool.close()


_OUTCOMES: dict[tuple[str, str], Outcome] = {
    ("call", "passed"): "passed",
    ("call", "failed"): "failed",
    ("call", "skipped"): "skipped",
    ("setup", "failed"): "error",
    ("setup", "skipped"): "skipped",
    ("teardown", "failed"): "error",
}
"""A test's outcome in the report by the phase and pytest's outcome of its report; a phase
and outcome not here (a passed setup or teardown) tells nothing."""


def _map_outcome(when: str, outcome: str) -> Outcome | None:
    if when == CRASHED:
        return "error"
    return _OUTCOMES.get((when, outcome))


CRASHED = "???"
"""The phase of xdist's report for a test whose worker process died while running it."""


def crashed_case_payload(
    nodeid: str, cases: Mapping[str, LoadedCase], message: str | None
) -> CasePayload | None:
    """The payload of the case a crashed test ran, found from its node id (xdist's report of
    a dead worker carries none): the case is an error with the crash as its reason."""
    loaded = _case_of_nodeid(nodeid, cases)
    if loaded is None:
        return None
    error = f"the test process crashed: {message or 'its worker died'}"
    payload = case_payload(loaded, None, [], error=error)
    payload["crashed"] = True
    return payload


def _case_of_nodeid(nodeid: str, cases: Mapping[str, LoadedCase]) -> LoadedCase | None:
    """The case of a ``test_x.py::test_y[<key>]`` test (its parametrization id, possibly
    joined with other parameters' ids by ``-``) or of a zero-code ``data.json::<key>`` item."""
    label = _label_of(nodeid)
    exact = cases.get(label)
    if exact is not None:  # no other key that matches is as long (each is in the label)
        return exact
    best: LoadedCase | None = None
    for key, loaded in cases.items():
        if _names_case(label, key) and (best is None or len(key) > len(best.key)):
            best = loaded
    return best


def _label_of(nodeid: str) -> str:
    """The test's parametrization id (``test_y[<label>]``), or its name when it has none."""
    name = nodeid.rsplit("::", 1)[-1]
    return name[name.index("[") + 1 : -1] if name.endswith("]") and "[" in name else name


def _names_case(label: str, key: str) -> bool:
    """Whether the case ``key`` is one of the ids ``-`` joins in ``label``."""
    return any(
        label == shown
        or label.startswith(f"{shown}-")
        or label.endswith(f"-{shown}")
        or f"-{shown}-" in label
        # pytest shows non-ASCII ids escaped
        for shown in {key, key.encode("unicode_escape").decode("ascii")}
    )
