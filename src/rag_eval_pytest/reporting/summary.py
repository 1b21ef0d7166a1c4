"""Pure aggregation of case records into run-level numbers.

Composite (weighted, normalised over the metrics present), per-metric means, latency
avg/p50/p95 and slow count, per-tag table, critical summary, judge usage, and the run-level
threshold checks. No pytest, no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ..judges.base import Usage
from ..metrics.registry import metric_order
from .causes import count_causes, failure_causes
from .statistics import mean_interval, seed_of

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from ..metrics.base import MetricResult
    from .causes import FailureCause
    from .collector import CaseRecord
    from .models import CriticalTest
    from .payload import CasePayload


@dataclass(frozen=True)
class ThresholdCheck:
    name: str
    score: float | None
    threshold: float

    @property
    def met(self) -> bool:
        """A gate that no case could be scored on is not met: a verdict needs a score."""
        return self.score is not None and self.score >= self.threshold

    def describe(self) -> str:
        if self.score is None:
            return f"{self.name} gate {self.threshold:.2f} not met: it could not be scored"
        return f"{self.name} {self.score:.2f} < {self.threshold:.2f}"


@dataclass
class MetricSummary:
    name: str
    mean: float | None
    judged: int
    not_judged: int
    passed: int
    failed: int
    case_thresholds: list[float] = field(default_factory=list)
    """The per-case thresholds the run's tests applied (distinct, ascending)."""
    tiers: dict[str, int] = field(default_factory=dict)
    """A cascade judge: the items each tier decided over the cases, and ``unasked``, the
    cases whose question never went to the LLM tier."""
    interval: tuple[float, float] | None = None
    """The mean's 95 % interval over the cases (seeded bootstrap: reproducible)."""
    votes: dict[str, int] = field(default_factory=dict)
    """``judge.passes: auto``: the verdicts asked again with more votes (``revoted``) and
    those whose votes differed (``disagreed``)."""


@dataclass
class Latency:
    count: int
    avg: float | None
    p50: float | None
    p95: float | None
    slow: int
    slow_threshold: float


@dataclass
class TagSummary:
    tag: str
    count: int
    passed: int
    failed: int
    avg_score: float | None


@dataclass
class CriticalSummary:
    total: int
    passed: int
    failed: list[str]


@dataclass(frozen=True)
class JudgeTrouble:
    """What the judges failed to decide in a run: the facts a verdict needs besides the
    scores. A case the judge failed on is a check that was asked for and not made, whichever
    judge it was (an LLM, the local one, a callable of the user's)."""

    unjudged_metrics: dict[str, str] = field(default_factory=dict)
    """The metrics no case could be judged on because of the judge, each with its first
    reason (:func:`judge_failures`)."""
    stopped: tuple[str, int] | None = None
    """Why the judge stopped for the rest of the run, with the cases it left
    (:func:`judge_stop`)."""
    failed_cases: tuple[str, ...] = ()
    """The keys of the cases with a metric the judge failed on, in run order."""
    first_error: str = ""
    """The judge's first error on those cases."""
    unsupported: dict[str, int] = field(default_factory=dict)
    """Checks the judge could not make at all (a criterion under the local judge): the
    number of cases per metric."""
    unsupported_judges: tuple[str, ...] = ()
    """The judges that could not make them, as described."""
    undecided: dict[str, int] = field(default_factory=dict)
    """Verdicts that depend on items the judge was unsure of (``judge.local.unsure:
    not_judged``): the number of cases per metric."""
    undecided_cases: int = 0
    """The cases with at least one such verdict."""

    def unchecked_line(self) -> str:
        """What the run could not check with the judges it got, in one line (the checks they
        cannot make, the verdicts they were unsure of); empty when everything was checked."""
        parts = [self.unsupported_line(), self.undecided_line()]
        return "; ".join(p for p in parts if p)

    def undecided_line(self) -> str:
        """The cases whose verdicts the local judge was unsure of, by metric; empty when it
        was sure of every one."""
        if not self.undecided:
            return ""
        cases = self.undecided_cases
        metrics = "; ".join(f"{name} ({count})" for name, count in self.undecided.items())
        return (
            f"{cases} case{'s' if cases != 1 else ''} need{'s' if cases == 1 else ''} an "
            f"LLM judge to decide: {metrics} (the local judge was unsure; "
            "judge.local.unsure)"
        )

    def unsupported_line(self) -> str:
        """ "3 checks could not run on the local judge (...)": empty when every check ran."""
        if not self.unsupported:
            return ""
        count = sum(self.unsupported.values())
        judges = ", ".join(self.unsupported_judges) or "the judge"
        checks = "; ".join(f"{name} ({cases})" for name, cases in self.unsupported.items())
        return (
            f"{count} check{'s' if count != 1 else ''} could not run on {judges}: {checks}; "
            "use an LLM judge (--rag-judge anthropic or openai) to run them"
        )


@dataclass
class RunSummary:
    cases: int
    passed: int
    failed: int
    errors: int
    skipped: int
    composite: float | None
    case_composites: dict[str, float | None]
    metrics: dict[str, MetricSummary]
    checks: list[ThresholdCheck]
    latency: Latency
    tags: list[TagSummary]
    critical: CriticalSummary
    usage: Usage
    warnings: list[str] = field(default_factory=list)
    judge: JudgeTrouble = field(default_factory=lambda: JudgeTrouble())
    rag_failed_all: bool = False
    """Every case is an error of the RAG system (none got an answer to judge)."""
    case_causes: dict[str, tuple[FailureCause, ...]] = field(default_factory=dict)
    """Why each failing case failed: every cause that applies, its cause first
    (:func:`~.causes.failure_causes`); empty for the others."""

    @property
    def failure_causes(self) -> dict[FailureCause, int]:
        """How many failing cases have each cause, most telling cause first."""
        return count_causes(self.case_causes.values())

    @property
    def unexplained_failures(self) -> int:
        """The failing cases no cause explains."""
        return self.failed + self.errors - sum(self.failure_causes.values())

    @property
    def unmet(self) -> list[ThresholdCheck]:
        return [c for c in self.checks if c.met is False]

    @property
    def below_threshold(self) -> int:
        """The metric results below their per-case thresholds, over all cases."""
        return sum(m.failed for m in self.metrics.values())


def weighted_mean(scores: Mapping[str, float], weights: Mapping[str, float]) -> float | None:
    """Weighted mean of ``scores`` over the weighted metrics present, weights renormalised."""
    present = {k: w for k, w in weights.items() if k in scores and w > 0}
    total = sum(present.values())
    if not total:
        return None
    return sum(scores[k] * w for k, w in present.items()) / total


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (``q`` in [0, 100]), ``None`` for no values."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _judged_scores(record: CaseRecord) -> dict[str, float]:
    return {
        name: result.score
        for name, result in record.metrics.items()
        if result.status != "not_judged" and result.score is not None
    }


def case_composite(record: CaseRecord, weights: Mapping[str, float]) -> float | None:
    """A case's composite: the weighted mean of its judged scores, and never more than the
    lowest score that failed its threshold. A metric without weight (correctness and the
    retrieval metrics by default) still fails its case, and a failed case must not read as
    perfect."""
    composite = weighted_mean(_judged_scores(record), weights)
    failed = [
        result.score
        for result in record.metrics.values()
        if result.status == "failed" and result.score is not None
    ]
    if not failed:
        return composite
    return min(failed) if composite is None else min(composite, *failed)


class CaseScore(NamedTuple):
    """What the summary decided of one case: its composite and why it failed."""

    composite: float | None
    causes: tuple[FailureCause, ...]


@dataclass
class _MetricTally:
    """One metric over the cases, as they come: its judged scores (for the mean and its
    interval) and its counts."""

    scores: list[float] = field(default_factory=list)
    cases: list[str] = field(default_factory=list)
    results: int = 0
    passed: int = 0
    failed: int = 0
    thresholds: set[float] = field(default_factory=set)
    tiers: dict[str, int] = field(default_factory=dict)
    revoted: int = 0
    disagreed: int = 0

    def add(self, result: MetricResult) -> None:
        self.results += 1
        if result.status != "not_judged" and result.score is not None:
            self.scores.append(result.score)
            self.cases.append(result.case)
        self.passed += result.status == "passed"
        self.failed += result.status == "failed"
        if result.threshold is not None:
            self.thresholds.add(result.threshold)
        _add_tiers(self.tiers, result)
        self._add_votes(result)

    def _add_votes(self, result: MetricResult) -> None:
        """A verdict asked again with more votes, and whether its votes disagreed (their
        agreement below 1): the judge's measured noise on this metric."""
        if not result.details.get("votes"):
            return
        self.revoted += 1
        agreement = result.details.get("agreement")
        self.disagreed += isinstance(agreement, (int, float)) and agreement < 1

    def summary(self, name: str) -> MetricSummary:
        seed = seed_of(name, *sorted(self.cases))
        return MetricSummary(
            name=name,
            mean=_mean(self.scores),
            judged=len(self.scores),
            not_judged=self.results - len(self.scores),
            passed=self.passed,
            failed=self.failed,
            case_thresholds=sorted(self.thresholds),
            tiers=self.tiers,
            interval=mean_interval(self.scores, seed),
            votes={"revoted": self.revoted, "disagreed": self.disagreed} if self.revoted else {},
        )


def _add_tiers(total: dict[str, int], result: MetricResult) -> None:
    """The items each tier of a cascade judge decided (nothing without one), and whether the
    LLM tier was never asked about the case (``unasked``)."""
    tiers = result.details.get("tiers")
    if not isinstance(tiers, dict):
        return
    for tier, count in tiers.items():
        if isinstance(count, int):
            total[str(tier)] = total.get(str(tier), 0) + count
    total["unasked"] = total.get("unasked", 0) + (not tiers.get("llm"))


@dataclass
class _TagTally:
    count: int = 0
    passed: int = 0
    failed: int = 0
    total: float = 0.0
    scored: int = 0

    def add(self, status: str, composite: float | None) -> None:
        self.count += 1
        self.passed += status == "passed"
        self.failed += status in ("failed", "error")
        if composite is not None:
            self.total += composite
            self.scored += 1

    def summary(self, tag: str) -> TagSummary:
        average = self.total / self.scored if self.scored else None
        return TagSummary(tag, self.count, self.passed, self.failed, average)


@dataclass
class _LatencyTally:
    seconds: list[float] = field(default_factory=list)

    def summary(self, slow_threshold: float) -> Latency:
        values = self.seconds
        return Latency(
            count=len(values),
            avg=_mean(values),
            p50=percentile(values, 50),
            p95=percentile(values, 95),
            slow=sum(v > slow_threshold for v in values),
            slow_threshold=slow_threshold,
        )


@dataclass
class _CriticalTally:
    total: int = 0
    passed: int = 0
    failed: list[str] = field(default_factory=list)

    def add(self, key: str, status: str) -> None:
        self.total += 1
        self.passed += status == "passed"
        if status in ("failed", "error"):
            self.failed.append(key)

    def summary(self, tests: Sequence[CriticalTest]) -> CriticalSummary:
        return CriticalSummary(
            total=self.total + len(tests),
            passed=self.passed + sum(t.outcome == "passed" for t in tests),
            failed=[*self.failed, *(t.nodeid for t in tests if t.outcome in ("failed", "error"))],
        )


@dataclass
class _TroubleTally:
    """What the judges failed to decide, case by case (see :class:`JudgeTrouble`)."""

    failures: dict[str, str] = field(default_factory=dict)
    judged: set[str] = field(default_factory=set)
    stop: str = ""
    stopped_cases: int = 0
    failed: list[str] = field(default_factory=list)
    first: str = ""
    unsupported: dict[str, int] = field(default_factory=dict)
    judges: list[str] = field(default_factory=list)
    undecided: dict[str, int] = field(default_factory=dict)
    undecided_cases: int = 0

    def add(self, key: str, judge: str | None, metrics: Mapping[str, MetricResult]) -> None:
        for name, result in metrics.items():
            self._add_judged(name, result)
            self._add_unchecked(name, result, judge)
        self.undecided_cases += any(result.undecided for result in metrics.values())
        self._add_stop(metrics.values())
        self._add_errors(key, metrics.values())

    def _add_judged(self, name: str, result: MetricResult) -> None:
        """Whether the metric was judged, or the judge's first reason for failing it."""
        if result.status != "not_judged":
            self.judged.add(name)
        elif result.cause == "judge":
            error = result.details.get("judge_error") or result.reason
            self.failures.setdefault(name, str(error or "the judge failed"))

    def _add_unchecked(self, name: str, result: MetricResult, judge: str | None) -> None:
        """A verdict the judge was unsure of, or a check it could not make."""
        if result.undecided:
            self.undecided[name] = self.undecided.get(name, 0) + 1
        if not result.unsupported:
            return
        self.unsupported[name] = self.unsupported.get(name, 0) + 1
        if judge and judge not in self.judges:
            self.judges.append(judge)

    def _add_errors(self, key: str, results: Iterable[MetricResult]) -> None:
        errors = [_judge_error(result) for result in results if result.judge_failed]
        if errors:
            self.failed.append(key)
            self.first = self.first or errors[0]

    def _add_stop(self, results: Iterable[MetricResult]) -> None:
        """Why the judge stopped for the rest of the run (a refused key, too many failures in
        a row, its deadline), and the cases it failed on."""
        failed = [result.details.get("judge_stopped") for result in results if _judge_cause(result)]
        self.stopped_cases += bool(failed)
        self.stop = self.stop or next((str(stop) for stop in failed if stop), "")

    def trouble(self) -> JudgeTrouble:
        # The metrics no case could be judged on because the judge failed (not those left
        # unjudged only for the cases' own data: no contexts, no claims).
        unjudged = {
            name: reason
            for name, reason in sorted(self.failures.items(), key=lambda kv: metric_order(kv[0]))
            if name not in self.judged
        }
        return JudgeTrouble(
            unjudged_metrics=unjudged,
            stopped=(self.stop, self.stopped_cases) if self.stop else None,
            failed_cases=tuple(self.failed),
            first_error=self.first,
            unsupported=self.unsupported,
            unsupported_judges=tuple(self.judges),
            undecided=self.undecided,
            undecided_cases=self.undecided_cases,
        )


def _judge_cause(result: MetricResult) -> bool:
    """Not judged because of the judge."""
    return result.status == "not_judged" and result.cause == "judge"


def _judge_error(result: MetricResult) -> str:
    return str(result.details.get("judge_error") or result.reason or "the judge failed")


@dataclass
class SummaryBuilder:
    """The run's summary, built one case at a time (:meth:`add`), so that a run holds what
    the summary needs (each metric's scores, counts, the failing cases' keys) and never every
    case at once: :func:`summarise` over records in memory, the reports over the cases
    spooled to disk (:mod:`.spool`)."""

    weights: Mapping[str, float]
    statuses: Counter[str] = field(default_factory=Counter)
    metrics: dict[str, _MetricTally] = field(default_factory=dict)
    case_composites: dict[str, float | None] = field(default_factory=dict)
    case_causes: dict[str, tuple[FailureCause, ...]] = field(default_factory=dict)
    latency: _LatencyTally = field(default_factory=_LatencyTally)
    tags: dict[str, _TagTally] = field(default_factory=dict)
    critical: _CriticalTally = field(default_factory=_CriticalTally)
    usage: Usage = field(default_factory=Usage)
    trouble: _TroubleTally = field(default_factory=_TroubleTally)
    rag_errors: int = 0

    def add(self, record: CaseRecord) -> CaseScore:
        """Count one case in; what the summary decided of it."""
        payload, status, results = record.payload, record.status, record.metrics
        key = payload["key"]
        self.statuses[status] += 1
        for name, result in results.items():
            self.metrics.setdefault(name, _MetricTally()).add(result)
            self.usage = self.usage + result.usage
        scored = CaseScore(
            case_composite(record, self.weights),
            failure_causes(payload, results.values(), status),
        )
        self.case_composites[key] = scored.composite
        if scored.causes:
            self.case_causes[key] = scored.causes
        self._add_case(payload, status, scored.composite)
        self.trouble.add(key, payload.get("judge"), results)
        return scored

    def _add_case(self, payload: CasePayload, status: str, composite: float | None) -> None:
        if payload["latency"] is not None:
            self.latency.seconds.append(payload["latency"])
        for tag in dict.fromkeys(payload["tags"]):  # a tag given twice counts once
            self.tags.setdefault(tag, _TagTally()).add(status, composite)
        if payload["critical"]:
            self.critical.add(payload["key"], status)
        self.rag_errors += status == "error" and bool(payload.get("error"))

    def summary(
        self,
        *,
        thresholds: Mapping[str, float],
        slow_threshold: float,
        critical_tests: Sequence[CriticalTest] = (),
    ) -> RunSummary:
        """The run's summary of the cases added."""
        metrics = {
            name: self.metrics[name].summary(name)
            for name in sorted(self.metrics, key=metric_order)
        }
        means = {n: m.mean for n, m in metrics.items() if m.mean is not None}
        composite = weighted_mean(means, self.weights)
        checks = _checks(thresholds, composite, means)
        cases = sum(self.statuses.values())
        return RunSummary(
            case_causes=self.case_causes,
            judge=self.trouble.trouble(),
            rag_failed_all=bool(cases) and self.rag_errors == cases,
            cases=cases,
            passed=self.statuses["passed"],
            failed=self.statuses["failed"],
            errors=self.statuses["error"],
            skipped=self.statuses["skipped"],
            composite=composite,
            case_composites=self.case_composites,
            metrics=metrics,
            checks=checks,
            latency=self.latency.summary(slow_threshold),
            tags=[self.tags[tag].summary(tag) for tag in sorted(self.tags)],
            critical=self.critical.summary(critical_tests),
            usage=self.usage,
            warnings=_unscored(checks),
        )


def _unscored(checks: Sequence[ThresholdCheck]) -> list[str]:
    return [
        f"threshold {c.name} {c.threshold:.2f} not met: no case could be scored on it"
        for c in checks
        if c.score is None
    ]


def _checks(
    thresholds: Mapping[str, float], composite: float | None, means: Mapping[str, float]
) -> list[ThresholdCheck]:
    """The run-level gates, the composite first."""
    checks = [
        ThresholdCheck(name, composite if name == "composite" else means.get(name), threshold)
        for name, threshold in thresholds.items()
    ]
    checks.sort(key=lambda c: (c.name != "composite", metric_order(c.name)))
    return checks


def summarise(
    records: Iterable[CaseRecord],
    *,
    weights: Mapping[str, float],
    thresholds: Mapping[str, float],
    slow_threshold: float,
    critical_tests: Sequence[CriticalTest] = (),
) -> RunSummary:
    """The summary of ``records``, each read once."""
    builder = SummaryBuilder(weights)
    for record in records:
        builder.add(record)
    return builder.summary(
        thresholds=thresholds, slow_threshold=slow_threshold, critical_tests=critical_tests
    )
