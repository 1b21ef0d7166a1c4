"""One run's noise check, in the process that writes the reports: the comparison with its
baseline (:mod:`.baselines`), the cases whose outcome flips with nothing changed, and what the
run keeps for the next runs of its judge identity (:mod:`.baseline_store`).

* :func:`flaky_cases`: the cases whose outcome flipped at least twice in their last runs with
  the same answer and contexts (``regression.flaky``).
* :func:`check_noise`: all of it for one run (:class:`NoiseCheck`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal

from .baseline_store import (
    Judged,
    KeptRuns,
    KeptScore,
    KeptStore,
    StoreUpdate,
    UnreadableStore,
    read_kept,
    store_path,
    write_updated,
)
from .baselines import (
    Cases,
    RunJudge,
    Verdict,
    add_case,
    compare,
    failing_regressions,
    load_baseline,
    unusable_reason,
)

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence
    from pathlib import Path

    from ..config.settings import RegressionSettings
    from .collector import CaseRecord
    from .models import Comparison, MetricChange


def content_hash(payload: Mapping[str, Any]) -> str:
    """What a case's outcome was judged on: its answer and its contexts."""
    material = json.dumps([payload.get("answer"), payload.get("contexts")], sort_keys=True)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:16]


def outcomes_after(
    kept: KeptRuns | None,
    records: Iterable[CaseRecord],
    run_id: str | None,
    window: int,
) -> dict[str, list[list[str]]]:
    """Each of this run's cases' last ``window`` outcomes, this run's last: ``[run, content
    hash, status]``."""
    return _outcomes_after(kept, (_outcome(record) for record in records), run_id, window)


Outcome = tuple[str, str, str]
"""A case's outcome in a run: its key, the hash of what it was judged on, its status."""


def _outcome(record: CaseRecord) -> Outcome:
    return record.payload["key"], content_hash(record.payload), record.status


def _outcomes_after(
    kept: KeptRuns | None, outcomes: Iterable[Outcome], run_id: str | None, window: int
) -> dict[str, list[list[str]]]:
    before = kept.outcomes if kept is not None else {}
    last_runs: dict[str, list[list[str]]] = {}
    for key, digest, status in outcomes:
        last = _kept_outcomes(before.get(key))
        last.append([str(run_id), digest, status])
        last_runs[key] = last[-window:]
    return last_runs


def _kept_outcomes(earlier: Any) -> list[list[str]]:
    """A case's kept outcomes, read leniently: an entry that is not one is dropped."""
    entries = earlier if isinstance(earlier, list) else []
    return [list(map(str, e)) for e in entries if isinstance(e, list) and len(e) == 3]


def flips(history: Sequence[Sequence[str]]) -> int:
    """How often a case's outcome changed between pass and fail from one run to the next,
    counting only the runs judged on its last answer and contexts."""
    if not history:
        return 0
    current = history[-1][1]
    judged = [
        status
        for _, digest, status in history
        if digest == current and status in ("passed", "failed")
    ]
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
class RunCases:
    """What the noise check needs of each of a run's cases, gathered one case at a time
    (:meth:`add`): its outcome, its judged scores and verdicts, its failed tests."""

    outcomes: list[Outcome] = field(default_factory=list)
    judged: Cases = field(default_factory=lambda: Cases({}, {}, {}))
    failed_tests: dict[str, int] = field(default_factory=dict)

    def add(self, record: CaseRecord) -> None:
        self.outcomes.append(_outcome(record))
        add_case(self.judged, record)
        failed = sum(t.outcome in ("failed", "error") for t in record.tests.values())
        if failed:
            self.failed_tests[record.payload["key"]] = failed

    @classmethod
    def of(cls, records: Iterable[CaseRecord]) -> RunCases:
        cases = cls()
        for record in records:
            cases.add(record)
        return cases


@dataclass
class NoiseCheck:
    """What a run learns from its baseline and its cases' last outcomes: the comparison,
    the judge-flaky cases, and what the next runs of the same judge identity will read."""

    comparison: Comparison | None
    flaky: dict[str, str]
    """Judge-flaky cases, each with its last outcomes."""
    quarantined: dict[str, int]
    """Quarantined flaky cases (``regression.flaky: quarantine``) that failed, with their failed
    tests: their failures do not fail the run."""
    _path: Path
    _kept: KeptStore | None
    _judge_identity: str | None
    _run_id: str | None
    _cases: RunCases
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
        judged = self._cases.judged
        update = StoreUpdate(
            judged.contents,
            lambda key: _judged(judged, key, self._run_id),
            self._outcomes,
            run_id=self._run_id,
            scores=not flagged,
        )
        write_updated(self._path, self._kept, self._judge_identity, update)


def _judged(cases: Cases, key: str, run_id: str | None) -> Judged | None:
    """A case of the run as the next runs keep it: its content and its judged scores."""
    content = cases.contents.get(key)
    if content is None:
        return None
    scores = {
        name: _kept_score(run_id, scores[key], cases.verdicts[name][key])
        for name, scores in cases.scores.items()
        if key in scores
    }
    return content, scores


def _kept_score(run_id: str | None, score: float, verdict: Verdict) -> KeptScore:
    status: Literal["passed", "failed"] = "passed" if verdict.passed else "failed"
    return KeptScore(
        run=run_id, score=score, status=status, threshold=verdict.threshold, stable=verdict.stable
    )


def check_noise(
    settings: RegressionSettings,
    output_dir: Path,
    judge_identity: str | None,
    run_id: str | None,
    records: Iterable[CaseRecord] | RunCases,
    judge: str | None = None,
) -> NoiseCheck:
    """The comparison of this run (judged by ``judge_identity``, described as ``judge``) with
    its baseline, and its judge-flaky cases. ``records``: the run's cases, or what the check
    needs of them (:class:`RunCases`)."""
    cases = records if isinstance(records, RunCases) else RunCases.of(records)
    path = store_path(output_dir, judge_identity)
    readable, history = _history(path, judge_identity, {key for key, _, _ in cases.outcomes})
    ours = history if isinstance(history, KeptRuns) else None
    outcomes = _outcomes_after(ours, cases.outcomes, run_id, settings.flaky_window)
    flaky = flaky_cases(outcomes)
    quarantine = settings.flaky == "quarantine"
    return NoiseCheck(
        comparison=_comparison(settings, history, cases, RunJudge(judge_identity, judge), flaky),
        flaky=flaky,
        quarantined=_quarantined(cases.failed_tests, flaky) if quarantine else {},
        _path=path,
        _kept=readable,
        _judge_identity=judge_identity,
        _run_id=run_id,
        _cases=cases,
        _outcomes=outcomes,
    )


def _history(
    path: Path, judge_identity: str | None, keys: Collection[str]
) -> tuple[KeptStore | None, KeptRuns | UnreadableStore | None]:
    """The kept file (``None`` when there is none, or it cannot be read: the run starts it
    afresh), and what it holds of the run's cases ``keys``, or why it cannot be read."""
    kept = _kept(path, judge_identity)
    if isinstance(kept, KeptStore):
        return kept, kept.of(keys)
    return None, kept


def _comparison(
    settings: RegressionSettings,
    history: KeptRuns | UnreadableStore | None,
    cases: RunCases,
    judge: RunJudge,
    flaky: Mapping[str, str],
) -> Comparison | None:
    """The run compared with its baseline (``history``: what the kept file holds of the run's
    cases, or why it cannot be read); ``None`` without one."""
    if settings.baseline == "none":
        return None
    return compare(
        load_baseline(settings.baseline, history, judge),
        cases.judged,
        alpha=settings.alpha,
        min_drop=settings.min_drop,
        gate=settings.fail,
        flaky=flaky,
    )


def _kept(path: Path, judge_identity: str | None) -> KeptStore | UnreadableStore | None:
    """What the earlier runs of the judge identity kept; why it cannot be read."""
    try:
        return read_kept(path, judge_identity)
    except UnreadableStore as exc:
        return exc


def _quarantined(failed_tests: Mapping[str, int], flaky: Mapping[str, str]) -> dict[str, int]:
    """The judge-flaky cases that failed, with their failed tests (``regression.flaky:
    quarantine``: their failures do not fail the run)."""
    return {key: failed for key, failed in failed_tests.items() if key in flaky}
