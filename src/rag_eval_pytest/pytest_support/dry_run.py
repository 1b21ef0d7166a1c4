"""The header line and the ``--rag-dry-run`` plan: what would run, with nothing called."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..engine.zero_code import configured_metrics

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..config.settings import Settings
    from ..data.dataset import Case, LoadedCase
    from ..engine.session import EvalSession
    from ..engine.zero_code import ConfiguredMetric


def header_line(session: EvalSession) -> str:
    datasets = ", ".join(str(d.path.name) for d in session.datasets.datasets)
    settings = session.settings
    adapter = settings.target or settings.adapter or "rag_adapter fixture"
    judge = judge_description(session)
    return (
        f"rag-eval: dataset {datasets} ({_selected_cases(session)}) | adapter {adapter} "
        f"| judge {judge} | output {settings.output.directory}"
        + (f" | config {session.config_file}" if session.config_file else "")
        + calibration_note(session, judge)
    )


def _selected_cases(session: EvalSession) -> str:
    """ "N cases, C critical", or "N of T cases, ..." when tags or a shard left some out."""
    cases = session.cases
    critical = sum(c.critical for c in cases)
    if len(cases) != session.datasets.total_cases:
        return f"{len(cases)} of {session.datasets.total_cases} cases, {critical} critical"
    return f"{len(cases)} cases, {critical} critical"


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
    flags = _case_flags(case)
    suffix = f" [{'; '.join(flags)}]" if flags else ""
    if case.turns is None:
        return [f"  {loaded.key}{suffix}: {case.question[:80]}"]
    return [f"  {loaded.key}{suffix}:", *_turn_lines(case)]


def _case_flags(case: Case) -> list[str]:
    """What the plan says of a case beside its key: critical, a conversation, recorded, tags."""
    flags = ["critical"] if case.critical else []
    if case.turns is not None:
        flags.append(f"conversation of {len(case.turns)} turn{'s' if len(case.turns) > 1 else ''}")
    if case.has_recorded_answer:
        flags.append("pre-recorded answer")
    if case.tags:
        flags.append("tags " + ",".join(case.tags))
    return flags


def _turn_lines(case: Case) -> list[str]:
    """A conversation's turns, each recorded one marked unless all are (the case's flag
    says it then)."""
    per_turn = not case.has_recorded_answer
    return [
        f"    turn {n}"
        + (" [pre-recorded answer]" if per_turn and turn.answer is not None else "")
        + f": {turn.question[:80]}"
        for n, turn in enumerate(case.turns or [], start=1)
    ]


def rag_queries(case: Case) -> int:
    """The RAG system's calls a case makes: one, or one per turn, unless recorded."""
    if case.turns is not None:
        return sum(turn.answer is None for turn in case.turns)
    return 0 if case.has_recorded_answer else 1


def render_plan(session: EvalSession) -> str:
    """Cases critical first, the metrics the zero-code mode checks, and the run gates."""
    ordered = sorted(session.cases, key=lambda c: not c.critical)
    lines = ["rag-eval dry run: dataset and configuration are valid; nothing was called.", ""]
    lines += _selection_lines(session, ordered)
    lines.append("")
    for loaded in ordered:
        lines.extend(case_lines(loaded))
    lines.append("")
    lines += _gate_lines(session.settings)
    lines.append(f"RAG queries: {sum(rag_queries(c.case) for c in ordered)}")
    lines += _judge_lines(session, ordered)
    return "\n".join(lines)


def _selection_lines(session: EvalSession, ordered: Sequence[LoadedCase]) -> list[str]:
    """Each dataset's cases, the cases selected, and the tags that selected them."""
    lines = [f"dataset {ds.path}: {len(ds.cases)} cases" for ds in session.datasets.datasets]
    lines.append(f"selected: {len(ordered)} cases ({sum(c.critical for c in ordered)} critical)")
    if session.settings.tags:
        lines.append(f"tags filter: {', '.join(session.settings.tags)}")
    return lines


def _gate_lines(settings: Settings) -> list[str]:
    """The metrics the zero-code tests check, and the run's thresholds."""
    metrics = ", ".join(_metric_text(m) for m in configured_metrics(settings))
    gates = ", ".join(f"{k} >= {v:.2f}" for k, v in settings.thresholds.items())
    return [f"metrics (zero-code mode): {metrics or 'none'}", f"run thresholds: {gates or 'none'}"]


def _metric_text(metric: ConfiguredMetric) -> str:
    """A zero-code metric, its parameters and its threshold."""
    params = "".join(f" {key}={value!r}" for key, value in metric.params.items())
    if metric.threshold is None:
        return f"{metric.name}{params} (default threshold)"
    return f"{metric.name}{params} >= {metric.threshold:.2f}"


def _judge_lines(session: EvalSession, ordered: Sequence[LoadedCase]) -> list[str]:
    """What the zero-code metrics ask of the judge: nothing, local judgements, or a cost."""
    from ..engine.estimate import estimate_run
    from ..judges.factory import resolve_kind

    settings = session.settings
    names = [m.name for m in configured_metrics(settings)]
    estimate = estimate_run(settings.judge, ordered, names, os.environ)
    if estimate is None:
        return ["judge: not needed (no judge-based metric in zero-code mode)"]
    if resolve_kind(settings.judge, os.environ) == "local":
        return [
            f"judge {judge_description(session)}: offline, no API calls and no cost "
            f"({estimate.calls} local judgements)"
        ]
    return [
        f"judge {judge_description(session)}, zero-code metrics, estimated: "
        f"{estimate.describe()} (cache hits cost nothing)",
        "  this is what zero-code mode asks for; a suite whose tests take rag_case asks "
        "for what its tests ask, which is not known before they run",
    ]
