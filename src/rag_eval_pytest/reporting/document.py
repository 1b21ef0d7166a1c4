"""The run report as one JSON-safe document: ``eval_report.json`` is this document, and the
Markdown report, the history line and the terminal summary are rendered from it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..collector import CaseRecord
    from ..summary import RunSummary

SCHEMA_VERSION = 1


@dataclass
class RunMeta:
    """What the report header says about the run."""

    run_id: str
    started_at: str
    finished_at: str
    duration_s: float
    datasets: list[dict[str, Any]]
    adapter: str | None
    judge: str | None
    git_commit: str | None
    pytest_exit: int
    exit_code: int
    exit_reason: str
    partial: bool
    selected_cases: int
    tags_filter: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    shard: str | None = None
    critical_tests: list[dict[str, str]] = field(default_factory=list)
    selection: dict[str, Any] | None = None


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _status(met: bool | None) -> str:
    return {True: "PASS", False: "FAIL", None: "NOT JUDGED"}[met]


def build_document(
    meta: RunMeta,
    summary: RunSummary,
    records: Sequence[CaseRecord],
    *,
    thresholds: dict[str, float],
    weights: dict[str, float],
    version: str,
) -> dict[str, Any]:
    checks = {c.name: c for c in summary.checks}
    metrics = {}
    for name, m in summary.metrics.items():
        check = checks.get(name)
        metrics[name] = {
            "mean": _round(m.mean),
            "threshold": thresholds.get(name),
            "status": _status(check.met) if check else None,
            "judged": m.judged,
            "not_judged": m.not_judged,
            "passed": m.passed,
            "failed": m.failed,
            "weight": weights.get(name, 0.0),
        }
    composite_check = checks.get("composite")
    cases = []
    for record in records:
        payload = record.payload
        latency = payload.get("latency")
        cases.append(
            {
                "key": payload["key"],
                "id": payload["id"],
                "index": payload["index"],
                "dataset": payload["dataset"],
                "question": payload["question"],
                "ground_truth": payload["ground_truth"],
                "critical": payload["critical"],
                "tags": payload["tags"],
                "expected_contexts": payload["expected_contexts"],
                "status": record.status,
                "composite": _round(summary.case_composites.get(payload["key"])),
                "recorded": payload["recorded"],
                "answer": payload["answer"],
                "contexts": payload["contexts"],
                "sources": payload["sources"],
                "latency_s": _round(latency),
                "slow": latency is not None and latency > summary.latency.slow_threshold,
                "error": payload["error"],
                "tests": [
                    {"nodeid": t.nodeid, "outcome": t.outcome, "message": t.message}
                    for t in sorted(record.tests.values(), key=lambda t: t.nodeid)
                ],
                "metrics": {
                    name: record.metrics[name]
                    for name in sorted(record.metrics, key=lambda n: list(summary.metrics).index(n))
                },
            }
        )
    lat = summary.latency
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "rag-eval-pytest", "version": version},
        "run": {
            "id": meta.run_id,
            "started_at": meta.started_at,
            "finished_at": meta.finished_at,
            "duration_s": round(meta.duration_s, 3),
            "partial": meta.partial,
            "datasets": meta.datasets,
            "selected_cases": meta.selected_cases,
            "tags_filter": meta.tags_filter,
            "shard": meta.shard,
            "selection": meta.selection,
            "adapter": meta.adapter,
            "judge": meta.judge,
            "git_commit": meta.git_commit,
            "pytest_exit": meta.pytest_exit,
            "exit_code": meta.exit_code,
            "exit_reason": meta.exit_reason,
        },
        "summary": {
            "composite": {
                "score": _round(summary.composite),
                "threshold": thresholds.get("composite"),
                "status": _status(composite_check.met) if composite_check else None,
            },
            "metrics": metrics,
            "counts": {
                "cases": summary.cases,
                "passed": summary.passed,
                "failed": summary.failed,
                "errors": summary.errors,
                "skipped": summary.skipped,
            },
            "latency": {
                "count": lat.count,
                "avg_s": _round(lat.avg),
                "p50_s": _round(lat.p50),
                "p95_s": _round(lat.p95),
                "slow": lat.slow,
                "slow_threshold_s": lat.slow_threshold,
            },
            "critical": {
                "total": summary.critical.total,
                "passed": summary.critical.passed,
                "failed": summary.critical.failed,
                "tests": meta.critical_tests,
            },
            "tags": [
                {
                    "tag": t.tag,
                    "count": t.count,
                    "passed": t.passed,
                    "failed": t.failed,
                    "avg_score": _round(t.avg_score),
                }
                for t in summary.tags
            ],
            "usage": {
                k: (round(v, 6) if k == "cost_usd" else int(v)) for k, v in summary.usage.items()
            },
        },
        "cases": cases,
        "warnings": [*meta.warnings, *summary.warnings],
    }


def now_iso() -> str:
    return (
        dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    )
