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
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from .baseline_store import KeptRuns, UnreadableStore, read_kept, store_path, updated, write_kept
from .baselines import (
    RunJudge,
    compare,
    failing_regressions,
    load_baseline,
    run_cases,
    unusable_reason,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
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
        last = _kept_outcomes(before.get(key))
        last.append([str(run_id), content_hash(record.payload), record.status])
        outcomes[key] = last[-window:]
    return outcomes


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
    readable = kept if isinstance(kept, KeptRuns) else None  # an unreadable file starts afresh
    outcomes = outcomes_after(readable, records, run_id, settings.flaky_window)
    flaky = flaky_cases(outcomes)
    comparison = None
    if settings.baseline != "none":
        baseline = load_baseline(settings.baseline, kept, RunJudge(judge_identity, judge))
        comparison = compare(
            baseline,
            run_cases(records),
            alpha=settings.alpha,
            min_drop=settings.min_drop,
            gate=settings.fail,
            flaky=flaky,
        )
    return NoiseCheck(
        comparison=comparison,
        flaky=flaky,
        quarantined=_quarantined(records, flaky) if settings.flaky == "quarantine" else {},
        _path=path,
        _kept=readable,
        _judge_identity=judge_identity,
        _run_id=run_id,
        _records=records,
        _outcomes=outcomes,
    )


def _quarantined(records: Sequence[CaseRecord], flaky: Mapping[str, str]) -> dict[str, int]:
    """The judge-flaky cases that failed, with their failed tests (``regression.flaky:
    quarantine``: their failures do not fail the run)."""
    quarantined: dict[str, int] = {}
    for record in records:
        key = record.payload["key"]
        failed = sum(t.outcome in ("failed", "error") for t in record.tests.values())
        if key in flaky and failed:
            quarantined[key] = failed
    return quarantined
