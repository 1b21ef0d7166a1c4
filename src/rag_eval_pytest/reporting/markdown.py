"""The Markdown documents: ``eval_report.md``, the report rendered in the layout of the PRD's
example, and ``eval_summary.md``, the run's step summary (:func:`render_step_summary`).

What they say comes from :mod:`.wording`; untrusted text is made inert Markdown by
:func:`~rag_eval_pytest.text.escaping.inline`."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

from ..metrics.registry import metric_order
from ..text.escaping import code, inline, marked_inline
from ..text.shorten import cut
from ..text.spans import marked_pieces
from .case_source import ListCases, failing
from .causes import MEANINGS, UNEXPLAINED
from .wording import (
    FLAKY_MEANING,
    GOOD_VERDICTS,
    MARK_LEGEND,
    NEWLY_FAILING_MEANING,
    NO_MEAN_COMPARED,
    SUMMARY_HEADER,
    answer_marks,
    cascade_lines,
    causes_line,
    change_cell,
    change_verdict,
    changed_line,
    evidence_label,
    failing_verdict,
    fmt_duration,
    fmt_score,
    latency_text,
    newly_failing_heading,
    newly_failing_summary,
    summary_rows,
    title,
    verdict_line,
    vote_lines,
)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TextIO

    from ..judges.base import Usage
    from ..metrics.base import Evidence, MetricResult
    from ..text.spans import Span
    from .case_source import CaseMark, CaseSource
    from .models import (
        CaseResult,
        CaseTest,
        Comparison,
        ContextResult,
        CriticalSummary,
        DatasetInfo,
        MetricChange,
        Report,
        RunSection,
        Summary,
        TagSummary,
        Trend,
        TrendPoint,
        TurnResult,
    )

_QUOTE = 600


_MARK_CONTEXT = 120  # the characters shown beside each mark of a long answer


def _marked_answer(case: CaseResult | TurnResult) -> list[str]:
    """The answer with the statements that count against it in bold (each piece escaped
    before the marks are added), a one-line legend, and the statements not found in it. A
    conversation's evidence indexes its turns' answers: each turn marks its own."""
    conversation = getattr(case, "turns", None) is not None
    spans, unmatched = answer_marks([] if conversation else case.metrics.values())
    lines = _unsupported_marked(case.answer, spans) if spans and case.answer is not None else []
    if unmatched:
        missing = ", ".join(f'"{marked_inline([(cut(text, 200), False)])}"' for text in unmatched)
        lines += [f"Not found in the answer: {missing}", ""]
    return lines


def _unsupported_marked(answer: str, spans: list[Span]) -> list[str]:
    context = None if len(answer) <= _QUOTE else _MARK_CONTEXT
    marked = marked_inline(marked_pieces(answer, spans, context))
    return [
        f'**Unsupported in the Answer:** "{marked}"',
        "",
        f"Legend: **bold** = {MARK_LEGEND}.",
        "",
    ]


def _cell(text: object) -> str:
    """Untrusted text (from the RAG system, the dataset or a judge) as inert Markdown."""
    return inline(text)


def _quote(text: str | None, limit: int = _QUOTE) -> str:
    if text is None:
        return "_(none)_"
    return '"' + inline(text, limit) + '"'


def _row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(cells) + " |"


def _summary_table(summary: Summary) -> list[str]:
    composite, *metrics = summary_rows(summary)
    lines = [
        _row(SUMMARY_HEADER),
        "|" + "|".join("-" * (len(name) + 2) for name in SUMMARY_HEADER) + "|",
        _row(("**Composite**", *composite[1:])),
        *(_row((_cell(name), *cells)) for name, *cells in metrics),
    ]
    if any(m.interval is not None for m in summary.metrics.values()):
        lines += ["", "Scores are means over the cases, with their 95 % interval."]
    return lines


def _latency_line(summary: Summary) -> str:
    latency = latency_text(summary.latency)
    return f"**Latency:** {latency or 'no live queries (pre-recorded answers)'}"


_CAUSE_CASES = 20
"""The most cases named per cause in the "Why cases failed" table (all are under Issues)."""


def _cause_cases(cases: list[CaseMark]) -> str:
    """The keys of ``cases``, critical first, at most :data:`_CAUSE_CASES` of them."""
    ordered = sorted(cases, key=lambda c: not c.critical)  # stable: dataset order
    shown = [f"{_cell(c.key)}{' (critical)' if c.critical else ''}" for c in ordered[:_CAUSE_CASES]]
    more = len(ordered) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _failing(cases: CaseSource) -> list[CaseMark]:
    """The cases that failed or errored, in the report's order."""
    return [mark for mark in cases.marks() if mark.failing]


def _source(report: Report, cases: CaseSource | None) -> CaseSource:
    """The report's cases: ``cases``, or those of the report in memory."""
    return ListCases(report.cases) if cases is None else cases


class _Joined:
    """Lines written to ``out`` as they come, as ``"\n".join(lines)`` would write them."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.started = False

    def add(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.out.write(f"\n{line}" if self.started else line)
            self.started = True


# Each cause's row: its label, the failure_cause it counts, and what it means.
_CAUSE_ROWS: list[tuple[str, str | None, str]] = [
    *((cause, cause, meaning) for cause, meaning in MEANINGS.items()),
    ("unexplained", None, UNEXPLAINED),
]


def cause_section(report: Report, cases: CaseSource | None = None) -> list[str]:
    """ "Why cases failed": the failing cases per cause, most telling cause first, with what
    each cause means and which cases have it (critical first); nothing when none failed."""
    failing = _failing(_source(report, cases))
    if not failing:
        return []
    return [
        f"## Why cases failed: {len(failing)}",
        "",
        "| Cause | Cases | Which | What it means |",
        "|-------|-------|-------|---------------|",
        *_cause_rows(failing),
        "",
    ]


def _cause_rows(failing: list[CaseMark]) -> list[str]:
    rows = []
    for label, cause, meaning in _CAUSE_ROWS:
        having = [case for case in failing if case.cause == cause]
        if having:
            rows.append(f"| {label} | {len(having)} | {_cause_cases(having)} | {meaning} |")
    return rows


def _cause_line(case: CaseResult) -> list[str]:
    """The case's cause, and the other causes that apply, for its trace."""
    if case.failure_cause is None:
        return []
    also = ", ".join(case.secondary_causes)
    return [
        f"**Why it failed:** {case.failure_cause} ({MEANINGS[case.failure_cause]})"
        + (f"; also {also}" if also else ""),
        "",
    ]


def _turns(case: CaseResult) -> list[str]:
    """A conversation as its turns, the failing turns first, each with its question, answer
    (its unsupported statements marked) and scores."""
    turns = sorted(case.turns or [], key=lambda t: (t.status != "failed", t.turn))
    lines = [f"**Conversation:** {len(turns)} turns, the failing first", ""]
    for turn in turns:
        lines += _turn(turn)
    return lines


def _turn(turn: TurnResult) -> list[str]:
    status = (turn.status or "not measured").upper().replace("_", " ")
    lines = [f"#### Turn {turn.turn} ({status}): {inline(turn.question, 120)}", ""]
    lines += _contexts(turn.contexts)
    lines += [f"**Answer:** {_quote(turn.answer)}", ""]
    lines += _marked_answer(turn)
    if turn.ground_truth is not None:
        lines += [f"**Ground Truth:** {_quote(turn.ground_truth)}", ""]
    if turn.expected_contexts is not None:
        lines += [_expected(turn.expected_contexts), ""]
    lines += [_turn_score(name, result) for name, result in turn.metrics.items()]
    return [*lines, ""]


def _turn_score(name: str, result: MetricResult) -> str:
    score = "not judged" if result.score is None else fmt_score(result.score)
    reason = f" - {_cell(result.reason)}" if result.reason else ""
    return f"- {_cell(title(name))}: {score}{reason}"


def _expected(expected_contexts: list[str]) -> str:
    expected = ", ".join(_cell(e) for e in expected_contexts)
    return f"**Expected Contexts:** {expected or '_none_'}"


def _contexts(contexts: list[ContextResult] | None) -> list[str]:
    lines = ["**Retrieved Contexts:**"]
    if contexts is None:
        lines.append("_unknown (the RAG system returned no contexts)_")
    elif not contexts:
        lines.append("_none retrieved_")
    else:
        for i, ctx in enumerate(contexts, start=1):
            source = f" ({_cell(ctx.source)})" if ctx.source else ""
            lines.append(f"{i}. {_quote(ctx.text, 300)}{source}")
    return [*lines, ""]


def _single(case: CaseResult) -> list[str]:
    """One question's block: the question, the error, the contexts, the answer (its
    unsupported statements marked), the ground truth and the expected contexts."""
    lines = [f"**Question:** {_cell(case.question)}", ""]
    if case.error:
        lines += [f"**Error:** {_cell(case.error)}", ""]
    lines += _contexts(case.contexts)
    lines += [f"**Generated Answer:** {_quote(case.answer)}", ""]
    lines += _marked_answer(case)
    lines.append(f"**Ground Truth:** {_quote(case.ground_truth)}")
    if case.expected_contexts is not None:
        lines += ["", _expected(case.expected_contexts)]
    return lines


def _case_trace(case: CaseResult) -> list[str]:
    """A failing case under Issues: why it failed, what it was asked and answered, its
    scores, the judge's reasoning and findings, its warnings and its failed tests."""
    return [
        *_trace_heading(case),
        *_cause_line(case),
        *_asked_and_answered(case),
        *_scores(case),
        *_reasoning(case),
        *_findings(case),
        *_metric_warnings(case),
        *_failed_tests(case),
        "",
    ]


def _trace_heading(case: CaseResult) -> list[str]:
    status = {"failed": "FAILED", "error": "ERROR"}.get(case.status, "LOW")
    critical = " (critical)" if case.critical else ""
    return [f"### {status}: {_cell(case.key)}{critical} - {inline(case.question, 120)}", ""]


def _asked_and_answered(case: CaseResult) -> list[str]:
    """A question's block, or a conversation's turns (each with its own question, contexts,
    answer and ground truth: the case's are only its first question and last response)."""
    if case.turns is None:
        return [*_single(case), "", "**Scores:**"]
    lines = _turns(case)
    if case.error:
        lines += [f"**Error:** {_cell(case.error)}", ""]
    return [*lines, "**Scores of the conversation:**"]


def _scores(case: CaseResult) -> list[str]:
    if not case.metrics:
        return ["- _no metric was evaluated_"]
    return [_score_line(name, result) for name, result in case.metrics.items()]


def _score_line(name: str, result: MetricResult) -> str:
    if result.status == "not_judged":
        return f"- {_cell(title(name))}: not judged ({_cell(result.reason)})"
    threshold = (
        ""
        if result.threshold is None
        else f" (threshold {result.threshold:.2f}, {result.status.upper()})"
    )
    return f"- {_cell(title(name))}: {fmt_score(result.score)}{threshold}"


def _reasoning(case: CaseResult) -> list[str]:
    reasons = [
        f"- {_cell(title(name))}: {_cell(r.reason)}"
        for name, r in case.metrics.items()
        if r.reason and r.status != "not_judged"
    ]
    return ["", "**Judge Reasoning:**", *reasons] if reasons else []


def _findings(case: CaseResult) -> list[str]:
    """The evidence that counts against the case: the answer's unsupported claims, then the
    other findings."""
    findings = _against(case)
    claims = [(name, e) for name, e in findings if e.kind == "statement"]
    others = [(name, e) for name, e in findings if e.kind != "statement"]
    return _finding_group("Unsupported Claims", claims) + _finding_group("Other Findings", others)


def _against(case: CaseResult) -> list[tuple[str, Evidence]]:
    """Each metric's evidence whose verdict is not a good one."""
    return [
        (name, e)
        for name, r in case.metrics.items()
        for e in r.evidence
        if e.verdict and e.verdict.lower() not in GOOD_VERDICTS
    ]


def _finding_group(heading: str, group: list[tuple[str, Evidence]]) -> list[str]:
    if not group:
        return []
    return ["", f"**{heading}:**", *(_finding(name, e) for name, e in group)]


def _finding(name: str, evidence: Evidence) -> str:
    why = f" - {_cell(evidence.reason)}" if evidence.reason else ""
    verdict = _cell(evidence_label(evidence.verdict, evidence.score))
    return f"- {_quote(evidence.text, 200)} ({_cell(title(name))}: {verdict}){why}"


def _metric_warnings(case: CaseResult) -> list[str]:
    warnings = [w for r in case.metrics.values() for w in r.warnings]
    if not warnings:
        return []
    return ["", "**Warnings:**", *(f"- {_cell(w)}" for w in warnings)]


def _failed_tests(case: CaseResult) -> list[str]:
    failed = [t for t in case.tests if t.outcome in ("failed", "error")]
    if not failed:
        return []
    return ["", "**Failed Tests:**", *(_failed_test(t) for t in failed)]


def _failed_test(test: CaseTest) -> str:
    message = f": {_cell(test.message)}" if test.message else ""
    return f"- {code(test.nodeid)} {test.outcome}{message}"


def _write_not_judged(lines: _Joined, cases: CaseSource) -> None:
    """Why each metric went unjudged (refusal, outage, missing input), for the cases whose
    trace is not shown above: a 'not judged' is never left without its reason."""
    count = sum(mark.not_judged for mark in cases.marks() if not mark.failing)
    if not count:
        return
    lines.add([f"## Not Judged: {count}", ""])
    for case in cases.read(_unjudged_passing):
        lines.add(_not_judged_rows(case))
    lines.add([""])


def _not_judged_rows(case: CaseResult) -> list[str]:
    return [
        _not_judged_row(case.key, name, result.reason)
        for name, result in case.metrics.items()
        if result.status == "not_judged"
    ]


def _unjudged_passing(mark: CaseMark) -> bool:
    return not mark.failing and mark.not_judged > 0


def _not_judged_row(key: str, name: str, reason: str | None) -> str:
    return f"- {_cell(key)}: {_cell(title(name))}: {_cell(reason or 'no reason given')}"


_SELECTION_MARK = {"other": " (other selection)", "unknown": " (selection not recorded)"}


def _trend_charts(points: list[TrendPoint]) -> list[str]:
    """Mermaid charts of the composite, one line per judge identity: runs scored by other
    judges (or by one that votes or prompts differently) measured something else, so their
    scores are never joined into one line. The x axis numbers the runs as the table does."""
    lines_of, judges = _composite_lines(points)
    chart: list[str] = []
    for key, line in lines_of.items():
        if len(line) >= 2:
            chart += _chart(_chart_title(judges, key), line)
    return chart


def _composite_lines(
    points: list[TrendPoint],
) -> tuple[dict[str | None, list[tuple[int, float]]], dict[str | None, str]]:
    """Each judge identity's composites (by the run's number), and its judge's name."""
    lines_of: dict[str | None, list[tuple[int, float]]] = {}
    judges: dict[str | None, str] = {}
    for number, point in enumerate(points, start=1):
        key = point.judge_identity or point.judge
        judges[key] = point.judge or "not recorded"
        if point.composite is not None:
            lines_of.setdefault(key, []).append((number, point.composite))
    return lines_of, judges


def _chart_title(judges: dict[str | None, str], key: str | None) -> str:
    """The chart's title; with the judge when there are several, and its identity when two
    judges are alike in name."""
    if len(judges) == 1:
        return "Composite score by run (oldest first)"
    judge = judges[key]
    if list(judges.values()).count(judge) > 1 and key is not None:
        judge = f"{judge} {key[:8]}"
    return f"Composite score by run, judge {_mermaid_text(judge)} (oldest first)"


def _chart(heading: str, line: list[tuple[int, float]]) -> list[str]:
    return [
        "```mermaid",
        "xychart-beta",
        f'    title "{heading}"',
        "    x-axis [" + ", ".join(f'"{number}"' for number, _ in line) + "]",
        '    y-axis "score" 0 --> 1',
        "    line [" + ", ".join(f"{composite:.3f}" for _, composite in line) + "]",
        "```",
        "",
    ]


def _mermaid_text(text: str) -> str:
    """A judge's name (from the history, which anyone who can write it can forge) as inert
    text inside a Mermaid title: no quote, newline or markup."""
    return re.sub(r"[^\w .,:;()+/@-]", "", text)[:80]


def comparison_lines(comparison: Comparison | None) -> list[str]:
    """This run against its baseline: per metric the change over the shared cases, its 95 %
    interval and p-value, and what it means (regression, significant, within the noise);
    then the cases that newly fail."""
    if comparison is None:
        return []
    lines = ["## Compared with the baseline", ""]
    if comparison.not_compared:
        return [*lines, f"Not compared: {_cell(comparison.not_compared)}.", ""]
    lines += [
        f"Baseline: {_cell(comparison.baseline)}. Each metric over the cases both runs scored; "
        f"a regression is a drop with p < {comparison.alpha:g} (a paired sign-flip test) of at "
        f"least {comparison.min_drop:g}, or a case that newly fails with stable verdicts.",
        "",
    ]
    changed = changed_line(comparison)
    if changed:
        lines += [f"{_cell(changed)}.", ""]
    if comparison.changes:
        lines += [
            "| Metric | Cases | Baseline | This run | Change (95 % interval) | p | Verdict |",
            "|--------|-------|----------|----------|------------------------|---|---------|",
        ]
    else:
        lines.append(NO_MEAN_COMPARED)
    for c in comparison.changes:
        verdict = change_verdict(c).replace("REGRESSION", "**REGRESSION**", 1)
        lines.append(
            f"| {_cell(title(c.metric))} | {c.cases} | {fmt_score(c.before)} | "
            f"{fmt_score(c.after)} | {change_cell(c)} | {c.p_value:.3g} | {verdict} |"
        )
    return [*lines, "", *newly_failing_lines(comparison)]


def newly_failing_lines(comparison: Comparison) -> list[str]:
    """The cases that passed in the baseline and fail now, each metric with its scores."""
    items = comparison.newly_failing
    if not items:
        return []
    lines = [
        f"### {newly_failing_heading(comparison)}",
        "",
        NEWLY_FAILING_MEANING,
        "",
        "| Case | Metric | Baseline | This run | Threshold | Verdict |",
        "|------|--------|----------|----------|-----------|---------|",
    ]
    for f in items:
        verdict = failing_verdict(f).replace("REGRESSION", "**REGRESSION**", 1)
        lines.append(
            f"| {_cell(f.key)} | {_cell(title(f.metric))} | {fmt_score(f.before)} | "
            f"{fmt_score(f.after)} | {fmt_score(f.threshold)} | {verdict} |"
        )
    return [*lines, ""]


def flaky_lines(report: Report) -> list[str]:
    """The judge-flaky cases, loudly: outcomes that flipped with nothing changed."""
    if not report.flaky:
        return []
    lines = [
        f"## Judge-flaky cases: {len(report.flaky)}",
        "",
        FLAKY_MEANING,
        "",
    ]
    for case in report.flaky:
        mark = " **QUARANTINED: its failure did not fail the run**" if case.quarantined else ""
        lines.append(f"- {_cell(case.key)}: {_cell(case.outcomes)}{mark}")
    return [*lines, ""]


def _trend(trend: Trend | None) -> list[str]:
    """The last runs: regressions first, a Mermaid chart of the composite, then the numbers."""
    if trend is None or len(trend.points) < 2:
        return []
    return [
        f"## Trend: last {len(trend.points)} runs",
        "",
        _compared_line(trend),
        "",
        *_trend_regressions(trend),
        *_trend_charts(trend.points),
        *_trend_table(trend.points),
        "",
    ]


def _compared_line(trend: Trend) -> str:
    compared = trend.compared_with
    if compared:
        return (
            f"Compared with run {compared.run_id}, the last complete run of the same "
            "selection (the same cases, metrics, judge and dataset content); runs of other "
            "selections are shown, not compared."
        )
    return f"Not compared: {trend.not_compared or 'no comparable run'}."


def _trend_regressions(trend: Trend) -> list[str]:
    lines = [
        f"> **Regression:** {_cell(title(r.name))} {fmt_score(r.previous)} → "
        f"{fmt_score(r.current)} since the last run of the same selection "
        f"({_cell(r.previous_run)})."
        for r in trend.regressions
    ]
    return [*lines, ""] if lines else []


def _trend_table(points: list[TrendPoint]) -> list[str]:
    """The runs' numbers, a row each, numbered as the charts number them."""
    names = sorted({m for p in points for m in p.metrics}, key=metric_order)
    header = "| Run | Date | Composite | " + " | ".join(_cell(title(n)) for n in names) + " |"
    rows = (_trend_row(number, p, names) for number, p in enumerate(points, start=1))
    return [header, "|" + "---|" * (3 + len(names)), *rows]


def _trend_row(number: int, point: TrendPoint, names: list[str]) -> str:
    date = (point.timestamp or "")[:16].replace("T", " ")
    mark = (" (partial)" if point.partial else "") + _SELECTION_MARK.get(point.selection, "")
    cells = " | ".join(fmt_score(point.metrics.get(n)) for n in names)
    return f"| {number}{mark} | {date} | {fmt_score(point.composite)} | {cells} |"


def render_markdown(report: Report) -> str:
    """``eval_report.md`` of a report in memory, as text (:func:`write_markdown`)."""
    out = io.StringIO()
    write_markdown(out, report, ListCases(report.cases))
    return out.getvalue()


def write_markdown(out: TextIO, report: Report, cases: CaseSource) -> None:
    """``eval_report.md`` to ``out``: the run, its summary and what it is compared with, the
    critical tests, why cases failed and each failing case's trace, the tags, every case,
    warnings. ``report``'s cases are ``cases``, each read when its section is written."""
    lines = _Joined(out)
    lines.add(
        [
            "# RAG Evaluation Report",
            "",
            *_run_notices(report.run),
            *_run_lines(report.run, report.summary),
            *_summary_section(report.summary),
            *comparison_lines(report.comparison),
            *flaky_lines(report),
            *_trend(report.trend),
            *_critical_section(report.summary.critical),
            *cause_section(report, cases),
        ]
    )
    _write_issues(lines, cases)
    _write_not_judged(lines, cases)
    lines.add(_tag_table(report.summary.tags))
    _write_all_cases(lines, cases)
    lines.add(_listed("## Warnings", report.warnings, gap=True))


def _run_notices(run: RunSection) -> list[str]:
    lines = []
    if run.partial:
        lines += [
            "> **Partial run:** the run was interrupted; only finished cases are reported.",
            "",
        ]
    if run.report_only:
        lines += [
            "> **Report only:** per-case thresholds did not fail tests; scores below them are "
            "marked FAIL in the tables. Run-level thresholds still set the exit code.",
            "",
        ]
    return lines


def _run_lines(run: RunSection, summary: Summary) -> list[str]:
    """The run's date, adapter, judge, datasets, cases, duration, the judge's usage and the
    exit code."""
    counts, critical = summary.counts, summary.critical
    return [
        f"**Date:** {run.started_at.replace('T', ' ').replace('Z', ' UTC')}  ",
        *([f"**Adapter:** {_cell(run.adapter)}  "] if run.adapter else []),
        f"**Judge:** {_cell(run.judge or 'none')}  ",
        *(_dataset_line(ds) for ds in run.datasets),
        f"**Test Cases:** {counts.cases} ({critical.total} critical): "
        f"{counts.passed} passed, "
        f"{counts.failed} failed, {counts.errors} errors, {counts.skipped} skipped  ",
        f"**Duration:** {fmt_duration(run.duration_s)}  ",
        *_usage_line(summary.usage),
        f"**Exit Code:** {run.exit_code} ({_cell(run.exit_reason)})",
    ]


def _dataset_line(dataset: DatasetInfo) -> str:
    name = f" ({_cell(dataset.name)})" if dataset.name else ""
    return f"**Dataset:** {_cell(dataset.path)}{name}, {dataset.cases} cases  "


def _usage_line(usage: Usage) -> list[str]:
    if not (usage.judge_calls or usage.cache_hits):
        return []
    return [
        f"**Judge Calls:** {usage.judge_calls} ({usage.cache_hits} cached) | "
        f"**Tokens:** {usage.input_tokens} in / {usage.output_tokens} out | "
        f"**Actual Cost:** ${usage.cost_usd:.2f}  "
    ]


def _summary_section(summary: Summary) -> list[str]:
    return [
        "",
        "## Summary",
        "",
        *_summary_table(summary),
        "",
        _latency_line(summary),
        "",
        *_unchecked(summary),
        *_listed("**Cascade judge:**", cascade_lines(summary)),
        *_listed("**Judge votes:**", vote_lines(summary)),
    ]


def _unchecked(summary: Summary) -> list[str]:
    if not summary.unchecked:
        return []
    return [f"> **Not checked:** {_cell(summary.unchecked)}", ""]


def _listed(heading: str, items: list[str], *, gap: bool = False) -> list[str]:
    """A heading and its items as a list (nothing when there is none); ``gap``: a blank line
    after the heading."""
    if not items:
        return []
    return [heading, *([""] if gap else []), *(f"- {_cell(item)}" for item in items), ""]


def _critical_section(critical: CriticalSummary) -> list[str]:
    passed = f"{critical.passed}/{critical.total} PASSED"
    if not critical.failed:
        return [f"## Critical Tests: {passed}", ""]
    return [
        f"## Critical Tests: {passed}, {len(critical.failed)} FAILED",
        "",
        *(f"- FAILED: {_cell(key)}" for key in critical.failed),
        "",
    ]


def _write_issues(lines: _Joined, cases: CaseSource) -> None:
    lines.add([f"## Issues Found: {len(_failing(cases))}", ""])
    for case in cases.read(failing):
        lines.add(_case_trace(case))


def _tag_table(tags: list[TagSummary]) -> list[str]:
    if not tags:
        return []
    return [
        "## Test Results by Tag",
        "",
        "| Tag | Count | Passed | Failed | Avg Score |",
        "|-----|-------|--------|--------|-----------|",
        *(
            f"| {_cell(t.tag)} | {t.count} | {t.passed} | {t.failed} | {fmt_score(t.avg_score)} |"
            for t in tags
        ),
        "",
    ]


def _write_all_cases(lines: _Joined, cases: CaseSource) -> None:
    lines.add(
        [
            "## All Cases",
            "",
            "| Case | Status | Composite | Metrics |",
            "|------|--------|-----------|---------|",
        ]
    )
    lines.add(_case_row(case) for case in cases.read())
    lines.add([""])


def _case_row(case: CaseResult) -> str:
    scores = ", ".join(
        f"{_cell(name)} {fmt_score(r.score) if r.status != 'not_judged' else 'not judged'}"
        for name, r in case.metrics.items()
    )
    crit = " (critical)" if case.critical else ""
    return (
        f"| {_cell(case.key)}{crit} | {case.status} "
        f"| {fmt_score(case.composite)} | {scores or '-'} |"
    )


_REASON = 200  # characters of one failing case's reason in the summary


def _failure_reason(case: CaseResult) -> str:
    """One line: why the case failed (its error, its failed metrics, else a failed test)."""
    if case.error:
        return inline(case.error, _REASON)
    parts = _failed_metrics(case) or _first_failed_test(case)
    reason = "; ".join(parts) or case.status
    return reason if len(reason) <= _REASON else _cut(reason, _REASON - 1) + "…"


def _failed_metrics(case: CaseResult) -> list[str]:
    return [
        f"{_cell(name)} {fmt_score(r.score)} < {fmt_score(r.threshold)}"
        + (f" ({_cell(r.reason)})" if r.reason else "")
        for name, r in case.metrics.items()
        if r.status == "failed"
    ]


def _first_failed_test(case: CaseResult) -> list[str]:
    return [_cell(t.message or t.nodeid) for t in case.tests if t.outcome in ("failed", "error")][
        :1
    ]


def _cut(escaped: str, limit: int) -> str:
    """The first ``limit`` characters of escaped Markdown, without a half escape at the end
    (a lone backslash would escape the "…", a cut entity would show as text)."""
    head = re.sub(r"&#?[a-z0-9]*$", "", escaped[:limit])
    trailing = len(head) - len(head.rstrip("\\"))
    return head[:-1] if trailing % 2 else head


def render_step_summary(report: Report) -> str:
    """The step summary of a report in memory, as text (:func:`write_step_summary`)."""
    out = io.StringIO()
    write_step_summary(out, report, ListCases(report.cases))
    return out.getvalue()


def write_step_summary(out: TextIO, report: Report, cases: CaseSource) -> None:
    """``eval_summary.md`` and ``$GITHUB_STEP_SUMMARY``, to ``out``: fit for a pull-request
    comment.

    The status line, the composite, the metric table, then every failing case with its
    one-line reason (critical cases first), and every failed critical test."""
    lines = _Joined(out)
    lines.add(_step_summary_head(report))
    _write_failing_section(lines, report, cases)


def _step_summary_head(report: Report) -> list[str]:
    run, summary = report.run, report.summary
    counts, critical = summary.counts, summary.critical
    notes = _noise_notes(report)
    return [
        f"## {verdict_line(run.exit_code, _cell(run.exit_reason))}",
        "",
        f"**Composite:** {fmt_score(summary.composite.score)} | **Cases:** "
        f"{counts.cases} ({counts.passed} passed, {counts.failed} failed, "
        f"{counts.errors} errors, {counts.skipped} skipped) | **Critical:** "
        f"{critical.passed}/{critical.total} passed "
        f"| **Judge:** {_cell(run.judge or 'none')}",
        "",
        *_summary_table(summary),
        "",
        _latency_line(summary),
        "",
        *_unchecked(summary),
        *([*notes, ""] if notes else []),
    ]


def _write_failing_section(lines: _Joined, report: Report, cases: CaseSource) -> None:
    """The failing cases, critical first, each with its reason, and the failed critical
    tests of no failing case."""
    failing = _failing(cases)
    tests = _other_critical_tests(report.summary.critical.failed, failing)
    if not failing and not tests:
        return
    lines.add(_failing_head(report, len(failing), tests))
    for critical in (_failing_critical, _failing_other):
        lines.add(_failing_line(case) for case in cases.read(critical))
    lines.add([""])


def _failing_head(report: Report, failing: int, tests: list[str]) -> list[str]:
    """The failing section's heading, the causes, and the failed critical tests."""
    why = [f"**Why cases failed:** {causes_line(report.summary)}", ""] if failing else []
    return [
        f"### Failing: {failing + len(tests)}",
        "",
        *why,
        *(f"- **{_cell(key)}** (critical test) failed" for key in tests),
    ]


def _failing_critical(mark: CaseMark) -> bool:
    return mark.failing and mark.critical


def _failing_other(mark: CaseMark) -> bool:
    return mark.failing and not mark.critical


def _other_critical_tests(failed: list[str], failing: list[CaseMark]) -> list[str]:
    """The failed critical tests that are no failing case's key."""
    keys = {case.key for case in failing}
    return [key for key in failed if key not in keys]


def _failing_line(case: CaseResult) -> str:
    mark = " (critical)" if case.critical else ""
    return f"- **{_cell(case.key)}**{mark}: {_failure_reason(case)}"


def _noise_notes(report: Report) -> list[str]:
    """The step summary's lines on the baseline and the judge-flaky cases."""
    comparison = report.comparison
    lines = [] if comparison is None else _baseline_notes(comparison)
    return lines + _flaky_note(report)


def _baseline_notes(comparison: Comparison) -> list[str]:
    lines = []
    if comparison.not_compared is not None:
        lines.append(f"> **Not compared with the baseline:** {_cell(comparison.not_compared)}")
    lines += [_regression_note(change, comparison.baseline) for change in comparison.regressions]
    if comparison.newly_failing:
        lines.append(f"> **Newly failing:** {_cell(newly_failing_summary(comparison))}")
    return lines


def _regression_note(change: MetricChange, baseline: object) -> str:
    low, high = change.interval
    return (
        f"> **Regression:** {_cell(title(change.metric))} {fmt_score(change.before)} → "
        f"{fmt_score(change.after)} ({change.change:+.2f}, 95 % {low:+.2f} to {high:+.2f}, "
        f"p={change.p_value:.3g}) since {_cell(baseline)}"
    )


def _flaky_note(report: Report) -> list[str]:
    if not report.flaky:
        return []
    quarantined = [case.key for case in report.flaky if case.quarantined]
    held = f"; QUARANTINED: {', '.join(_cell(k) for k in quarantined)}" if quarantined else ""
    return [f"> **Judge-flaky:** {len(report.flaky)} cases{held}"]
