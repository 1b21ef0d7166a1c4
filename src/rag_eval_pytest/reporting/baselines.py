"""The cases of earlier runs, kept per selection, for what a run compares itself with.

``results.jsonl`` keeps one line per run: its means, not its cases. A comparison that asks
whether a drop is larger than the judge's noise needs each case's score (a paired test), and
a case that flips between pass and fail with the same answer needs its last outcomes. So each
complete run also writes, beside the history, ``baselines/<selection fingerprint>.json``: the
scores of its cases, and per case its last outcomes with the hash of the answer and contexts
they were judged on. The next run of the same selection (the same cases, metrics, judge
identity and dataset content) reads it; runs of other selections leave it alone.

* :func:`compare`: this run against a baseline (the stored scores of the same selection,
  ``--rag-baseline history``, or an earlier ``eval_report.json``, ``--rag-baseline PATH``).
* :func:`flaky_cases`: the cases whose outcome flipped at least twice in their last runs with
  the same answer and contexts (``regression.flaky``).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import write_atomic
from .models import Comparison, MetricChange
from .statistics import paired_change, seed_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..config.settings import RegressionSettings
    from .collector import CaseRecord
    from .models import Report

BASELINES = "baselines"
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


def _stored(output_dir: Path, fingerprint: str) -> Path:
    return output_dir / BASELINES / f"{fingerprint}.json"


def read_stored(output_dir: Path, fingerprint: str | None) -> dict[str, Any] | None:
    """The stored cases of the last complete run of this selection, or ``None``."""
    if fingerprint is None:
        return None
    try:
        data = json.loads(_stored(output_dir, fingerprint).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("scores"), dict) else None


def load_baseline(
    spec: str, output_dir: Path, fingerprint: str | None, stored: dict[str, Any] | None
) -> Baseline | str:
    """The baseline ``spec`` names (``history`` or a report's path), or why there is none."""
    if spec == "history":
        if stored is None:
            return "no earlier complete run of the same selection kept its cases' scores"
        return Baseline(
            label=f"history: run {stored.get('run_id')}",
            run_id=stored.get("run_id"),
            scores={
                str(metric): {str(k): float(v) for k, v in cases.items() if _is_score(v)}
                for metric, cases in stored["scores"].items()
                if isinstance(cases, dict)
            },
        )
    from ..errors import ReportError
    from .reader import load_report

    try:
        report = load_report(Path(spec))
    except ReportError as exc:
        return f"the baseline {spec} cannot be read: {exc}"
    return Baseline(label=spec, run_id=report.run.id, scores=report_scores(report))


def _is_score(value: object) -> bool:
    """A stored score that is a finite number (a hand-edited or foreign file may hold
    anything: its other entries still count)."""
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    )


def compare(
    baseline: Baseline | str, scores: CaseScores, *, alpha: float, min_drop: float
) -> Comparison:
    """Each metric both runs scored, over the cases both scored."""
    if isinstance(baseline, str):
        return Comparison(
            baseline="none", baseline_run=None, alpha=alpha, min_drop=min_drop, changes=[],
            not_compared=baseline,
        )  # fmt: skip
    changes = []
    for metric in sorted(set(baseline.scores) & set(scores)):
        change = paired_change(
            baseline.scores[metric], scores[metric], seed_of(metric, baseline.run_id)
        )
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
        not_compared=None if changes else "no metric was scored on 2 or more of the same cases",
    )


def describe(change: MetricChange) -> str:
    """ "faithfulness 0.91 -> 0.78 (-0.13, 95 % -0.18 to -0.08, p=0.001)"."""
    low, high = change.interval
    return (
        f"{change.metric} {change.before:.2f} -> {change.after:.2f} ({change.change:+.2f}, "
        f"95 % {low:+.2f} to {high:+.2f}, p={change.p_value:.3g}, {change.cases} cases)"
    )


# --------------------------------------------------------------------------- flaky cases


def outcomes_after(
    stored: dict[str, Any] | None,
    records: Sequence[CaseRecord],
    run_id: str | None,
    window: int,
) -> dict[str, list[list[str]]]:
    """Each case's last ``window`` outcomes, this run's last: ``[run, content hash,
    status]``."""
    before = stored.get("outcomes", {}) if stored is not None else {}
    outcomes: dict[str, list[list[str]]] = {}
    for record in records:
        key = record.payload["key"]
        earlier = before.get(key) if isinstance(before, dict) else None
        kept = [list(map(str, e)) for e in earlier or [] if isinstance(e, list) and len(e) == 3]
        kept.append([str(run_id), content_hash(record.payload), record.status])
        outcomes[key] = kept[-window:]
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


def store(
    output_dir: Path,
    fingerprint: str | None,
    run_id: str | None,
    scores: CaseScores,
    outcomes: Mapping[str, Any],
) -> None:
    """Keep this run's cases for the next run of the same selection."""
    if fingerprint is None:
        return
    data = {"run_id": run_id, "scores": scores, "outcomes": outcomes}
    text = json.dumps(data, separators=(",", ":"))
    write_atomic(_stored(output_dir, fingerprint), text, shared=True)


# --------------------------------------------------------------------------- one run


@dataclass
class NoiseCheck:
    """What a run learns from its baseline and its cases' last outcomes: the comparison,
    the judge-flaky cases, and what the next run of the same selection will read."""

    comparison: Comparison | None
    flaky: dict[str, str]
    """Judge-flaky cases, each with its last outcomes."""
    quarantined: dict[str, int]
    """Quarantined flaky cases (``regression.flaky: quarantine``) that failed, with their failed
    tests: their failures do not fail the run."""
    fail_on_regression: bool
    _output_dir: Path
    _fingerprint: str | None
    _run_id: str | None
    _scores: CaseScores
    _outcomes: dict[str, list[list[str]]]

    @property
    def regressions(self) -> list[MetricChange]:
        return self.comparison.regressions if self.comparison is not None else []

    def failing(self) -> tuple[str, ...]:
        """The regressions that fail the run (``rag_fail_on_regression``), described."""
        return tuple(describe(c) for c in self.regressions) if self.fail_on_regression else ()

    def store(self) -> None:
        """Keep this run's cases for the next run of the same selection."""
        store(self._output_dir, self._fingerprint, self._run_id, self._scores, self._outcomes)


def check_noise(
    settings: RegressionSettings,
    output_dir: Path,
    fingerprint: str | None,
    run_id: str | None,
    records: Sequence[CaseRecord],
) -> NoiseCheck:
    stored = read_stored(output_dir, fingerprint)
    scores = case_scores(records)
    comparison = None
    if settings.baseline != "none":
        baseline = load_baseline(settings.baseline, output_dir, fingerprint, stored)
        comparison = compare(baseline, scores, alpha=settings.alpha, min_drop=settings.min_drop)
    outcomes = outcomes_after(stored, records, run_id, settings.flaky_window)
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
        fail_on_regression=settings.fail,
        _output_dir=output_dir,
        _fingerprint=fingerprint,
        _run_id=run_id,
        _scores=scores,
        _outcomes=outcomes,
    )
