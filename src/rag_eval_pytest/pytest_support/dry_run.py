"""The header line and the ``--rag-dry-run`` plan: what would run, with nothing called."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..engine.zero_code import configured_metrics

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..data.dataset import Case, LoadedCase
    from ..engine.session import EvalSession


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
    judge = judge_description(session)
    return (
        f"rag-eval: dataset {datasets} ({selected}, {critical} critical) | adapter {adapter} "
        f"| judge {judge} | output {settings.output.directory}"
        + (f" | config {session.config_file}" if session.config_file else "")
        + calibration_note(session, judge)
    )


def calibration_note(session: EvalSession, judge: str) -> str:
    """ " | calibration FILE (...)": whether the run's judge is the one the thresholds of
    ``judge.calibration`` were chosen for (compared by description here, before any judge is
    built; the report compares identities)."""
    if session.calibration is None:
        return ""
    name = session.settings.judge.calibration
    calibrated = session.calibration.get("judge")
    if calibrated == judge:
        return f" | calibration {name} (for this judge)"
    return f" | calibration {name} (made for {calibrated}, not for this judge)"


def cost_line(session: EvalSession, zero_code_cases: Sequence[LoadedCase] | None) -> str | None:
    """After collection, what the run's judge calls will cost, for a paid judge (``None`` for
    the local judge or when nothing is judged). The zero-code tests ask for the configured
    metrics, so their cost is estimated on the cases selected; tests that take ``rag_case``
    choose their metrics as they run, so their cost is not known before then
    (``zero_code_cases`` is ``None`` for such a suite)."""
    from ..engine.estimate import estimate_run
    from ..judges.factory import resolve_kind

    settings = session.settings
    if resolve_kind(settings.judge, os.environ) == "local":
        return None
    if zero_code_cases is None:
        return (
            "rag-eval: judge cost not estimated: the tests that take rag_case choose their "
            "metrics as they run (the report gives the actual cost)"
        )
    names = [m.name for m in configured_metrics(settings)]
    estimate = estimate_run(settings.judge, zero_code_cases, names, os.environ)
    if estimate is None or estimate.cost_usd is None:
        return None
    return (
        f"rag-eval: judge cost estimate for the {len(zero_code_cases)} zero-code tests: "
        f"{estimate.describe()} (cache hits cost nothing)"
    )


def judge_description(session: EvalSession) -> str:
    """The configured judge, without building it (no SDK import, no key needed)."""
    from ..judges.factory import judge_label

    return judge_label(session.settings.judge, os.environ)


def case_lines(loaded: LoadedCase) -> list[str]:
    """A case of the plan: its key, its flags and its question; a conversation's line, then
    each of its turns' questions (a recorded turn is not asked)."""
    case = loaded.case
    flags = ["critical"] if case.critical else []
    if case.turns is not None:
        flags.append(f"conversation of {len(case.turns)} turn{'s' if len(case.turns) > 1 else ''}")
    if case.has_recorded_answer:
        flags.append("pre-recorded answer")
    if case.tags:
        flags.append("tags " + ",".join(case.tags))
    suffix = f" [{'; '.join(flags)}]" if flags else ""
    if case.turns is None:
        return [f"  {loaded.key}{suffix}: {case.question[:80]}"]
    per_turn = not case.has_recorded_answer  # all recorded: the case's flag says it
    return [f"  {loaded.key}{suffix}:"] + [
        f"    turn {n}"
        + (" [pre-recorded answer]" if per_turn and turn.answer is not None else "")
        + f": {turn.question[:80]}"
        for n, turn in enumerate(case.turns, start=1)
    ]


def rag_queries(case: Case) -> int:
    """The RAG system's calls a case makes: one, or one per turn, unless recorded."""
    if case.turns is not None:
        return sum(turn.answer is None for turn in case.turns)
    return 0 if case.has_recorded_answer else 1


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
        lines.extend(case_lines(loaded))
    lines.append("")
    metrics = ", ".join(
        m.name
        + "".join(f" {key}={value!r}" for key, value in m.params.items())
        + (f" >= {m.threshold:.2f}" if m.threshold is not None else " (default threshold)")
        for m in configured_metrics(settings)
    )
    lines.append(f"metrics (zero-code mode): {metrics or 'none'}")
    gates = ", ".join(f"{k} >= {v:.2f}" for k, v in settings.thresholds.items())
    lines.append(f"run thresholds: {gates or 'none'}")
    lines.append(f"RAG queries: {sum(rag_queries(c.case) for c in ordered)}")
    from ..engine.estimate import estimate_run
    from ..judges.factory import resolve_kind

    names = [m.name for m in configured_metrics(settings)]
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
            f"{estimate.describe()} (cache hits cost nothing)"
        )
        lines.append(
            "  this is what zero-code mode asks for; a suite whose tests take rag_case asks "
            "for what its tests ask, which is not known before they run"
        )
    return "\n".join(lines)
