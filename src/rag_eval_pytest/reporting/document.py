"""The run report: :func:`build_document` turns the run's summary and case records into the
:class:`~rag_eval_pytest.reporting.models.Report` that ``eval_report.json`` is written from
and the Markdown report, the history line and the terminal summary are rendered from.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Literal

from ..metrics.registry import metric_order
from .models import (
    SCHEMA_VERSION,
    CaseResult,
    CompositeSummary,
    ContextResult,
    Counts,
    CriticalSummary,
    CriticalTest,
    GateStatus,
    LatencySummary,
    MetricSummary,
    Report,
    RunSection,
    Summary,
    TagSummary,
    Tool,
    TurnResult,
)
from .stability import stable_metrics
from .summary import CaseScore

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .collector import CaseRecord, TurnRecord
    from .payload import ContextPayload
    from .summary import RunSummary, ThresholdCheck


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _status(met: bool | None) -> GateStatus:
    if met is None:
        return "NOT JUDGED"
    return "PASS" if met else "FAIL"


def case_result(record: CaseRecord, scored: CaseScore, slow_threshold: float) -> CaseResult:
    """The case as the report shows it (``scored``: what the summary decided of it)."""
    payload = record.payload
    latency = payload["latency"]
    causes = scored.causes
    return CaseResult(
        key=payload["key"],
        id=payload["id"],
        index=payload["index"],
        dataset=payload["dataset"],
        question=payload["question"],
        ground_truth=payload["ground_truth"],
        critical=payload["critical"],
        tags=payload["tags"],
        expected_contexts=payload["expected_contexts"],
        status=record.status,
        composite=_round(scored.composite),
        recorded=payload["recorded"],
        answer=payload["answer"],
        contexts=_contexts(payload["contexts"]),
        sources=payload["sources"],
        latency_s=_round(latency),
        slow=latency is not None and latency > slow_threshold,
        error=payload["error"],
        tests=sorted(record.tests.values(), key=lambda t: t.nodeid),
        metrics={name: record.metrics[name] for name in sorted(record.metrics, key=metric_order)},
        inline=payload.get("inline", False),
        failure_cause=causes[0] if causes else None,
        secondary_causes=list(causes[1:]),
        turns=None if record.turns is None else [_turn(t) for t in record.turns],
        stable_metrics=stable_metrics(payload, record.metrics),
    )


def _contexts(contexts: list[ContextPayload] | None) -> list[ContextResult] | None:
    if contexts is None:
        return None
    return [ContextResult(text=c["text"], source=c["source"]) for c in contexts]


def _turn(turn: TurnRecord) -> TurnResult:
    payload, metrics = turn
    statuses = {r.status for r in metrics.values()}
    status: Literal["passed", "failed", "not_judged"] | None = (
        "failed"
        if "failed" in statuses
        else "passed"
        if "passed" in statuses
        else "not_judged"
        if statuses
        else None
    )
    return TurnResult(
        key=payload["key"],
        turn=int(payload["key"].rsplit("-", 1)[1]),
        question=payload["question"],
        ground_truth=payload["ground_truth"],
        expected_contexts=payload["expected_contexts"],
        status=status,
        recorded=payload["recorded"],
        answer=payload["answer"],
        contexts=_contexts(payload["contexts"]),
        sources=payload["sources"],
        latency_s=_round(payload["latency"]),
        metrics=dict(metrics),
    )


def build_document(
    run: RunSection,
    summary: RunSummary,
    records: Sequence[CaseRecord],
    *,
    critical_tests: Sequence[CriticalTest],
    warnings: Sequence[str],
    thresholds: dict[str, float],
    weights: dict[str, float],
    version: str,
) -> Report:
    return Report(
        schema_version=SCHEMA_VERSION,
        tool=Tool(name="rag-eval-pytest", version=version),
        run=run,
        summary=_summary(summary, critical_tests, thresholds, weights),
        cases=[
            case_result(r, _scored(r, summary), summary.latency.slow_threshold) for r in records
        ],
        warnings=[*warnings, *summary.warnings],
    )


def _summary(
    summary: RunSummary,
    critical_tests: Sequence[CriticalTest],
    thresholds: dict[str, float],
    weights: dict[str, float],
) -> Summary:
    """The report's summary: the composite and each metric against its threshold, the counts,
    latency, critical tests, tags, usage and why cases failed."""
    checks = {c.name: c for c in summary.checks}
    composite_check = checks.get("composite")
    usage = summary.usage
    return Summary(
        composite=CompositeSummary(
            score=_round(summary.composite),
            threshold=thresholds.get("composite"),
            status=_status(composite_check.met) if composite_check else None,
        ),
        metrics=_metric_summaries(summary, checks, thresholds, weights),
        counts=Counts(
            cases=summary.cases,
            passed=summary.passed,
            failed=summary.failed,
            errors=summary.errors,
            skipped=summary.skipped,
        ),
        latency=_latency(summary),
        critical=CriticalSummary(
            total=summary.critical.total,
            passed=summary.critical.passed,
            failed=summary.critical.failed,
            tests=list(critical_tests),
        ),
        tags=_tags(summary),
        usage=usage.model_copy(update={"cost_usd": round(usage.cost_usd, 6)}),
        unchecked=summary.judge.unchecked_line() or None,
        failure_causes=dict(summary.failure_causes),
        unexplained_failures=summary.unexplained_failures,
    )


def _metric_summaries(
    summary: RunSummary,
    checks: dict[str, ThresholdCheck],
    thresholds: dict[str, float],
    weights: dict[str, float],
) -> dict[str, MetricSummary]:
    """Each metric's mean, its threshold and whether the mean met it, its counts."""
    metrics = {}
    for name, m in summary.metrics.items():
        check = checks.get(name)
        metrics[name] = MetricSummary(
            mean=_round(m.mean),
            threshold=thresholds.get(name),
            status=_status(check.met) if check else None,
            judged=m.judged,
            not_judged=m.not_judged,
            passed=m.passed,
            failed=m.failed,
            weight=weights.get(name, 0.0),
            case_thresholds=m.case_thresholds,
            tiers=m.tiers,
            interval=m.interval,
            votes=m.votes,
        )
    return metrics


def _latency(summary: RunSummary) -> LatencySummary:
    lat = summary.latency
    return LatencySummary(
        count=lat.count,
        avg_s=_round(lat.avg),
        p50_s=_round(lat.p50),
        p95_s=_round(lat.p95),
        slow=lat.slow,
        slow_threshold_s=lat.slow_threshold,
    )


def _tags(summary: RunSummary) -> list[TagSummary]:
    return [
        TagSummary(
            tag=t.tag,
            count=t.count,
            passed=t.passed,
            failed=t.failed,
            avg_score=_round(t.avg_score),
        )
        for t in summary.tags
    ]


def _scored(record: CaseRecord, summary: RunSummary) -> CaseScore:
    """What the summary decided of the case."""
    key = record.payload["key"]
    return CaseScore(summary.case_composites.get(key), summary.case_causes.get(key, ()))


def now_iso() -> str:
    return (
        dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    )
