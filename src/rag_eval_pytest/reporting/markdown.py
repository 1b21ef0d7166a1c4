"""The Markdown documents: ``eval_report.md``, the report rendered in the layout of the PRD's
example, and ``eval_summary.md``, the run's step summary (:func:`render_step_summary`).

What they say comes from :mod:`.wording`; untrusted text is made inert Markdown by
:func:`~rag_eval_pytest.text.escaping.inline`."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..metrics.registry import metric_order
from ..text.escaping import code, inline, marked_inline
from ..text.shorten import cut
from ..text.spans import marked_pieces
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
    from .models import (
        CaseResult,
        Comparison,
        ContextResult,
        Report,
        Summary,
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
    lines = []
    if spans and case.answer is not None:
        context = None if len(case.answer) <= _QUOTE else _MARK_CONTEXT
        marked = marked_inline(marked_pieces(case.answer, spans, context))
        lines += [
            f'**Unsupported in the Answer:** "{marked}"',
            "",
            f"Legend: **bold** = {MARK_LEGEND}.",
            "",
        ]
    if unmatched:
        missing = ", ".join(f'"{marked_inline([(cut(text, 200), False)])}"' for text in unmatched)
        lines += [f"Not found in the answer: {missing}", ""]
    return lines


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


def _cause_cases(cases: list[CaseResult]) -> str:
    """The keys of ``cases``, critical first, at most :data:`_CAUSE_CASES` of them."""
    ordered = sorted(cases, key=lambda c: not c.critical)  # stable: dataset order
    shown = [f"{_cell(c.key)}{' (critical)' if c.critical else ''}" for c in ordered[:_CAUSE_CASES]]
    more = len(ordered) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def cause_section(report: Report) -> list[str]:
    """ "Why cases failed": the failing cases per cause, most telling cause first, with what
    each cause means and which cases have it (critical first); nothing when none failed."""
    failing = [c for c in report.cases if c.status in ("failed", "error")]
    if not failing:
        return []
    lines = [
        f"## Why cases failed: {len(failing)}",
        "",
        "| Cause | Cases | Which | What it means |",
        "|-------|-------|-------|---------------|",
    ]
    for cause, meaning in MEANINGS.items():
        having = [c for c in failing if c.failure_cause == cause]
        if having:
            lines.append(f"| {cause} | {len(having)} | {_cause_cases(having)} | {meaning} |")
    unexplained = [c for c in failing if c.failure_cause is None]
    if unexplained:
        lines.append(
            f"| unexplained | {len(unexplained)} | {_cause_cases(unexplained)} | {UNEXPLAINED} |"
        )
    return [*lines, ""]


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
        status = (turn.status or "not measured").upper().replace("_", " ")
        lines += [f"#### Turn {turn.turn} ({status}): {inline(turn.question, 120)}", ""]
        lines += _contexts(turn.contexts)
        lines += [f"**Answer:** {_quote(turn.answer)}", ""]
        lines += _marked_answer(turn)
        if turn.ground_truth is not None:
            lines += [f"**Ground Truth:** {_quote(turn.ground_truth)}", ""]
        if turn.expected_contexts is not None:
            expected = ", ".join(_cell(e) for e in turn.expected_contexts)
            lines += [f"**Expected Contexts:** {expected or '_none_'}", ""]
        for name, result in turn.metrics.items():
            score = "not judged" if result.score is None else fmt_score(result.score)
            reason = f" - {_cell(result.reason)}" if result.reason else ""
            lines.append(f"- {_cell(title(name))}: {score}{reason}")
        lines.append("")
    return lines


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
        expected = ", ".join(_cell(e) for e in case.expected_contexts)
        lines += ["", f"**Expected Contexts:** {expected or '_none_'}"]
    return lines


def _case_trace(case: CaseResult) -> list[str]:
    status = {"failed": "FAILED", "error": "ERROR"}.get(case.status, "LOW")
    critical = " (critical)" if case.critical else ""
    lines = [f"### {status}: {_cell(case.key)}{critical} - {inline(case.question, 120)}", ""]
    lines += _cause_line(case)
    if case.turns is not None:
        # Each turn shows its own question, contexts, answer and ground truth; the case's
        # are only its first question and last response.
        lines += _turns(case)
        if case.error:
            lines += [f"**Error:** {_cell(case.error)}", ""]
        lines.append("**Scores of the conversation:**")
    else:
        lines += _single(case)
        lines += ["", "**Scores:**"]
    if not case.metrics:
        lines.append("- _no metric was evaluated_")
    for name, result in case.metrics.items():
        if result.status == "not_judged":
            lines.append(f"- {_cell(title(name))}: not judged ({_cell(result.reason)})")
        else:
            threshold = (
                ""
                if result.threshold is None
                else f" (threshold {result.threshold:.2f}, {result.status.upper()})"
            )
            lines.append(f"- {_cell(title(name))}: {fmt_score(result.score)}{threshold}")
    reasons = [
        f"- {_cell(title(name))}: {_cell(r.reason)}"
        for name, r in case.metrics.items()
        if r.reason and r.status != "not_judged"
    ]
    if reasons:
        lines += ["", "**Judge Reasoning:**", *reasons]
    findings = [
        (name, e)
        for name, r in case.metrics.items()
        for e in r.evidence
        if e.verdict and e.verdict.lower() not in GOOD_VERDICTS
    ]
    claims = [(n, e) for n, e in findings if e.kind == "statement"]  # the answer's claims
    others = [(n, e) for n, e in findings if e.kind != "statement"]
    for heading, group in (("Unsupported Claims", claims), ("Other Findings", others)):
        if group:
            lines += ["", f"**{heading}:**"]
            for name, e in group:
                why = f" - {_cell(e.reason)}" if e.reason else ""
                verdict = _cell(evidence_label(e.verdict, e.score))
                lines.append(f"- {_quote(e.text, 200)} ({_cell(title(name))}: {verdict}){why}")
    warnings = [w for r in case.metrics.values() for w in r.warnings]
    if warnings:
        lines += ["", "**Warnings:**", *(f"- {_cell(w)}" for w in warnings)]
    failed_tests = [t for t in case.tests if t.outcome in ("failed", "error")]
    if failed_tests:
        lines += ["", "**Failed Tests:**"]
        for t in failed_tests:
            msg = f": {_cell(t.message)}" if t.message else ""
            lines.append(f"- {code(t.nodeid)} {t.outcome}{msg}")
    lines.append("")
    return lines


def _not_judged(cases: list[CaseResult]) -> list[str]:
    """Why each metric went unjudged (refusal, outage, missing input), for the cases whose
    trace is not shown above: a 'not judged' is never left without its reason."""
    rows = [
        f"- {_cell(case.key)}: {_cell(title(name))}: {_cell(result.reason or 'no reason given')}"
        for case in cases
        if case.status not in ("failed", "error")
        for name, result in case.metrics.items()
        if result.status == "not_judged"
    ]
    if not rows:
        return []
    return [f"## Not Judged: {len(rows)}", "", *rows, ""]


_SELECTION_MARK = {"other": " (other selection)", "unknown": " (selection not recorded)"}


def _trend_charts(points: list[TrendPoint]) -> list[str]:
    """Mermaid charts of the composite, one line per judge identity: runs scored by other
    judges (or by one that votes or prompts differently) measured something else, so their
    scores are never joined into one line. The x axis numbers the runs as the table does."""
    lines_of: dict[str | None, list[tuple[int, float]]] = {}
    judges: dict[str | None, str] = {}
    for number, point in enumerate(points, start=1):
        key = point.judge_identity or point.judge
        judges[key] = point.judge or "not recorded"
        if point.composite is not None:
            lines_of.setdefault(key, []).append((number, point.composite))
    labels = list(judges.values())
    chart: list[str] = []
    for key, line in lines_of.items():
        if len(line) < 2:
            continue
        judge = judges[key]
        if labels.count(judge) > 1 and key is not None:  # alike in name, not in identity
            judge = f"{judge} {key[:8]}"
        title = (
            "Composite score by run (oldest first)"
            if len(judges) == 1
            else f"Composite score by run, judge {_mermaid_text(judge)} (oldest first)"
        )
        chart += [
            "```mermaid",
            "xychart-beta",
            f'    title "{title}"',
            "    x-axis [" + ", ".join(f'"{number}"' for number, _ in line) + "]",
            '    y-axis "score" 0 --> 1',
            "    line [" + ", ".join(f"{composite:.3f}" for _, composite in line) + "]",
            "```",
            "",
        ]
    return chart


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
    points = trend.points
    lines = [f"## Trend: last {len(points)} runs", ""]
    compared = trend.compared_with
    if compared:
        lines.append(
            f"Compared with run {compared.run_id}, the last complete run of the same "
            "selection (the same cases, metrics, judge and dataset content); runs of other "
            "selections are shown, not compared."
        )
    else:
        lines.append(f"Not compared: {trend.not_compared or 'no comparable run'}.")
    lines.append("")
    for r in trend.regressions:
        lines.append(
            f"> **Regression:** {_cell(title(r.name))} {fmt_score(r.previous)} → "
            f"{fmt_score(r.current)} since the last run of the same selection "
            f"({_cell(r.previous_run)})."
        )
    if trend.regressions:
        lines.append("")
    lines += _trend_charts(points)
    names = sorted({m for p in points for m in p.metrics}, key=metric_order)
    header = "| Run | Date | Composite | " + " | ".join(_cell(title(n)) for n in names) + " |"
    lines += [header, "|" + "---|" * (3 + len(names))]
    for i, p in enumerate(points, start=1):
        date = (p.timestamp or "")[:16].replace("T", " ")
        mark = " (partial)" if p.partial else ""
        mark += _SELECTION_MARK.get(p.selection, "")
        cells = " | ".join(fmt_score(p.metrics.get(n)) for n in names)
        lines.append(f"| {i}{mark} | {date} | {fmt_score(p.composite)} | {cells} |")
    lines.append("")
    return lines


def render_markdown(report: Report) -> str:
    run, summary = report.run, report.summary
    counts, critical = summary.counts, summary.critical
    lines = ["# RAG Evaluation Report", ""]
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
    lines.append(f"**Date:** {run.started_at.replace('T', ' ').replace('Z', ' UTC')}  ")
    if run.adapter:
        lines.append(f"**Adapter:** {_cell(run.adapter)}  ")
    lines.append(f"**Judge:** {_cell(run.judge or 'none')}  ")
    for ds in run.datasets:
        name = f" ({_cell(ds.name)})" if ds.name else ""
        lines.append(f"**Dataset:** {_cell(ds.path)}{name}, {ds.cases} cases  ")
    lines.append(
        f"**Test Cases:** {counts.cases} ({critical.total} critical): "
        f"{counts.passed} passed, "
        f"{counts.failed} failed, {counts.errors} errors, {counts.skipped} skipped  "
    )
    lines.append(f"**Duration:** {fmt_duration(run.duration_s)}  ")
    usage = summary.usage
    if usage.judge_calls or usage.cache_hits:
        lines.append(
            f"**Judge Calls:** {usage.judge_calls} ({usage.cache_hits} cached) | "
            f"**Tokens:** {usage.input_tokens} in / {usage.output_tokens} out | "
            f"**Actual Cost:** ${usage.cost_usd:.2f}  "
        )
    lines.append(f"**Exit Code:** {run.exit_code} ({_cell(run.exit_reason)})")
    lines += ["", "## Summary", "", *_summary_table(summary), "", _latency_line(summary), ""]
    if summary.unchecked:
        lines += [f"> **Not checked:** {_cell(summary.unchecked)}", ""]
    cascade = cascade_lines(summary)
    if cascade:
        lines += ["**Cascade judge:**", *(f"- {_cell(line)}" for line in cascade), ""]
    votes = vote_lines(summary)
    if votes:
        lines += ["**Judge votes:**", *(f"- {_cell(line)}" for line in votes), ""]
    lines += comparison_lines(report.comparison)
    lines += flaky_lines(report)
    lines += _trend(report.trend)

    if critical.failed:
        lines.append(
            f"## Critical Tests: {critical.passed}/{critical.total} PASSED, "
            f"{len(critical.failed)} FAILED"
        )
        lines += ["", *(f"- FAILED: {_cell(key)}" for key in critical.failed), ""]
    else:
        lines += [f"## Critical Tests: {critical.passed}/{critical.total} PASSED", ""]

    lines += cause_section(report)
    issues = [c for c in report.cases if c.status in ("failed", "error")]
    lines += [f"## Issues Found: {len(issues)}", ""]
    for case in issues:
        lines += _case_trace(case)
    lines += _not_judged(report.cases)

    if summary.tags:
        lines += [
            "## Test Results by Tag",
            "",
            "| Tag | Count | Passed | Failed | Avg Score |",
            "|-----|-------|--------|--------|-----------|",
        ]
        for t in summary.tags:
            lines.append(
                f"| {_cell(t.tag)} | {t.count} | {t.passed} | {t.failed} "
                f"| {fmt_score(t.avg_score)} |"
            )
        lines.append("")

    lines += [
        "## All Cases",
        "",
        "| Case | Status | Composite | Metrics |",
        "|------|--------|-----------|---------|",
    ]
    for case in report.cases:
        scores = ", ".join(
            f"{_cell(name)} {fmt_score(r.score) if r.status != 'not_judged' else 'not judged'}"
            for name, r in case.metrics.items()
        )
        crit = " (critical)" if case.critical else ""
        lines.append(
            f"| {_cell(case.key)}{crit} | {case.status} "
            f"| {fmt_score(case.composite)} | {scores or '-'} |"
        )
    lines.append("")
    if report.warnings:
        lines += ["## Warnings", "", *(f"- {_cell(w)}" for w in report.warnings), ""]
    return "\n".join(lines)


_REASON = 200  # characters of one failing case's reason in the summary


def _failure_reason(case: CaseResult) -> str:
    """One line: why the case failed (its error, its failed metrics, else a failed test)."""
    if case.error:
        return inline(case.error, _REASON)
    parts = [
        f"{_cell(name)} {fmt_score(r.score)} < {fmt_score(r.threshold)}"
        + (f" ({_cell(r.reason)})" if r.reason else "")
        for name, r in case.metrics.items()
        if r.status == "failed"
    ]
    if not parts:
        parts = [
            _cell(t.message or t.nodeid) for t in case.tests if t.outcome in ("failed", "error")
        ][:1]
    reason = "; ".join(parts) or case.status
    return reason if len(reason) <= _REASON else _cut(reason, _REASON - 1) + "…"


def _cut(escaped: str, limit: int) -> str:
    """The first ``limit`` characters of escaped Markdown, without a half escape at the end
    (a lone backslash would escape the "…", a cut entity would show as text)."""
    head = re.sub(r"&#?[a-z0-9]*$", "", escaped[:limit])
    trailing = len(head) - len(head.rstrip("\\"))
    return head[:-1] if trailing % 2 else head


def render_step_summary(report: Report) -> str:
    """``eval_summary.md`` and ``$GITHUB_STEP_SUMMARY``: fit for a pull-request comment.

    The status line, the composite, the metric table, then every failing case with its
    one-line reason (critical cases first), and every failed critical test."""
    run, summary = report.run, report.summary
    counts, critical = summary.counts, summary.critical
    lines = [f"## {verdict_line(run.exit_code, _cell(run.exit_reason))}", ""]
    lines.append(
        f"**Composite:** {fmt_score(summary.composite.score)} | **Cases:** "
        f"{counts.cases} ({counts.passed} passed, {counts.failed} failed, "
        f"{counts.errors} errors, {counts.skipped} skipped) | **Critical:** "
        f"{critical.passed}/{critical.total} passed "
        f"| **Judge:** {_cell(run.judge or 'none')}"
    )
    lines += ["", *_summary_table(summary), "", _latency_line(summary), ""]
    if summary.unchecked:
        lines += [f"> **Not checked:** {_cell(summary.unchecked)}", ""]
    notes = _noise_notes(report)
    lines += [*notes, ""] if notes else []
    failing = [c for c in report.cases if c.status in ("failed", "error")]
    failing.sort(key=lambda c: not c.critical)  # stable: dataset order within each group
    case_keys = {c.key for c in failing}
    tests = [key for key in critical.failed if key not in case_keys]
    if failing or tests:
        lines += [f"### Failing: {len(failing) + len(tests)}", ""]
        if failing:
            lines += [f"**Why cases failed:** {causes_line(summary)}", ""]
        for key in tests:
            lines.append(f"- **{_cell(key)}** (critical test) failed")
        for case in failing:
            mark = " (critical)" if case.critical else ""
            lines.append(f"- **{_cell(case.key)}**{mark}: {_failure_reason(case)}")
        lines.append("")
    return "\n".join(lines)


def _noise_notes(report: Report) -> list[str]:
    """The step summary's lines on the baseline and the judge-flaky cases."""
    lines = []
    comparison = report.comparison
    if comparison is not None and comparison.not_compared is not None:
        lines.append(f"> **Not compared with the baseline:** {_cell(comparison.not_compared)}")
    for change in comparison.regressions if comparison is not None else []:
        low, high = change.interval
        lines.append(
            f"> **Regression:** {_cell(title(change.metric))} {fmt_score(change.before)} → "
            f"{fmt_score(change.after)} ({change.change:+.2f}, 95 % {low:+.2f} to {high:+.2f}, "
            f"p={change.p_value:.3g}) since {_cell(comparison.baseline)}"  # type: ignore[union-attr]
        )
    if comparison is not None and comparison.newly_failing:
        lines.append(f"> **Newly failing:** {_cell(newly_failing_summary(comparison))}")
    quarantined = [c.key for c in report.flaky if c.quarantined]
    if report.flaky:
        lines.append(
            f"> **Judge-flaky:** {len(report.flaky)} cases"
            + (f"; QUARANTINED: {', '.join(_cell(k) for k in quarantined)}" if quarantined else "")
        )
    return lines
