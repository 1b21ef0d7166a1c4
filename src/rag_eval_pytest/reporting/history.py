"""One ``results.jsonl`` line per run (a :class:`~.models.HistoryLine`), built from the
report, appended and read back; and what a run selected (its selection), by which the trend
compares like with like."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from typing import TYPE_CHECKING, Any

from .files import append_history, read_history
from .models import HistoryLine, HistorySelection, Selection

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from .models import Report


def history_entry(report: Report) -> HistoryLine:
    """The run's ``results.jsonl`` line."""
    run, summary = report.run, report.summary
    counts = summary.counts
    return HistoryLine(
        timestamp=run.finished_at,
        run_id=run.id,
        composite_score=summary.composite.score,
        metrics={name: m.mean for name, m in summary.metrics.items()},
        test_count=counts.cases,
        passed=counts.passed,
        failures=counts.failed,
        errors=counts.errors,
        skipped=counts.skipped,
        critical_failures=len(summary.critical.failed),
        exit_code=run.exit_code,
        partial=run.partial,
        adapter=run.adapter,
        judge=run.judge,
        judge_calls=summary.usage.judge_calls,
        cost_usd=summary.usage.cost_usd,
        git_commit=run.git_commit,
        datasets=[d.path for d in run.datasets],
        selection=None if run.selection is None else history_selection(run.selection),
        schema_version=report.schema_version,
    )


def history_selection(selected: Selection) -> HistorySelection:
    """The selection as a history line keeps it: the case keys as a hash and a count (a line
    that listed every key was half a megabyte at 50,000 cases); the fingerprint, computed from
    the keys themselves, is the report's, so old lines (with the list) and new ones compare."""
    line = selected.model_dump(mode="json")
    cases = line.pop("cases")
    return HistorySelection(
        cases_sha256=_sha256(json.dumps(cases).encode("utf-8")),
        case_count=len(cases),
        **line,
    )


def append_line(path: Path, line: HistoryLine) -> None:
    """Append the run's line to ``results.jsonl`` (:func:`~.files.append_history`: whole,
    under a lock)."""
    append_history(path, line.to_json())


def read_lines(path: Path) -> list[HistoryLine]:
    """The runs of ``results.jsonl``, oldest first. A line that is not a JSON object is
    skipped with a warning (:func:`~.files.read_history`); any other is read, what it lacks
    or holds unreadably taking its default (:class:`~.models.HistoryLine`)."""
    return [HistoryLine.from_json(entry) for entry in read_history(path)]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def datasets_digest(
    digests: Sequence[str | None], inline: Sequence[Mapping[str, Any]] = ()
) -> str | None:
    """One hash of the datasets' content (each file's hash, in the run's order), from the
    text read when the run started, and of what defines the cases made in code (key,
    question, ground truth, expected documents: not the answer, which is the RAG system's);
    ``None`` when a file's is unknown."""
    if any(d is None for d in digests):
        return None
    material = "".join(d for d in digests if d is not None)
    if inline:
        material += _inline_digest(inline)
    return _sha256(material.encode("ascii"))


def _inline_digest(inline: Sequence[Mapping[str, Any]]) -> str:
    """The hash of what defines the cases made in code, in an order of their own."""
    fields = ("key", "question", "ground_truth", "expected_contexts")
    defined = sorted(([case.get(f) for f in fields] for case in inline), key=str)
    return _sha256(json.dumps(defined, sort_keys=True).encode("utf-8"))


def selection(
    *,
    cases: Sequence[str],
    metrics: Sequence[str],
    judge: str | None,
    datasets_sha256: str | None,
    total_cases: int,
    judge_identities: Sequence[str] = (),
) -> Selection:
    """What a run selected: the keys of the cases it scored (dataset order), the metrics,
    the judge and the datasets' content, and a fingerprint of the four (the judge's by its
    one identity, when known: a judge whose model settings or prompts changed reads alike
    but measures differently). Two runs with the same fingerprint measured the same thing,
    so their scores can be compared. A run whose tests used several judges records each
    identity: it measured with all of them."""
    identities = sorted(set(judge_identities))
    judge_identity = "+".join(identities) or None
    key = {
        "cases": list(cases),
        "metrics": sorted(metrics),
        "judge": judge,
        "datasets_sha256": datasets_sha256,
    }
    material = {**key, "judge": judge_identity} if judge_identity is not None else key
    fingerprint = _sha256(json.dumps(material, sort_keys=True).encode("utf-8"))[:16]
    return Selection(
        **key,
        total_cases=total_cases,
        fingerprint=fingerprint,
        judge_identity=judge_identity,
        judge_identities=identities,
    )


def git_commit(cwd: Path) -> str | None:
    """The commit under test: from CI variables, else ``git rev-parse HEAD``, else None."""
    for name in ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILD_VCS_NUMBER", "GIT_COMMIT"):
        value = os.environ.get(name)
        if value:
            return value
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    return sha if out.returncode == 0 and sha else None
