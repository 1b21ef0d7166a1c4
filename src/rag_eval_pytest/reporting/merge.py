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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..errors import RagEvalError
from ..metrics.base import MetricResult, status_of
from .baselines import failing_regressions, unusable_reason
from .case_source import CaseSource, ListCases
from .collector import CaseRecord
from .document import build_document, case_result, now_iso
from .history import selection
from .models import (
    CaseResult,
    ContextResult,
    CriticalTest,
    Report,
    RunSection,
    Selection,
    TurnResult,
)
from .summary import SummaryBuilder
from .verdict import ExitCodes, ExitDecision, RunEnd, decide_verdict

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

    from .models import DatasetInfo
    from .payload import CasePayload, ContextPayload
    from .summary import RunSummary


class MergeError(RagEvalError):
    """Shard reports that cannot be merged into one (none, not one run's, a case twice)."""


@dataclass
class Merged:
    report: Report
    """The merged report (without its cases when they were merged into a spool)."""
    decision: ExitDecision
    cases: CaseSink
    """The merged cases, in report order."""


class ShardCases(Protocol):
    """A shard's cases, each read when the merge comes to it."""

    @property
    def order(self) -> Sequence[tuple[int, str]]:
        """Each case's index and key, in the shard's order."""
        ...

    def at(self, n: int) -> CaseResult: ...


class CaseSink(CaseSource, Protocol):
    """Where the merged cases go, in report order (a spool, or a list in memory)."""

    def add(self, written: dict[str, Any], shown: dict[str, Any] | None = None) -> None: ...


@dataclass(frozen=True)
class Shard:
    """A shard's report: ``report`` without its cases, and ``cases``."""

    path: Path
    report: Report
    cases: ShardCases


def _record(case: CaseResult) -> CaseRecord:
    """A shard's case as the record a run's tests would have made, its metrics decided again."""
    payload = _case_payload(case)
    record = CaseRecord(payload)
    record.add_payload_metrics(payload)  # a conversation's turns' (its own: below)
    for test in case.tests:
        record.add_test(test.nodeid, test.outcome, test.message)
    for result in case.metrics.values():
        record.add_metric(_decided(result))
    return record


def _case_payload(case: CaseResult) -> CasePayload:
    """A shard's case as the payload a run's test sent (its own results aside)."""
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
        "contexts": _contexts_payload(case.contexts),
        "sources": list(case.sources),
        "latency": case.latency_s,
        "error": case.error,
        "adapter": None,
        "judge": None,
        "metrics": [],
        "inline": case.inline,
        "crashed": _crashed(case),
        "stable_metrics": list(case.stable_metrics),  # its judge is not in the report
    }
    if case.turns is not None:
        payload["turns"] = [_turn_payload(case, turn) for turn in case.turns]
    return payload


def _crashed(case: CaseResult) -> bool:
    """Whether the case's error was its test process's, not the RAG call's: the shard
    decided it (a report of an earlier version, without causes, knew only the RAG call's)."""
    return (
        bool(case.error)
        and "failure_cause" in case.model_fields_set
        and case.failure_cause != "rag_error"
    )


def _contexts_payload(contexts: list[ContextResult] | None) -> list[ContextPayload] | None:
    if contexts is None:
        return None
    return [{"text": c.text, "source": c.source} for c in contexts]


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
        "contexts": _contexts_payload(turn.contexts),
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
    for path, doc in docs:
        found = _shard_of(path, doc.run, seen_runs, alone=len(docs) == 1)
        if isinstance(found, str):
            problems.append(found)
            continue
        if found in shards:
            problems.append(f"{path}: shard {doc.run.shard} is also in {shards[found]}")
        if found is not None:
            shards[found] = path
    return problems + _split_problems(shards) + _mixed_runs(docs)


def _shard_of(
    path: Path, run: RunSection, seen_runs: dict[str, Path], *, alone: bool
) -> tuple[int, int] | str | None:
    """Which shard a report is (its index and count); or why it is none, or ``None`` for the
    one report of a run that was not split."""
    first = seen_runs.setdefault(str(run.id), path)
    if first is not path:
        return f"{path}: the same run as {first}, given twice"
    if not run.shard:
        return None if alone else f"{path}: not a shard (a run without --rag-shard)"
    try:
        index, count = (int(part) for part in run.shard.split("/"))
    except ValueError:
        return f"{path}: not a shard ({run.shard})"
    return index, count


def _split_problems(shards: dict[tuple[int, int], Path]) -> list[str]:
    """Shards of different splits, or the shards of the one split that are not there."""
    counts = sorted({count for _, count in shards})
    if len(counts) > 1:
        return [f"shards of different splits: {', '.join(f'of {n}' for n in counts)}"]
    return _missing(shards, counts[0]) if counts else []


def _missing(shards: dict[tuple[int, int], Path], count: int) -> list[str]:
    missing = [f"{i}/{count}" for i in range(1, count + 1) if (i, count) not in shards]
    if not missing:
        return []
    return [f"missing shard{'s' if len(missing) > 1 else ''} {', '.join(missing)}"]


def _mixed_runs(docs: list[tuple[Path, Report]]) -> list[str]:
    """Reports of different datasets or judges: not one run's."""
    problems = []
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
    """The shards' reports (in memory) as one report with its cases, its verdict decided
    again from the merged cases."""
    cases = ListCases()
    shards = [
        Shard(path, doc.model_copy(update={"cases": []}), ListCases(doc.cases))
        for path, doc in docs
    ]
    merged = merge_shards(
        shards,
        cases,
        version=version,
        critical_code=critical_code,
        fatal_code=fatal_code,
        allow_partial=allow_partial,
    )
    return Merged(merged.report.model_copy(update={"cases": cases.cases}), merged.decision, cases)


def _without_cases(report: Report) -> Report:
    return report.model_copy(update={"cases": []})


def merge_shards(
    shards: list[Shard],
    cases: CaseSink,
    *,
    version: str,
    critical_code: int = 2,
    fatal_code: int = 3,
    allow_partial: bool = False,
) -> Merged:
    """The shards as one report, its verdict decided again from the merged cases, which go
    to ``cases`` one at a time, in report order (the report returned is without them)."""
    docs = [(shard.path, shard.report) for shard in shards]
    problems = _refuse_incomplete(docs, allow_partial=allow_partial)
    settings = _Shards()
    for shard in shards:
        settings.add(shard)
    builder = SummaryBuilder(settings.weights)
    keys = settings.merge(shards, builder, cases)
    summary = builder.summary(
        thresholds=settings.thresholds,
        slow_threshold=settings.slow,
        critical_tests=list(settings.critical_tests.values()),
    )
    end = _run_end(docs, len(keys), summary)
    decision = decide_verdict(summary, end, ExitCodes(critical=critical_code, fatal=fatal_code))
    report = build_document(
        _merged_run([doc.run for _, doc in docs], problems, keys, summary, end, decision),
        summary,
        [],
        critical_tests=list(settings.critical_tests.values()),
        warnings=_warnings(docs, problems),
        thresholds=settings.thresholds,
        weights=settings.weights,
        version=version,
    )
    return Merged(report, decision, cases)


def _warnings(docs: list[tuple[Path, Report]], problems: list[str]) -> list[str]:
    """What is missing from a partial merge, and the shards' warnings, each once."""
    return [
        *(f"partial merge: {p}" for p in problems),
        *sorted({w for _, doc in docs for w in doc.warnings}),
    ]


def _refuse_incomplete(docs: list[tuple[Path, Report]], *, allow_partial: bool) -> list[str]:
    """Why the reports are not one run's shards, all of them; unless ``allow_partial``, a
    :class:`MergeError` when they are not."""
    if not docs:
        raise MergeError("no report to merge")
    problems = shard_problems(docs)
    if problems and not allow_partial:
        raise MergeError(
            "not the complete set of shards of one run: "
            + "; ".join(problems)
            + " (--allow-partial writes a report marked partial)"
        )
    return problems


@dataclass
class _Shards:
    """The settings the shards share, and where each case is: the merged order."""

    placed: list[tuple[int, str, int, int]] = field(default_factory=list)
    """Each case's index and key, its shard and its place in the shard."""
    keys: set[str] = field(default_factory=set)
    shards: int = 0
    critical_tests: dict[str, CriticalTest] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)
    slow: float = 5.0

    def add(self, shard: Shard) -> None:
        weights, thresholds, self.slow = _settings_of(shard.report)
        self.weights.update(weights)
        self._add_thresholds(shard.path, thresholds)
        number, self.shards = self.shards, self.shards + 1
        for place, (index, key) in enumerate(shard.cases.order):
            if key in self.keys:
                raise MergeError(f"{shard.path}: case {key!r} is in two shards")
            self.keys.add(key)
            self.placed.append((index, key, number, place))
        for test in shard.report.summary.critical.tests:
            self.critical_tests[test.nodeid] = test

    def _add_thresholds(self, path: Path, thresholds: dict[str, float]) -> None:
        for name, value in thresholds.items():
            if name in self.thresholds and self.thresholds[name] != value:
                raise MergeError(
                    f"{path}: threshold {name} {value} differs from another shard's "
                    f"{self.thresholds[name]}; shards of one run share their configuration"
                )
            self.thresholds[name] = value

    def merge(self, shards: list[Shard], builder: SummaryBuilder, cases: CaseSink) -> list[str]:
        """Each case in the order of a run (by its index, then its key), read from its shard
        alone, counted into the summary and given to ``cases``; their keys."""
        keys = []
        for _, key, number, place in sorted(self.placed):
            record = _record(shards[number].cases.at(place))
            scored = builder.add(record)
            cases.add(case_result(record, scored, self.slow).model_dump(mode="json"))
            keys.append(key)
        return keys


def _run_end(docs: list[tuple[Path, Report]], cases: int, summary: RunSummary) -> RunEnd:
    """How the shards' runs ended, together, for the verdict of the merged run."""
    runs = [doc.run for _, doc in docs]
    return RunEnd(
        pytest_status=_pytest_exit(runs),
        ran_tests=bool(cases) or any(r.pytest_exit != 5 for r in runs),
        failed_tests=summary.failed,
        errored_tests=summary.errors,
        report_only=all(r.report_only for r in runs),
        unsupported=_unsupported(runs),
        empty_shard=None
        if cases
        else f"none of the {len(runs)} shards holds a case: the merged report has none",
        # A shard stopped before its end (a setup error, an interruption) says why; what
        # its cases show (a judge that failed) is decided again from the merged cases.
        carried=_carried(docs),
        # Each shard was compared with the baseline on its own cases: what it found holds.
        regressions=_regressions(docs),
    )


def _pytest_exit(runs: list[RunSection]) -> int:
    """The worst of the shards' pytest exits. A shard without cases ran no test (pytest's 5)
    by design: that says nothing of the run."""
    return max(
        (r.pytest_exit for r in runs if not (r.selected_cases == 0 and r.pytest_exit == 5)),
        default=0,
    )


def _unsupported(runs: list[RunSection]) -> Literal["fail", "report"]:
    """The strictest of the shards' ``judge.unsupported``."""
    return min((r.unsupported for r in runs), key=("fail", "report").index)


def _regressions(docs: list[tuple[Path, Report]]) -> tuple[str, ...]:
    return tuple(line for _, doc in docs for line in failing_regressions(doc.comparison))


def _merged_run(
    runs: list[RunSection],
    problems: list[str],
    keys: list[str],
    summary: RunSummary,
    end: RunEnd,
    decision: ExitDecision,
) -> RunSection:
    """The merged run's section: the shards' runs together, with the merged verdict."""
    adapter, judge, git_commit = _provenance(runs)
    return RunSection(
        id=f"merged-{uuid.uuid4().hex[:6]}",
        started_at=min(r.started_at for r in runs),
        finished_at=now_iso(),
        duration_s=max(r.duration_s for r in runs),
        partial=bool(problems) or any(r.partial for r in runs),
        datasets=_datasets(runs),
        selected_cases=sum(r.selected_cases for r in runs),
        tags_filter=list(runs[0].tags_filter),
        shard="merged " + ", ".join(_shard_names(runs)),
        selection=_merged_selection(runs, keys, list(summary.metrics)),
        adapter=adapter,
        judge=judge,
        git_commit=git_commit,
        pytest_exit=end.pytest_status,
        exit_code=decision.code,
        exit_reason=decision.reason,
        report_only=end.report_only,
        unsupported=_unsupported(runs),
    )


def _shard_names(runs: list[RunSection]) -> list[str]:
    return [run.shard or "?" for run in runs]


def _provenance(runs: list[RunSection]) -> tuple[str | None, str | None, str | None]:
    """The adapter, the judge and the commit, each from the first shard that names it."""
    return (
        _first(r.adapter for r in runs),
        _first(r.judge for r in runs),
        _first(r.git_commit for r in runs),
    )


def _first(values: Iterable[str | None]) -> str | None:
    return next((value for value in values if value), None)


def _datasets(runs: list[RunSection]) -> list[DatasetInfo]:
    """The shards' datasets, each once (by path)."""
    datasets: dict[str, DatasetInfo] = {}
    for run in runs:
        for ds in run.datasets:
            datasets.setdefault(ds.path, ds)
    return list(datasets.values())


def _carried(docs: list[tuple[Path, Report]]) -> tuple[str, ...]:
    """Why shards gave no verdict that their cases do not show: a shard stopped before its
    end (a setup error, an interruption), or one that, asked to fail on a regression, could
    not use its baseline; each named by its shard, or its file when it is no shard."""
    carried = []
    for path, doc in docs:
        run = doc.run
        name = f"shard {run.shard}" if run.shard else path.name
        if _stopped(run):
            carried.append(f"{name}: {run.exit_reason.removeprefix('fatal: ')}")
        if (reason := unusable_reason(doc.comparison)) is not None:
            carried.append(f"{name}: {reason}")
    return tuple(carried)


def _stopped(run: RunSection) -> bool:
    """Whether a shard stopped before its end: a setup error, an interruption."""
    interrupted = run.exit_reason.startswith("fatal: ") and run.pytest_exit not in (0, 1, 5)
    return bool(run.setup_error) or interrupted


def _merged_selection(
    runs: list[RunSection], keys: list[str], metrics: list[str]
) -> Selection | None:
    """The selection of the merged run: the shards' cases together, when every shard
    recorded its selection (reports of earlier versions did not)."""
    selections = [r.selection for r in runs if r.selection is not None]
    if len(selections) < len(runs):
        return None
    return _selection_of(selections, keys, metrics)


def _selection_of(selections: list[Selection], cases: list[str], metrics: list[str]) -> Selection:
    return selection(
        cases=cases,
        metrics=metrics,
        judge=_one({s.judge for s in selections} - {None}),
        judge_identities=sorted({i for s in selections for i in _identities(s)}),
        datasets_sha256=_one({s.datasets_sha256 for s in selections}),
        total_cases=max(s.total_cases for s in selections),
    )


def _identities(selection: Selection) -> list[str]:
    """The judge's identities of a shard (a report of an earlier version has one, or none)."""
    return selection.judge_identities or (
        [selection.judge_identity] if selection.judge_identity else []
    )


def _one(values: set[str | None]) -> str | None:
    """The value all shards share, or ``None`` when they differ."""
    return next(iter(values)) if len(values) == 1 else None
