"""Merging the JSON reports of shards (``--rag-shard I/N``) into one report.

The merged report is recomputed from the shards' cases, as if one run had produced them: the
composite, per-metric means, counts, latency, per-tag and critical sections; thresholds and
weights come from the shards' reports (they must agree). The exit code follows the same rules
as a run's.

The shards must be one run's: every shard ``I/N`` once, of the same datasets (content) and
judge. A merge that lacks a shard, has one twice or mixes runs is refused (fatal) unless
``allow_partial``, which writes a report marked partial that says what is missing.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .collector import CaseRecord, CriticalTest, ItemOutcome
from .errors import RagEvalError
from .exit_codes import ExitDecision, decide_exit_code
from .reporting.document import SCHEMA_VERSION, RunMeta, build_document, now_iso
from .reporting.history import selection
from .summary import summarise

if TYPE_CHECKING:
    from pathlib import Path

    from .payload import CasePayload


class MergeError(RagEvalError):
    """A shard report that cannot be merged (missing, not a report, another schema)."""


@dataclass
class Merged:
    document: dict[str, Any]
    decision: ExitDecision


def load_report(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MergeError(f"{path}: file not found") from None
    except (OSError, ValueError) as exc:
        raise MergeError(f"{path}: not a JSON report ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION:
        raise MergeError(f"{path}: not an eval_report.json of schema version {SCHEMA_VERSION}")
    problem = _missing_part(doc)
    if problem is not None:
        raise MergeError(f"{path}: not a complete eval_report.json: {problem}")
    return doc


# What a merge reads of each report: (dotted path, the type it must have, or None for any).
_OBJECT, _LIST = (dict, "an object"), (list, "a list")
_REPORT_PARTS: dict[str, tuple[type, str] | None] = {
    "run": _OBJECT,
    "summary": _OBJECT,
    "cases": _LIST,
    "warnings": _LIST,
    "summary.metrics": _OBJECT,
    "summary.composite": _OBJECT,
    "summary.composite.threshold": None,
    "summary.latency": _OBJECT,
    "summary.latency.slow_threshold_s": None,
    "summary.critical": _OBJECT,
    "run.datasets": _LIST,
    "run.tags_filter": _LIST,
    **dict.fromkeys(
        (
            *("run.started_at", "run.duration_s", "run.pytest_exit", "run.partial"),
            *("run.selected_cases", "run.adapter", "run.judge", "run.git_commit"),
        )
    ),
}
_CASE_PARTS: dict[str, tuple[type, str] | None] = {
    "tests": _LIST,
    "metrics": _OBJECT,
    "tags": _LIST,
    "sources": _LIST,
    **dict.fromkeys(
        (
            *("key", "id", "dataset", "question", "ground_truth", "critical"),
            *("expected_contexts", "recorded", "answer", "contexts", "latency_s", "error"),
        )
    ),
}


def _missing_part(doc: dict[str, Any]) -> str | None:
    """What the report lacks of what a merge reads, or ``None``: a report cut short or
    edited by hand is refused by name instead of failing halfway through the merge."""
    problem = _check_parts(doc, _REPORT_PARTS, "")
    if problem is not None:
        return problem
    for index, case in enumerate(doc["cases"]):
        if not isinstance(case, dict):
            return f"'cases[{index}]' is not an object"
        problem = _check_parts(case, _CASE_PARTS, f"cases[{index}].")
        if problem is not None:
            return problem
    return None


def _check_parts(
    doc: dict[str, Any], parts: dict[str, tuple[type, str] | None], prefix: str
) -> str | None:
    for dotted, expected in parts.items():
        parent, _, name = dotted.rpartition(".")
        container: Any = doc
        for step in filter(None, parent.split(".")):
            container = container[step]
        if name not in container:
            return f"it has no {prefix + dotted!r}"
        if expected is not None and not isinstance(container[name], expected[0]):
            return f"{prefix + dotted!r} is not {expected[1]}"
    return None


def _record(case: dict[str, Any]) -> CaseRecord:
    payload: CasePayload = {
        "schema": 1,
        "key": case["key"],
        "id": case["id"],
        "index": int(case.get("index", 0)),
        "dataset": case["dataset"],
        "question": case["question"],
        "ground_truth": case["ground_truth"],
        "critical": case["critical"],
        "tags": list(case["tags"]),
        "expected_contexts": case["expected_contexts"],
        "recorded": case["recorded"],
        "answer": case["answer"],
        "contexts": case["contexts"],
        "sources": list(case["sources"]),
        "latency": case["latency_s"],
        "error": case["error"],
        "adapter": None,
        "judge": None,
        "metrics": [],
    }
    record = CaseRecord(payload=payload)
    for test in case["tests"]:
        record.tests[test["nodeid"]] = ItemOutcome(test["nodeid"], test["outcome"], test["message"])
    for result in case["metrics"].values():
        record.add_metric(result)
    return record


def _settings_of(doc: dict[str, Any]) -> tuple[dict[str, float], dict[str, float], float]:
    summary = doc["summary"]
    weights = {n: float(m["weight"]) for n, m in summary["metrics"].items() if m["weight"]}
    thresholds = {
        n: float(m["threshold"])
        for n, m in summary["metrics"].items()
        if m["threshold"] is not None
    }
    if summary["composite"]["threshold"] is not None:
        thresholds["composite"] = float(summary["composite"]["threshold"])
    return weights, thresholds, float(summary["latency"]["slow_threshold_s"])


def shard_problems(docs: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    """Why these reports are not the complete set of shards of one run (empty when they are)."""
    problems: list[str] = []
    seen_runs: dict[str, Path] = {}
    shards: dict[tuple[int, int], Path] = {}
    counts: set[int] = set()
    for path, doc in docs:
        run = doc["run"]
        first = seen_runs.setdefault(str(run.get("id")), path)
        if first is not path:
            problems.append(f"{path}: the same run as {first}, given twice")
            continue
        shard = run.get("shard")
        if not shard:
            if len(docs) > 1:
                problems.append(f"{path}: not a shard (a run without --rag-shard)")
            continue
        try:
            index, count = (int(part) for part in str(shard).split("/"))
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
        ("datasets", {_datasets_of(doc["run"]) for _, doc in docs}),
        ("judges", {doc["run"].get("judge") for _, doc in docs} - {None}),
    ):
        if len(values) > 1:
            problems.append(f"runs of different {label}: {'; '.join(sorted(map(str, values)))}")
    return problems


def _datasets_of(run: dict[str, Any]) -> str:
    """The datasets' content hash when the report has one, else their paths."""
    selected = run.get("selection")
    if isinstance(selected, dict) and selected.get("datasets_sha256"):
        return f"content {str(selected['datasets_sha256'])[:12]}"
    return ", ".join(str(ds.get("path")) for ds in run.get("datasets", []))


def merge_reports(
    docs: list[tuple[Path, dict[str, Any]]],
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
        for case in doc["cases"]:
            if case["key"] in records:
                raise MergeError(f"{path}: case {case['key']!r} is in two shards")
            records[case["key"]] = _record(case)
        for test in doc["summary"]["critical"].get("tests", []):
            critical_tests[test["nodeid"]] = CriticalTest(test["nodeid"], test["outcome"])
    ordered = sorted(records.values(), key=lambda r: (r.payload["index"], r.payload["key"]))
    summary = summarise(
        ordered,
        weights=weights,
        thresholds=thresholds,
        slow_threshold=slow,
        critical_tests=list(critical_tests.values()),
    )
    runs = [doc["run"] for _, doc in docs]
    pytest_exit = max((int(r["pytest_exit"]) for r in runs), default=0)
    fatal = None
    if ordered and all(r.status == "error" and r.payload.get("error") for r in ordered):
        fatal = f"the RAG system failed for every case ({len(ordered)})"
    decision = decide_exit_code(
        pytest_exit,
        failed_tests=summary.failed + summary.errors,
        critical_failures=summary.critical.failed,
        unmet=summary.unmet,
        fatal_reason=fatal,
        critical_code=critical_code,
        fatal_code=fatal_code,
    )
    datasets: dict[str, dict[str, Any]] = {}
    for run in runs:
        for ds in run["datasets"]:
            datasets.setdefault(ds["path"], ds)
    meta = RunMeta(
        run_id=f"merged-{uuid.uuid4().hex[:6]}",
        started_at=min(r["started_at"] for r in runs),
        finished_at=now_iso(),
        duration_s=max(float(r["duration_s"]) for r in runs),
        datasets=list(datasets.values()),
        adapter=next((r["adapter"] for r in runs if r["adapter"]), None),
        judge=next((r["judge"] for r in runs if r["judge"]), None),
        git_commit=next((r["git_commit"] for r in runs if r["git_commit"]), None),
        pytest_exit=pytest_exit,
        exit_code=decision.code,
        exit_reason=decision.reason,
        partial=bool(problems) or any(r["partial"] for r in runs),
        selected_cases=sum(int(r["selected_cases"]) for r in runs),
        tags_filter=list(runs[0]["tags_filter"]),
        warnings=[
            *(f"partial merge: {p}" for p in problems),
            *sorted({w for _, doc in docs for w in doc["warnings"]}),
        ],
        shard="merged " + ", ".join(str(r.get("shard") or "?") for r in runs),
        critical_tests=[
            {"nodeid": t.nodeid, "outcome": t.outcome} for t in critical_tests.values()
        ],
        selection=_merged_selection(runs, ordered, list(summary.metrics)),
    )
    document = build_document(
        meta, summary, ordered, thresholds=thresholds, weights=weights, version=version
    )
    return Merged(document, decision)


def _merged_selection(
    runs: list[dict[str, Any]], records: list[CaseRecord], metrics: list[str]
) -> dict[str, Any] | None:
    """The selection of the merged run: the shards' cases together, when every shard
    recorded its selection (reports of earlier versions did not)."""
    selections = [r.get("selection") for r in runs]
    if not all(isinstance(s, dict) for s in selections):
        return None
    digests = {s["datasets_sha256"] for s in selections if s is not None}
    judges = {s["judge"] for s in selections if s is not None} - {None}
    return selection(
        cases=[r.payload["key"] for r in records],
        metrics=metrics,
        judge=judges.pop() if len(judges) == 1 else None,
        datasets_sha256=digests.pop() if len(digests) == 1 else None,
        total_cases=max(int(s["total_cases"]) for s in selections if s is not None),
    )
