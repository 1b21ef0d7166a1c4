"""Merging the JSON reports of shards (``--rag-shard I/N``) into one report.

The merged report is recomputed from the shards' cases, as if one run had produced them: the
composite, per-metric means, counts, latency, per-tag and critical sections; thresholds and
weights come from the shards' reports (they must agree). Each metric's pass or fail is
decided again from its score and threshold (:func:`~..metrics.base.status_of`), never taken
from the status a shard stored, and a case's from its tests' outcomes, as a run decides it
(the shards were read with :func:`~.reader.load_shard`: their cases are the ones their runs
wrote). The exit code is decided by the same function as a run's
(:func:`~.verdict.decide_verdict`), from the merged cases.

The shards must be one run's: every shard ``I/N`` once, of the same datasets (content) and
judge. A merge that lacks a shard, has one twice or mixes runs is refused (fatal) unless
``allow_partial``, which writes a report marked partial that says what is missing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import RagEvalError
from ..metrics.base import MetricResult, status_of
from .baselines import failing_regressions, unusable_reason
from .collector import CaseRecord
from .document import build_document, now_iso
from .history import selection
from .models import (
    CaseResult,
    CriticalTest,
    Report,
    RunSection,
    Selection,
    TurnResult,
)
from .summary import summarise
from .verdict import ExitCodes, ExitDecision, RunEnd, decide_verdict

if TYPE_CHECKING:
    from pathlib import Path

    from .models import DatasetInfo
    from .payload import CasePayload


class MergeError(RagEvalError):
    """Shard reports that cannot be merged into one (none, not one run's, a case twice)."""


@dataclass
class Merged:
    report: Report
    decision: ExitDecision


def _record(case: CaseResult) -> CaseRecord:
    payload: CasePayload = {
        "schema": 1,
        "key": case.key,
        "id": case.id,
        "index": case.index,
        "dataset": case.dataset,
        "question": case.question,
        "ground_truth": case.ground_truth,
        "critical": case.critical,
        "tags": list(case.tags),
        "expected_contexts": case.expected_contexts,
        "recorded": case.recorded,
        "answer": case.answer,
        "contexts": None
        if case.contexts is None
        else [{"text": c.text, "source": c.source} for c in case.contexts],
        "sources": list(case.sources),
        "latency": case.latency_s,
        "error": case.error,
        "adapter": None,
        "judge": None,
        "metrics": [],
        "inline": case.inline,
        # The shard decided whether its error was the RAG call's (a report of an earlier
        # version, without causes, knew only those).
        "crashed": bool(case.error)
        and "failure_cause" in case.model_fields_set
        and case.failure_cause != "rag_error",
        "stable_metrics": list(case.stable_metrics),  # its judge is not in the report
    }
    if case.turns is not None:
        payload["turns"] = [_turn_payload(case, turn) for turn in case.turns]
    record = CaseRecord(payload)
    record.add_payload_metrics(payload)  # a conversation's turns' (its own: below)
    for test in case.tests:
        record.add_test(test.nodeid, test.outcome, test.message)
    for result in case.metrics.values():
        record.add_metric(_decided(result))
    return record


def _decided(result: MetricResult) -> MetricResult:
    """``result`` with the status its score and threshold give."""
    status = status_of(result.score, result.threshold)
    if status == result.status:
        return result
    cause = (result.cause or "data") if status == "not_judged" else None
    return result.model_copy(update={"status": status, "cause": cause})


def _turn_payload(case: CaseResult, turn: TurnResult) -> CasePayload:
    """A conversation's turn as the payload a run's test sent (its results with it)."""
    return {
        "schema": 1,
        "key": turn.key,
        "id": turn.key,
        "index": case.index,
        "dataset": case.dataset,
        "question": turn.question,
        "ground_truth": turn.ground_truth,
        "critical": case.critical,
        "tags": list(case.tags),
        "expected_contexts": turn.expected_contexts,
        "recorded": turn.recorded,
        "answer": turn.answer,
        "contexts": None
        if turn.contexts is None
        else [{"text": c.text, "source": c.source} for c in turn.contexts],
        "sources": list(turn.sources),
        "latency": turn.latency_s,
        "error": None,
        "adapter": None,
        "judge": None,
        "metrics": [_decided(r).model_dump(mode="json") for r in turn.metrics.values()],
    }


def _settings_of(report: Report) -> tuple[dict[str, float], dict[str, float], float]:
    summary = report.summary
    weights = {n: m.weight for n, m in summary.metrics.items() if m.weight}
    thresholds = {n: m.threshold for n, m in summary.metrics.items() if m.threshold is not None}
    if summary.composite.threshold is not None:
        thresholds["composite"] = summary.composite.threshold
    return weights, thresholds, summary.latency.slow_threshold_s


def shard_problems(docs: list[tuple[Path, Report]]) -> list[str]:
    """Why these reports are not the complete set of shards of one run (empty when they are)."""
    problems: list[str] = []
    seen_runs: dict[str, Path] = {}
    shards: dict[tuple[int, int], Path] = {}
    counts: set[int] = set()
    for path, doc in docs:
        run = doc.run
        first = seen_runs.setdefault(str(run.id), path)
        if first is not path:
            problems.append(f"{path}: the same run as {first}, given twice")
            continue
        shard = run.shard
        if not shard:
            if len(docs) > 1:
                problems.append(f"{path}: not a shard (a run without --rag-shard)")
            continue
        try:
            index, count = (int(part) for part in shard.split("/"))
        except ValueError:
            problems.append(f"{path}: not a shard ({shard})")
            continue
        counts.add(count)
        if (index, count) in shards:
            problems.append(f"{path}: shard {shard} is also in {shards[index, count]}")
        shards[index, count] = path
    if len(counts) > 1:
        problems.append(
            f"shards of different splits: {', '.join(f'of {n}' for n in sorted(counts))}"
        )
    elif counts:
        (count,) = counts
        missing = [f"{i}/{count}" for i in range(1, count + 1) if (i, count) not in shards]
        if missing:
            problems.append(f"missing shard{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    for label, values in (
        ("datasets", {_datasets_of(doc.run) for _, doc in docs}),
        ("judges", {doc.run.judge for _, doc in docs} - {None}),
    ):
        if len(values) > 1:
            problems.append(f"runs of different {label}: {'; '.join(sorted(map(str, values)))}")
    return problems


def _datasets_of(run: RunSection) -> str:
    """The datasets' content hash when the report has one, else their paths."""
    if run.selection is not None and run.selection.datasets_sha256:
        return f"content {run.selection.datasets_sha256[:12]}"
    return ", ".join(ds.path for ds in run.datasets)


def merge_reports(
    docs: list[tuple[Path, Report]],
    *,
    version: str,
    critical_code: int = 2,
    fatal_code: int = 3,
    allow_partial: bool = False,
) -> Merged:
    if not docs:
        raise MergeError("no report to merge")
    problems = shard_problems(docs)
    if problems and not allow_partial:
        raise MergeError(
            "not the complete set of shards of one run: "
            + "; ".join(problems)
            + " (--allow-partial writes a report marked partial)"
        )
    records: dict[str, CaseRecord] = {}
    critical_tests: dict[str, CriticalTest] = {}
    weights: dict[str, float] = {}
    thresholds: dict[str, float] = {}
    slow = 5.0
    for path, doc in docs:
        doc_weights, doc_thresholds, slow = _settings_of(doc)
        weights.update(doc_weights)
        for name, value in doc_thresholds.items():
            if name in thresholds and thresholds[name] != value:
                raise MergeError(
                    f"{path}: threshold {name} {value} differs from another shard's "
                    f"{thresholds[name]}; shards of one run share their configuration"
                )
            thresholds[name] = value
        for case in doc.cases:
            if case.key in records:
                raise MergeError(f"{path}: case {case.key!r} is in two shards")
            records[case.key] = _record(case)
        for test in doc.summary.critical.tests:
            critical_tests[test.nodeid] = test
    ordered = sorted(records.values(), key=lambda r: (r.payload["index"], r.payload["key"]))
    summary = summarise(
        ordered,
        weights=weights,
        thresholds=thresholds,
        slow_threshold=slow,
        critical_tests=list(critical_tests.values()),
    )
    runs = [doc.run for _, doc in docs]
    report_only = all(r.report_only for r in runs)
    unsupported = min((r.unsupported for r in runs), key=("fail", "report").index)
    # A shard without cases ran no test (pytest's 5) by design: that says nothing of the run.
    pytest_exit = max(
        (r.pytest_exit for r in runs if not (r.selected_cases == 0 and r.pytest_exit == 5)),
        default=0,
    )
    decision = decide_verdict(
        summary,
        RunEnd(
            pytest_status=pytest_exit,
            ran_tests=bool(ordered) or any(r.pytest_exit != 5 for r in runs),
            failed_tests=summary.failed,
            errored_tests=summary.errors,
            report_only=report_only,
            unsupported=unsupported,
            empty_shard=None
            if ordered
            else f"none of the {len(runs)} shards holds a case: the merged report has none",
            # A shard stopped before its end (a setup error, an interruption) says why; what
            # its cases show (a judge that failed) is decided again from the merged cases.
            carried=_carried(docs),
            # Each shard was compared with the baseline on its own cases: what it found holds.
            regressions=tuple(
                line for _, doc in docs for line in failing_regressions(doc.comparison)
            ),
        ),
        ExitCodes(critical=critical_code, fatal=fatal_code),
    )
    datasets: dict[str, DatasetInfo] = {}
    for run in runs:
        for ds in run.datasets:
            datasets.setdefault(ds.path, ds)
    merged_run = RunSection(
        id=f"merged-{uuid.uuid4().hex[:6]}",
        started_at=min(r.started_at for r in runs),
        finished_at=now_iso(),
        duration_s=max(r.duration_s for r in runs),
        partial=bool(problems) or any(r.partial for r in runs),
        datasets=list(datasets.values()),
        selected_cases=sum(r.selected_cases for r in runs),
        tags_filter=list(runs[0].tags_filter),
        shard="merged " + ", ".join(r.shard or "?" for r in runs),
        selection=_merged_selection(runs, ordered, list(summary.metrics)),
        adapter=next((r.adapter for r in runs if r.adapter), None),
        judge=next((r.judge for r in runs if r.judge), None),
        git_commit=next((r.git_commit for r in runs if r.git_commit), None),
        pytest_exit=pytest_exit,
        exit_code=decision.code,
        exit_reason=decision.reason,
        report_only=report_only,
        unsupported=unsupported,
    )
    report = build_document(
        merged_run,
        summary,
        ordered,
        critical_tests=list(critical_tests.values()),
        warnings=[
            *(f"partial merge: {p}" for p in problems),
            *sorted({w for _, doc in docs for w in doc.warnings}),
        ],
        thresholds=thresholds,
        weights=weights,
        version=version,
    )
    return Merged(report, decision)


def _carried(docs: list[tuple[Path, Report]]) -> tuple[str, ...]:
    """Why shards gave no verdict that their cases do not show: a shard stopped before its
    end (a setup error, an interruption), or one that, asked to fail on a regression, could
    not use its baseline; each named by its shard, or its file when it is no shard."""
    carried = []
    for path, doc in docs:
        run = doc.run
        name = f"shard {run.shard}" if run.shard else path.name
        stopped = run.exit_reason.startswith("fatal: ") and run.pytest_exit not in (0, 1, 5)
        if run.setup_error or stopped:
            carried.append(f"{name}: {run.exit_reason.removeprefix('fatal: ')}")
        if (reason := unusable_reason(doc.comparison)) is not None:
            carried.append(f"{name}: {reason}")
    return tuple(carried)


def _merged_selection(
    runs: list[RunSection], records: list[CaseRecord], metrics: list[str]
) -> Selection | None:
    """The selection of the merged run: the shards' cases together, when every shard
    recorded its selection (reports of earlier versions did not)."""
    selections = [r.selection for r in runs if r.selection is not None]
    if len(selections) < len(runs):
        return None
    digests = {s.datasets_sha256 for s in selections}
    judges = {s.judge for s in selections} - {None}
    identities = {
        identity
        for s in selections
        for identity in s.judge_identities or ([s.judge_identity] if s.judge_identity else [])
    }
    return selection(
        cases=[r.payload["key"] for r in records],
        metrics=metrics,
        judge=judges.pop() if len(judges) == 1 else None,
        judge_identities=sorted(identities),
        datasets_sha256=digests.pop() if len(digests) == 1 else None,
        total_cases=max(s.total_cases for s in selections),
    )
