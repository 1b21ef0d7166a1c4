"""What a run compares itself with: a baseline (``--rag-baseline``), and the cases whose
outcome flips with nothing changed.

* :func:`compare`: this run against a baseline: the history (each case's scores from the
  last run of the same judge identity that judged it and was not flagged as a regression,
  kept under the output folder's ``baselines/``: :mod:`.baseline_store`), or an earlier
  ``eval_report.json`` (``--rag-baseline PATH``), over the cases both scored. A baseline that
  cannot be used (a path that names no report, a stored file that cannot be read, nothing in
  common with this run) is said as such: under ``--rag-fail-on-regression`` the run is fatal
  (:func:`unusable_reason`), since a gate that cannot compare is no gate. A history that
  holds no earlier run of these cases yet is the start of one, not a fault.
* :func:`flaky_cases`: the cases whose outcome flipped at least twice in their last runs with
  the same answer and contexts (``rag_flaky``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .baseline_store import (
    KeptRuns,
    UnreadableStore,
    payload_content,
    read_kept,
    report_content,
    store_path,
    updated,
    write_kept,
)
from .models import Comparison, MetricChange
from .statistics import paired_change, seed_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..config.settings import RegressionSettings
    from .collector import CaseRecord
    from .models import Report

CaseScores = dict[str, dict[str, float]]
"""Per metric, each case's score."""


def case_scores(records: Sequence[CaseRecord]) -> CaseScores:
    """The judged scores of a run's cases, per metric."""
    scores: CaseScores = {}
    for record in records:
        key = record.payload["key"]
        for name, result in record.metrics.items():
            if result.status != "not_judged" and result.score is not None:
                scores.setdefault(name, {})[key] = result.score
    return scores


def report_scores(report: Report) -> CaseScores:
    """The judged scores of the cases of a report (``--rag-baseline PATH``)."""
    scores: CaseScores = {}
    for case in report.cases:
        for name, result in case.metrics.items():
            if result.status != "not_judged" and result.score is not None:
                scores.setdefault(name, {})[case.key] = result.score
    return scores


def content_hash(payload: Mapping[str, Any]) -> str:
    """What a case's outcome was judged on: its answer and its contexts."""
    material = json.dumps([payload.get("answer"), payload.get("contexts")], sort_keys=True)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Baseline:
    label: str
    run_id: str | None
    scores: CaseScores
    named: bool = False
    """Given by its path (``--rag-baseline PATH``): having nothing in common with this run
    makes it unusable, where a history's first run of some cases is no fault."""
    runs: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)
    """The history's: per metric, the run each case's score came from."""
    order: Sequence[str | None] = ()
    """The history's runs, oldest first."""
    contents: Mapping[str, str] = field(default_factory=dict)
    """Each case's :func:`~.baseline_store.case_content`: a case of this run with the same
    key and other content is not compared."""


@dataclass(frozen=True)
class NotCompared:
    """Why the run was not compared with a baseline; ``unusable`` when a baseline was named
    or kept and cannot be used (as opposed to a history with no earlier run yet)."""

    reason: str
    unusable: bool = True


NO_HISTORY = "no earlier complete run with this judge identity kept its cases' scores"


@dataclass(frozen=True)
class RunJudge:
    """Who judged this run: its judge identity (the one the trend and the history go by)
    and its judges' description."""

    identity: str | None = None
    label: str | None = None


def load_baseline(
    spec: str, kept: KeptRuns | UnreadableStore | None, judge: RunJudge | None = None
) -> Baseline | NotCompared:
    """The baseline ``spec`` names: ``history`` (``kept``, the runs the output folder kept
    for this judge identity, or why they cannot be read) or a report's path; or why there
    is none. A report judged by another judge than ``judge`` is none: unlike runs are not
    compared."""
    if spec == "history":
        if isinstance(kept, UnreadableStore):
            return NotCompared(str(kept))
        if kept is None or not kept.cases:
            return NotCompared(NO_HISTORY, unusable=False)
        return history_baseline(kept)
    from ..errors import ReportError
    from .reader import load_report

    try:
        report = load_report(Path(spec))
    except ReportError as exc:
        return NotCompared(f"the baseline cannot be read: {exc}")  # it names the file
    unlike = _unlike_judge(spec, report, judge or RunJudge())
    if unlike is not None:
        return NotCompared(unlike)
    return Baseline(
        label=spec,
        run_id=report.run.id,
        scores=report_scores(report),
        named=True,
        contents={case.key: report_content(case) for case in report.cases},
    )


def _unlike_judge(spec: str, report: Report, ours: RunJudge) -> str | None:
    """Why a baseline report's judge is not this run's (its identity, or its description for
    a report that recorded none); ``None`` when alike, or when one side used no judge."""
    selection = report.run.selection
    theirs = RunJudge(selection.judge_identity if selection else None, report.run.judge)
    if theirs.identity and ours.identity:
        if theirs.identity == ours.identity:
            return None
    elif not (theirs.label and ours.label) or theirs.label == ours.label:
        return None
    return (
        f"the baseline {spec} was judged by {_judge_words(theirs)}, this run by "
        f"{_judge_words(ours)}: runs of different judges (another model, prompt or number of "
        "votes) are not compared"
    )


def _judge_words(judge: RunJudge) -> str:
    """ "custom (judge-a), identity 3f2a1c9d passes=1": the fingerprints cut to 8 digits."""
    identity = re.sub(r"\b([0-9a-f]{8})[0-9a-f]{8,}\b", r"\1", judge.identity or "")
    return f"{judge.label or 'no judge'}" + (f", identity {identity}" if identity else "")


def history_baseline(kept: KeptRuns) -> Baseline:
    """The kept scores as a baseline: each case's, from the last run that judged it."""
    scores: CaseScores = {}
    runs: dict[str, dict[str, str | None]] = {}
    for key, case in kept.cases.items():
        for metric, entry in case.metrics.items():
            scores.setdefault(metric, {})[key] = entry.score
            runs.setdefault(metric, {})[key] = entry.run
    return Baseline(
        label="history",
        run_id=None,
        scores=scores,
        runs=runs,
        order=kept.runs,
        contents={key: case.content for key, case in kept.cases.items()},
    )


def _history_label(baseline: Baseline, compared: Mapping[str, Sequence[str]]) -> Baseline:
    """The history baseline named by the runs its compared scores came from: "history: run
    R" (or "history: runs R1, R2", each case's last run), ``run_id`` the latest of them."""
    if not baseline.runs:  # a report's path names it
        return baseline
    runs = {baseline.runs[metric][key] for metric, keys in compared.items() for key in keys}
    if not runs:
        return baseline
    order = list(baseline.order)
    found = [str(run) for run in sorted(runs, key=lambda r: order.index(r) if r in order else -1)]
    shown = ", ".join(found[-3:]) + (f" and {len(found) - 3} earlier" if len(found) > 3 else "")
    label = f"history: run {found[0]}" if len(found) == 1 else f"history: runs {shown}"
    return replace(baseline, label=label, run_id=found[-1])


def compare(
    baseline: Baseline | NotCompared,
    scores: CaseScores,
    *,
    alpha: float,
    min_drop: float,
    gate: bool = False,
    contents: Mapping[str, str] | None = None,
) -> Comparison:
    """Each metric both runs scored, over the cases both scored with the same content (this
    run's ``contents``, when given). ``gate``: the run fails on a regression
    (``--rag-fail-on-regression``), and cannot pass without a comparison."""
    if isinstance(baseline, NotCompared):
        return Comparison(
            baseline="none", baseline_run=None, alpha=alpha, min_drop=min_drop, changes=[],
            not_compared=baseline.reason, unusable=baseline.unusable, gate=gate,
        )  # fmt: skip
    changed = {
        key
        for key, digest in (contents or {}).items()
        if baseline.contents.get(key, digest) != digest
    }
    shared = {
        metric: sorted(set(baseline.scores[metric]) & set(scores[metric]) - changed)
        for metric in set(baseline.scores) & set(scores)
    }
    baseline = _history_label(baseline, shared)
    changes = []
    for metric in sorted(shared):
        before = {key: baseline.scores[metric][key] for key in shared[metric]}
        change = paired_change(before, scores[metric], seed_of(metric, baseline.run_id))
        if change is None:
            continue
        changes.append(
            MetricChange(
                metric=metric,
                cases=change.cases,
                before=change.before,
                after=change.after,
                change=change.change,
                interval=change.interval,
                p_value=change.p_value,
                significant=change.significant(alpha),
                testable=change.testable(alpha),
                regression=change.is_regression(alpha, min_drop),
            )
        )
    return Comparison(
        baseline=baseline.label,
        baseline_run=baseline.run_id,
        alpha=alpha,
        min_drop=min_drop,
        changes=changes,
        not_compared=None if changes else _nothing_shared(baseline, scores, changed),
        unusable=not changes and baseline.named,
        gate=gate,
        changed_cases=sorted(changed),
    )


def _nothing_shared(baseline: Baseline, scores: CaseScores, changed: set[str]) -> str:
    """Why a baseline that was read gave no change to test."""
    ours = {key for cases in scores.values() for key in cases}
    theirs = {key for cases in baseline.scores.values() for key in cases}
    if not (ours & theirs) - changed:
        other = (
            f"; {len(changed)} of this run's cases have its ids with another question, "
            "ground truth or expected documents (another dataset's content)"
            if changed
            else ""
        )
        return (
            f"the baseline {baseline.label} has no scored case in common with this run "
            f"({len(theirs)} scored there, {len(ours)} here{other})"
        )
    return f"the baseline {baseline.label}: no metric was scored on 2 or more of the same cases"


def unusable_reason(comparison: Comparison | None) -> str | None:
    """Why a run that fails on a regression (``--rag-fail-on-regression``) cannot give a
    verdict: its baseline cannot be used. ``None`` without the gate, without a comparison,
    and for a history that holds no earlier run yet (its first run starts it)."""
    if comparison is None or not comparison.gate or not comparison.unusable:
        return None
    return f"--rag-fail-on-regression, and no comparison: {comparison.not_compared}"


def failing_regressions(comparison: Comparison | None) -> tuple[str, ...]:
    """The regressions that fail the run (``--rag-fail-on-regression``), described."""
    if comparison is None or not comparison.gate:
        return ()
    return tuple(describe(c) for c in comparison.regressions)


def describe(change: MetricChange) -> str:
    """ "faithfulness 0.91 -> 0.78 (-0.13, 95 % -0.18 to -0.08, p=0.001)"."""
    low, high = change.interval
    return (
        f"{change.metric} {change.before:.2f} -> {change.after:.2f} ({change.change:+.2f}, "
        f"95 % {low:+.2f} to {high:+.2f}, p={change.p_value:.3g}, {change.cases} cases)"
    )


# --------------------------------------------------------------------------- flaky cases


def outcomes_after(
    kept: KeptRuns | None,
    records: Sequence[CaseRecord],
    run_id: str | None,
    window: int,
) -> dict[str, list[list[str]]]:
    """Each of this run's cases' last ``window`` outcomes, this run's last: ``[run, content
    hash, status]``."""
    before = kept.outcomes if kept is not None else {}
    outcomes: dict[str, list[list[str]]] = {}
    for record in records:
        key = record.payload["key"]
        earlier = before.get(key)
        entries = earlier if isinstance(earlier, list) else []
        last = [list(map(str, e)) for e in entries if isinstance(e, list) and len(e) == 3]
        last.append([str(run_id), content_hash(record.payload), record.status])
        outcomes[key] = last[-window:]
    return outcomes


def flips(history: Sequence[Sequence[str]]) -> int:
    """How often a case's outcome changed between pass and fail from one run to the next,
    counting only the runs judged on its last answer and contexts."""
    if not history:
        return 0
    current = history[-1][1]
    same = [status for _, digest, status in history if digest == current]
    judged = [s for s in same if s in ("passed", "failed")]
    return sum(a != b for a, b in pairwise(judged))


def flaky_cases(outcomes: Mapping[str, Sequence[Sequence[str]]], least: int = 2) -> dict[str, str]:
    """The cases that flipped at least ``least`` times with the same answer and contexts,
    each with its history ("passed, failed, passed, failed")."""
    return {
        key: ", ".join(status for _, _, status in history)
        for key, history in outcomes.items()
        if flips(history) >= least
    }


# --------------------------------------------------------------------------- one run


@dataclass
class NoiseCheck:
    """What a run learns from its baseline and its cases' last outcomes: the comparison,
    the judge-flaky cases, and what the next runs of the same judge identity will read."""

    comparison: Comparison | None
    flaky: dict[str, str]
    """Judge-flaky cases, each with its last outcomes."""
    quarantined: dict[str, int]
    """Quarantined flaky cases (``rag_flaky: quarantine``) that failed, with their failed
    tests: their failures do not fail the run."""
    _path: Path
    _kept: KeptRuns | None
    _judge_identity: str | None
    _run_id: str | None
    _records: Sequence[CaseRecord]
    _outcomes: dict[str, list[list[str]]]

    @property
    def regressions(self) -> list[MetricChange]:
        return self.comparison.regressions if self.comparison is not None else []

    def failing(self) -> tuple[str, ...]:
        """The regressions that fail the run (``rag_fail_on_regression``), described."""
        return failing_regressions(self.comparison)

    def unusable(self) -> str | None:
        """Why the run cannot pass the regression gate: its baseline cannot be used."""
        return unusable_reason(self.comparison)

    def store(self) -> None:
        """Keep this run's outcomes, and its scores unless it was flagged as a regression
        (by whichever baseline): the next run is compared with the last run that was not."""
        flagged = self.comparison is not None and self.comparison.flagged
        kept = updated(
            self._kept,
            self._judge_identity,
            self._records,
            self._outcomes,
            run_id=self._run_id,
            scores=not flagged,
        )
        write_kept(self._path, kept)


def check_noise(
    settings: RegressionSettings,
    output_dir: Path,
    judge_identity: str | None,
    run_id: str | None,
    records: Sequence[CaseRecord],
    judge: str | None = None,
) -> NoiseCheck:
    """The comparison of this run (judged by ``judge_identity``, described as ``judge``) with
    its baseline, and its judge-flaky cases."""
    path = store_path(output_dir, judge_identity)
    try:
        kept: KeptRuns | UnreadableStore | None = read_kept(path, judge_identity)
    except UnreadableStore as exc:
        kept = exc
    comparison = None
    if settings.baseline != "none":
        baseline = load_baseline(settings.baseline, kept, RunJudge(judge_identity, judge))
        comparison = compare(
            baseline,
            case_scores(records),
            alpha=settings.alpha,
            min_drop=settings.min_drop,
            gate=settings.fail,
            contents={r.payload["key"]: payload_content(r.payload) for r in records},
        )
    readable = kept if isinstance(kept, KeptRuns) else None  # an unreadable file starts afresh
    outcomes = outcomes_after(readable, records, run_id, settings.flaky_window)
    flaky = flaky_cases(outcomes)
    quarantined: dict[str, int] = {}
    if settings.flaky == "quarantine":
        for record in records:
            key = record.payload["key"]
            failed = sum(t.outcome in ("failed", "error") for t in record.tests.values())
            if key in flaky and failed:
                quarantined[key] = failed
    return NoiseCheck(
        comparison=comparison,
        flaky=flaky,
        quarantined=quarantined,
        _path=path,
        _kept=readable,
        _judge_identity=judge_identity,
        _run_id=run_id,
        _records=records,
        _outcomes=outcomes,
    )
