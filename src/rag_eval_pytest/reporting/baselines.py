"""What a run compares itself with: a baseline (``--rag-baseline``).

* :func:`compare`: this run against a baseline: the history (each case's scores from the
  last run of the same judge identity that judged it and was not flagged as a regression,
  kept under the output folder's ``baselines/``: :mod:`.baseline_store`), or an earlier
  ``eval_report.json`` (``--rag-baseline PATH``), over the cases both scored. A baseline that
  cannot be used (a path that names no report, a stored file that cannot be read, nothing in
  common with this run) is said as such: under ``--rag-fail-on-regression`` the run is fatal
  (:func:`unusable_reason`), since a gate that cannot compare is no gate. A history that
  holds no earlier run of these cases yet is the start of one, not a fault.

One run's check (the comparison, its judge-flaky cases, what it keeps) is :mod:`.noise`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .baseline_store import (
    KeptRuns,
    UnreadableStore,
    payload_content,
    report_content,
)
from .models import Comparison, MetricChange, NewlyFailing
from .stability import stable_metrics
from .statistics import Change, paired_change, seed_of
from .wording import describe, describe_cases

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

    from ..metrics.base import MetricResult
    from .collector import CaseRecord
    from .models import Report

CaseScores = dict[str, dict[str, float]]
"""Per metric, each case's score."""


@dataclass(frozen=True)
class Verdict:
    """A case's verdict on a metric: pass or fail at its threshold, and whether the same
    answer would get it again (:mod:`.stability`)."""

    passed: bool
    threshold: float | None
    stable: bool


@dataclass(frozen=True)
class Cases:
    """One side of a comparison: per metric each case's score and verdict, and each case's
    content (:func:`~.baseline_store.case_content`)."""

    scores: CaseScores
    verdicts: dict[str, dict[str, Verdict]] = field(default_factory=dict)
    contents: dict[str, str] = field(default_factory=dict)


def run_cases(records: Iterable[CaseRecord]) -> Cases:
    """This run's judged cases."""
    cases = Cases({}, {}, {})
    for record in records:
        add_case(cases, record)
    return cases


def add_case(cases: Cases, record: CaseRecord) -> None:
    """Add a run's case to ``cases``."""
    stable = stable_metrics(record.payload, record.metrics)
    _add(cases, record.payload["key"], payload_content(record.payload), record.metrics, stable)


def report_cases(report: Report) -> Cases:
    """The judged cases of a report (``--rag-baseline PATH``)."""
    cases = Cases({}, {}, {})
    for case in report.cases:
        _add(cases, case.key, report_content(case), case.metrics, case.stable_metrics)
    return cases


def _add(
    cases: Cases,
    key: str,
    content: str,
    metrics: Mapping[str, MetricResult],
    stable: Collection[str],
) -> None:
    """Add a case's judged results to ``cases``."""
    cases.contents[key] = content
    for name, result in metrics.items():
        if result.status == "not_judged" or result.score is None:
            continue
        cases.scores.setdefault(name, {})[key] = result.score
        verdict = Verdict(result.status == "passed", result.threshold, name in stable)
        cases.verdicts.setdefault(name, {})[key] = verdict


@dataclass(frozen=True)
class Baseline:
    label: str
    run_id: str | None
    cases: Cases
    named: bool = False
    """Given by its path (``--rag-baseline PATH``): having nothing in common with this run
    makes it unusable, where a history's first run of some cases is no fault."""
    runs: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)
    """The history's: per metric, the run each case's score came from."""
    order: Sequence[str | None] = ()
    """The history's runs, oldest first."""
    scored: int | None = None
    """How many cases the baseline scored, where ``cases`` holds only this run's (a history
    read for this run's cases); ``None``: ``cases`` holds all of them."""


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
        return _history_or_why(kept)
    return _report_baseline(spec, judge or RunJudge())


def _history_or_why(kept: KeptRuns | UnreadableStore | None) -> Baseline | NotCompared:
    """The kept runs as a baseline; why not when they cannot be read or hold no case yet."""
    if isinstance(kept, UnreadableStore):
        return NotCompared(str(kept))
    if kept is None or not (kept.cases or kept.stored_cases):
        return NotCompared(NO_HISTORY, unusable=False)
    return history_baseline(kept)


def _report_baseline(spec: str, judge: RunJudge) -> Baseline | NotCompared:
    """The report at ``spec`` as a baseline; why not when it cannot be read or another
    judge judged it."""
    from ..errors import ReportError
    from .reader import load_report

    try:
        report = load_report(Path(spec))
    except ReportError as exc:
        return NotCompared(f"the baseline cannot be read: {exc}")  # it names the file
    unlike = _unlike_judge(spec, report, judge)
    if unlike is not None:
        return NotCompared(unlike)
    return Baseline(label=spec, run_id=report.run.id, cases=report_cases(report), named=True)


def _unlike_judge(spec: str, report: Report, ours: RunJudge) -> str | None:
    """Why a baseline report's judge is not this run's (its identity, or its description for
    a report that recorded none); ``None`` when alike, or when one side used no judge."""
    selection = report.run.selection
    theirs = RunJudge(selection.judge_identity if selection else None, report.run.judge)
    if _alike(theirs, ours):
        return None
    return (
        f"the baseline {spec} was judged by {_judge_words(theirs)}, this run by "
        f"{_judge_words(ours)}: runs of different judges (another model, prompt or number of "
        "votes) are not compared"
    )


def _alike(theirs: RunJudge, ours: RunJudge) -> bool:
    """The same identity, when both runs recorded one; else the same description, or no
    judge on one side."""
    if theirs.identity and ours.identity:
        return theirs.identity == ours.identity
    return not (theirs.label and ours.label) or theirs.label == ours.label


def _judge_words(judge: RunJudge) -> str:
    """ "custom (judge-a), identity 3f2a1c9d passes=1": the fingerprints cut to 8 digits."""
    identity = re.sub(r"\b([0-9a-f]{8})[0-9a-f]{8,}\b", r"\1", judge.identity or "")
    return f"{judge.label or 'no judge'}" + (f", identity {identity}" if identity else "")


def history_baseline(kept: KeptRuns) -> Baseline:
    """The kept results as a baseline: each case's, from the last run that judged it."""
    cases = Cases({}, {}, {key: case.content for key, case in kept.cases.items()})
    runs: dict[str, dict[str, str | None]] = {}
    for key, case in kept.cases.items():
        for metric, entry in case.metrics.items():
            cases.scores.setdefault(metric, {})[key] = entry.score
            verdict = Verdict(entry.status == "passed", entry.threshold, entry.stable)
            cases.verdicts.setdefault(metric, {})[key] = verdict
            runs.setdefault(metric, {})[key] = entry.run
    return Baseline("history", None, cases, runs=runs, order=kept.runs, scored=kept.stored_cases)


def _history_label(baseline: Baseline, compared: Mapping[str, Sequence[str]]) -> Baseline:
    """The history baseline named by the runs its compared scores came from: "history: run
    R" (or "history: runs R1, R2", each case's last run), ``run_id`` the latest of them."""
    if not baseline.runs:  # a report's path names it
        return baseline
    runs = {baseline.runs[metric][key] for metric, keys in compared.items() for key in keys}
    if not runs:
        return baseline
    found = _in_order(runs, list(baseline.order))
    return replace(baseline, label=_runs_label(found), run_id=found[-1])


def _in_order(runs: set[str | None], order: list[str | None]) -> list[str]:
    """The runs, oldest first (one the history does not list first of all)."""
    return [str(run) for run in sorted(runs, key=lambda r: order.index(r) if r in order else -1)]


def _runs_label(found: list[str]) -> str:
    """ "history: run R", or "history: runs R1, R2" (the last three, and how many earlier)."""
    if len(found) == 1:
        return f"history: run {found[0]}"
    shown = ", ".join(found[-3:]) + (f" and {len(found) - 3} earlier" if len(found) > 3 else "")
    return f"history: runs {shown}"


def compare(
    baseline: Baseline | NotCompared,
    ours: Cases,
    *,
    alpha: float,
    min_drop: float,
    gate: bool = False,
    flaky: Collection[str] = (),
) -> Comparison:
    """Each metric both runs scored, over the cases both scored with the same content; and
    the cases that passed in the baseline and fail now (a regression when their verdicts are
    stable and the case is not among the judge-``flaky``). ``gate``: the run fails on a
    regression (``--rag-fail-on-regression``), and cannot pass without a comparison."""
    if isinstance(baseline, NotCompared):
        return Comparison(
            baseline="none", baseline_run=None, alpha=alpha, min_drop=min_drop, changes=[],
            not_compared=baseline.reason, unusable=baseline.unusable, gate=gate,
        )  # fmt: skip
    theirs = baseline.cases
    changed = _changed_cases(theirs, ours)
    shared = _shared(theirs, ours, changed)
    baseline = _history_label(baseline, shared)
    compared = any(shared.values())
    return Comparison(
        baseline=baseline.label,
        baseline_run=baseline.run_id,
        alpha=alpha,
        min_drop=min_drop,
        changes=_metric_changes(theirs, ours, shared, baseline.run_id, (alpha, min_drop)),
        not_compared=None if compared else _nothing_shared(baseline, ours.scores, changed),
        unusable=not compared and baseline.named,
        gate=gate,
        changed_cases=sorted(changed),
        newly_failing=newly_failing(theirs, ours, shared, set(flaky)),
    )


def _changed_cases(theirs: Cases, ours: Cases) -> set[str]:
    """The cases of both runs whose content differs: another case under the same id."""
    return {k for k, c in ours.contents.items() if theirs.contents.get(k, c) != c}


def _shared(theirs: Cases, ours: Cases, changed: set[str]) -> dict[str, list[str]]:
    """Per metric both runs scored, the cases both scored, but the ``changed`` ones."""
    return {
        metric: sorted(set(theirs.scores[metric]) & set(ours.scores[metric]) - changed)
        for metric in set(theirs.scores) & set(ours.scores)
    }


def _metric_changes(
    theirs: Cases,
    ours: Cases,
    shared: dict[str, list[str]],
    seed: str | None,
    gate: tuple[float, float],
) -> list[MetricChange]:
    """Each shared metric's paired change (over two cases or more), judged at ``gate``'s
    alpha and minimum drop."""
    changes = [c for m in sorted(shared) if (c := _change(m, theirs, ours, shared[m], seed))]
    return [c.judged(*gate) for c in changes]


@dataclass(frozen=True)
class _Change:
    metric: str
    change: Change

    def judged(self, alpha: float, min_drop: float) -> MetricChange:
        change = self.change
        return MetricChange(
            metric=self.metric,
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


def _change(
    metric: str, theirs: Cases, ours: Cases, keys: Sequence[str], seed: str | None
) -> _Change | None:
    """The metric's paired change over ``keys`` (``None`` for fewer than 2)."""
    before = {key: theirs.scores[metric][key] for key in keys}
    change = paired_change(before, ours.scores[metric], seed_of(metric, seed))
    return None if change is None else _Change(metric, change)


def newly_failing(
    theirs: Cases, ours: Cases, shared: Mapping[str, Sequence[str]], flaky: set[str]
) -> list[NewlyFailing]:
    """The shared cases' metrics that passed in the baseline and fail now at the same
    threshold, in this run's case order; a regression when both verdicts are stable and the
    case is not judge-flaky."""
    order = {key: index for index, key in enumerate(ours.contents)}
    found: list[NewlyFailing] = []
    for metric, keys in shared.items():
        found += [
            f for key in keys if (f := _newly_failing(theirs, ours, metric, key, flaky)) is not None
        ]
    return sorted(found, key=lambda f: (order.get(f.key, len(order)), f.key, f.metric))


def _newly_failing(
    theirs: Cases, ours: Cases, metric: str, key: str, flaky: set[str]
) -> NewlyFailing | None:
    """The case's metric when it passed in the baseline and fails now at the same
    threshold; a regression when both verdicts are stable and the case is not judge-flaky."""
    before = theirs.verdicts.get(metric, {}).get(key)
    now = ours.verdicts.get(metric, {}).get(key)
    if before is None or now is None or not _turned_failing(before, now):
        return None
    return NewlyFailing(
        key=key,
        metric=metric,
        before=theirs.scores[metric][key],
        after=ours.scores[metric][key],
        threshold=now.threshold,
        regression=before.stable and now.stable and key not in flaky,
    )


def _turned_failing(before: Verdict, now: Verdict) -> bool:
    """Passed before and fails now, at the same threshold (another threshold is another
    gate, not another system)."""
    return before.passed and not now.passed and before.threshold == now.threshold


def _nothing_shared(baseline: Baseline, scores: CaseScores, changed: set[str]) -> str:
    """Why a baseline that was read has nothing to compare."""
    ours = {key for cases in scores.values() for key in cases}
    theirs = _scored_there(baseline)
    other = (
        f"; {len(changed)} of this run's cases have its ids with another question, "
        "ground truth or expected documents (another dataset's content)"
        if changed
        else ""
    )
    return (
        f"the baseline {baseline.label} has no scored case in common with this run "
        f"({theirs} scored there, {len(ours)} here{other})"
    )


def _scored_there(baseline: Baseline) -> int:
    """How many cases the baseline scored."""
    if baseline.scored is not None:
        return baseline.scored
    return len({key for cases in baseline.cases.scores.values() for key in cases})


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
    regressed = comparison.regressed_cases
    cases = (describe_cases(regressed),) if regressed else ()
    return (*(describe(c) for c in comparison.regressions), *cases)
