"""The header line and the ``--rag-dry-run`` plan: what would run, with nothing called."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .zero_code import configured_metrics

if TYPE_CHECKING:
    from .session import EvalSession


def header_line(session: EvalSession) -> str:
    cases = session.cases
    critical = sum(c.critical for c in cases)
    datasets = ", ".join(str(d.path.name) for d in session.datasets.datasets)
    settings = session.settings
    adapter = settings.target or settings.adapter or "rag_adapter fixture"
    selected = (
        f"{len(cases)} of {session.datasets.total_cases} cases"
        if len(cases) != session.datasets.total_cases
        else f"{len(cases)} cases"
    )
    return (
        f"rag-eval: dataset {datasets} ({selected}, {critical} critical) | adapter {adapter} "
        f"| judge {judge_description(session)}{_estimate_note(session)} "
        f"| output {settings.output.directory}"
    )


def _estimate_note(session: EvalSession) -> str:
    """The zero-code metrics' estimated API cost, for paid judges (empty otherwise)."""
    from .judges.estimate import estimate_run
    from .judges.factory import resolve_kind

    settings = session.settings
    if resolve_kind(settings.judge, os.environ) == "local":
        return ""
    names = [m for m, _ in configured_metrics(settings)]
    estimate = estimate_run(settings.judge, session.cases, names, os.environ)
    if estimate is None or estimate.cost_usd is None:
        return ""
    return f", est. ~${estimate.cost_usd:.2f} in zero-code mode"


def judge_description(session: EvalSession) -> str:
    """The configured judge, without building it (no SDK import, no key needed)."""
    from .judges.factory import judge_label

    return judge_label(session.settings.judge, os.environ)


def render_plan(session: EvalSession) -> str:
    """Cases critical first, the metrics the zero-code mode checks, and the run gates."""
    settings = session.settings
    ordered = sorted(session.cases, key=lambda c: not c.critical)
    lines = ["rag-eval dry run: dataset and configuration are valid; nothing was called.", ""]
    for ds in session.datasets.datasets:
        lines.append(f"dataset {ds.path}: {len(ds.cases)} cases")
    lines.append(f"selected: {len(ordered)} cases ({sum(c.critical for c in ordered)} critical)")
    if settings.tags:
        lines.append(f"tags filter: {', '.join(settings.tags)}")
    lines.append("")
    for loaded in ordered:
        case = loaded.case
        flags = ["critical"] if case.critical else []
        if case.has_recorded_answer:
            flags.append("pre-recorded answer")
        if case.tags:
            flags.append("tags " + ",".join(case.tags))
        suffix = f" [{'; '.join(flags)}]" if flags else ""
        lines.append(f"  {loaded.key}{suffix}: {case.question[:80]}")
    lines.append("")
    metrics = ", ".join(
        f"{m} >= {t:.2f}" if t is not None else f"{m} (default threshold)"
        for m, t in configured_metrics(settings)
    )
    lines.append(f"metrics (zero-code mode): {metrics or 'none'}")
    gates = ", ".join(f"{k} >= {v:.2f}" for k, v in settings.thresholds.items())
    lines.append(f"run thresholds: {gates or 'none'}")
    queried = sum(not c.case.has_recorded_answer for c in ordered)
    lines.append(f"RAG queries: {queried}")
    from .judges.estimate import estimate_run
    from .judges.factory import resolve_kind

    names = [m for m, _ in configured_metrics(settings)]
    estimate = estimate_run(settings.judge, ordered, names, os.environ)
    if estimate is None:
        lines.append("judge: not needed (no judge-based metric in zero-code mode)")
    elif resolve_kind(settings.judge, os.environ) == "local":
        lines.append(
            f"judge {judge_description(session)}: offline, no API calls and no cost "
            f"({estimate.calls} local judgements)"
        )
    else:
        lines.append(
            f"judge {judge_description(session)}, zero-code metrics, estimated: "
            f"{estimate.describe()} (cache hits cost nothing; tests using rag_case add "
            "what they ask)"
        )
    return "\n".join(lines)
