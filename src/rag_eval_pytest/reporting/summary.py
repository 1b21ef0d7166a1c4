"""Pure aggregation of case records into run-level numbers.

Composite (weighted, normalised over the metrics present), per-metric means, latency
avg/p50/p95 and slow count, per-tag table, critical summary, judge usage, and the run-level
threshold checks. No pytest, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..judges.base import Usage
from ..metrics.registry import metric_order
from .causes import count_causes, failure_causes
from .statistics import mean_interval, seed_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..metrics.base import MetricResult
    from .causes import FailureCause
    from .collector import CaseRecord
    from .models import CriticalTest


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
        parts = [self.unsupported_line()]
        if self.undecided:
            cases = self.undecided_cases
            metrics = "; ".join(f"{name} ({count})" for name, count in self.undecided.items())
            parts.append(
                f"{cases} case{'s' if cases != 1 else ''} need{'s' if cases == 1 else ''} an "
                f"LLM judge to decide: {metrics} (the local judge was unsure; "
                "judge.local.unsure)"
            )
        return "; ".join(p for p in parts if p)

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


def _tiers(results: Sequence[MetricResult]) -> dict[str, int]:
    """The items each tier of a cascade judge decided over ``results`` (empty without one),
    and how many of them the LLM tier was never asked about (``unasked``)."""
    total: dict[str, int] = {}
    for result in results:
        tiers = result.details.get("tiers")
        if not isinstance(tiers, dict):
            continue
        for tier, count in tiers.items():
            if isinstance(count, int):
                total[str(tier)] = total.get(str(tier), 0) + count
        total["unasked"] = total.get("unasked", 0) + (not tiers.get("llm"))
    return total


def _votes(results: Sequence[MetricResult]) -> dict[str, int]:
    """How many verdicts were asked again with more votes, and how many of them the votes
    disagreed on (their agreement below 1): the judge's measured noise on this metric."""
    revoted = [r for r in results if r.details.get("votes")]
    if not revoted:
        return {}
    disagreed = sum(
        isinstance(r.details.get("agreement"), (int, float)) and r.details["agreement"] < 1
        for r in revoted
    )
    return {"revoted": len(revoted), "disagreed": disagreed}


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


def summarise(
    records: Sequence[CaseRecord],
    *,
    weights: Mapping[str, float],
    thresholds: Mapping[str, float],
    slow_threshold: float,
    critical_tests: Sequence[CriticalTest] = (),
) -> RunSummary:
    statuses = [r.status for r in records]
    by_metric: dict[str, list[MetricResult]] = {}
    for record in records:
        for name, result in record.metrics.items():
            by_metric.setdefault(name, []).append(result)
    metrics: dict[str, MetricSummary] = {}
    for name in sorted(by_metric, key=metric_order):
        results = by_metric[name]
        judged = [r.score for r in results if r.status != "not_judged" and r.score is not None]
        keys = sorted(r.case for r in results if r.status != "not_judged" and r.score is not None)
        metrics[name] = MetricSummary(
            name=name,
            mean=_mean(judged),
            judged=len(judged),
            not_judged=len(results) - len(judged),
            passed=sum(r.status == "passed" for r in results),
            failed=sum(r.status == "failed" for r in results),
            case_thresholds=sorted({r.threshold for r in results if r.threshold is not None}),
            tiers=_tiers(results),
            interval=mean_interval(judged, seed_of(name, *keys)),
            votes=_votes(results),
        )
    means = {n: m.mean for n, m in metrics.items() if m.mean is not None}
    composite = weighted_mean(means, weights)
    case_composites = {r.payload["key"]: case_composite(r, weights) for r in records}

    checks = []
    for name, threshold in thresholds.items():
        score = composite if name == "composite" else means.get(name)
        checks.append(ThresholdCheck(name, score, threshold))
    checks.sort(key=lambda c: (c.name != "composite", metric_order(c.name)))

    latencies: list[float] = [v for v in (r.payload["latency"] for r in records) if v is not None]
    latency = Latency(
        count=len(latencies),
        avg=_mean(latencies),
        p50=percentile(latencies, 50),
        p95=percentile(latencies, 95),
        slow=sum(v > slow_threshold for v in latencies),
        slow_threshold=slow_threshold,
    )

    tags = _tag_summaries(records, case_composites)

    critical_records = [r for r in records if r.payload["critical"]]
    failed_critical = [
        r.payload["key"] for r in critical_records if r.status in ("failed", "error")
    ]
    failed_critical += [t.nodeid for t in critical_tests if t.outcome in ("failed", "error")]
    critical = CriticalSummary(
        total=len(critical_records) + len(critical_tests),
        passed=sum(r.status == "passed" for r in critical_records)
        + sum(t.outcome == "passed" for t in critical_tests),
        failed=failed_critical,
    )

    usage = sum((r.usage for record in records for r in record.metrics.values()), Usage())

    warnings = [
        f"threshold {c.name} {c.threshold:.2f} not met: no case could be scored on it"
        for c in checks
        if c.score is None
    ]
    trouble = judge_trouble(records)
    causes = {
        r.payload["key"]: failure_causes(r.payload, r.metrics.values(), r.status) for r in records
    }
    return RunSummary(
        case_causes=causes,
        judge=trouble,
        rag_failed_all=bool(records)
        and all(r.status == "error" and r.payload.get("error") for r in records),
        cases=len(records),
        passed=statuses.count("passed"),
        failed=statuses.count("failed"),
        errors=statuses.count("error"),
        skipped=statuses.count("skipped"),
        composite=composite,
        case_composites=case_composites,
        metrics=metrics,
        checks=checks,
        latency=latency,
        tags=tags,
        critical=critical,
        usage=usage,
        warnings=warnings,
    )


def _tag_summaries(
    records: Sequence[CaseRecord], case_composites: Mapping[str, float | None]
) -> list[TagSummary]:
    """Each tag's cases, counts and mean composite, by tag name."""
    by_tag = _records_by_tag(records)
    return [_tag_summary(tag, by_tag[tag], case_composites) for tag in sorted(by_tag)]


def _records_by_tag(records: Sequence[CaseRecord]) -> dict[str, list[CaseRecord]]:
    """The cases of each tag, in one pass: a search through every case per tag made a
    dataset whose cases each have a tag of their own quadratic in its size."""
    by_tag: dict[str, list[CaseRecord]] = {}
    for record in records:
        for tag in dict.fromkeys(record.payload["tags"]):  # a tag given twice counts once
            by_tag.setdefault(tag, []).append(record)
    return by_tag


def _tag_summary(
    tag: str, tagged: Sequence[CaseRecord], case_composites: Mapping[str, float | None]
) -> TagSummary:
    scores = [s for s in (case_composites[r.payload["key"]] for r in tagged) if s is not None]
    return TagSummary(
        tag=tag,
        count=len(tagged),
        passed=sum(r.status == "passed" for r in tagged),
        failed=sum(r.status in ("failed", "error") for r in tagged),
        avg_score=_mean(scores),
    )


def judge_failures(records: Sequence[CaseRecord]) -> dict[str, str]:
    """The metrics that no case could be judged on because the judge failed (an error, a
    refusal, replies that never parsed), each with the judge's first reason. A metric not
    judged only for the cases' own data (no contexts, no claims) is not among them."""
    failures: dict[str, str] = {}
    judged: set[str] = set()
    for record in records:
        for name, result in record.metrics.items():
            if result.status != "not_judged":
                judged.add(name)
            elif result.cause == "judge":
                error = result.details.get("judge_error") or result.reason
                failures.setdefault(name, str(error or "the judge failed"))
    return {
        name: reason
        for name, reason in sorted(failures.items(), key=lambda kv: metric_order(kv[0]))
        if name not in judged
    }


def judge_stop(records: Sequence[CaseRecord]) -> tuple[str, int] | None:
    """Why the judge stopped for the rest of the run (a refused key, too many failures in a
    row, its deadline), with the number of cases the judge failed on; ``None`` when it never
    stopped, or stopped without leaving any question unanswered."""
    reason = ""
    cases = 0
    for record in records:
        failed = [
            result.details.get("judge_stopped")
            for result in record.metrics.values()
            if result.status == "not_judged" and result.cause == "judge"
        ]
        cases += bool(failed)
        reason = reason or next((str(stop) for stop in failed if stop), "")
    return (reason, cases) if reason else None


def judge_trouble(records: Sequence[CaseRecord]) -> JudgeTrouble:
    """The judge's failures over the run's cases (see :class:`JudgeTrouble`)."""
    failed: list[str] = []
    first = ""
    unsupported: dict[str, int] = {}
    undecided: dict[str, int] = {}
    undecided_cases = 0
    judges: list[str] = []
    for record in records:
        unsure = [name for name, result in record.metrics.items() if result.undecided]
        for name in unsure:
            undecided[name] = undecided.get(name, 0) + 1
        undecided_cases += bool(unsure)
        for name, result in record.metrics.items():
            if result.unsupported:
                unsupported[name] = unsupported.get(name, 0) + 1
                label = record.payload.get("judge")
                if label and label not in judges:
                    judges.append(label)
        errors = [
            str(result.details.get("judge_error") or result.reason or "the judge failed")
            for result in record.metrics.values()
            if result.judge_failed
        ]
        if errors:
            failed.append(record.payload["key"])
            first = first or errors[0]
    return JudgeTrouble(
        unjudged_metrics=judge_failures(records),
        stopped=judge_stop(records),
        failed_cases=tuple(failed),
        first_error=first,
        unsupported=unsupported,
        unsupported_judges=tuple(judges),
        undecided=undecided,
        undecided_cases=undecided_cases,
    )
