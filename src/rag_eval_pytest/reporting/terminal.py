"""The terminal summary: the same table as the Markdown report, plus where the files are."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..text.escaping import strip_control
from ..text.shorten import cut, cut_long
from .wording import (
    SUMMARY_HEADER,
    cascade_lines,
    causes_line,
    changed_line,
    describe,
    latency_text,
    newly_failing_summary,
    summary_rows,
    vote_lines,
)

if TYPE_CHECKING:
    from .models import Comparison, FlakyCase, Report, Summary


METRIC_CELL = 40
"""The widest metric name in the terminal table; a longer one ends in "…"."""


def summary_lines(report: Report, written: list[str], errors: list[str]) -> list[str]:
    summary, run = report.summary, report.run
    lines = _table_lines(summary)
    lines.append(_counts_line(summary))
    lines += _measure_lines(summary)
    lines += baseline_lines(report.comparison)
    lines += _note_lines(report)
    lines.extend(f"reports: {path}" for path in written)
    lines.extend(f"could not write {e}" for e in errors)
    lines.append(f"rag-eval: exit {run.exit_code}: {_text(run.exit_reason)}")
    return lines


def _table_lines(summary: Summary) -> list[str]:
    """The table of the composite and each metric: score, threshold and status."""
    composite, *metrics = summary_rows(summary)
    rows = [SUMMARY_HEADER, composite]
    # A named check's name is the user's: a long one would widen every row.
    rows += [
        (_one_line(name, METRIC_CELL), score, threshold, status)
        for name, score, threshold, status in metrics
    ]
    return _aligned(rows)


def _aligned(rows: list[tuple[str, str, str, str]]) -> list[str]:
    """The rows in columns as wide as their widest cell, a rule under the header."""
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _counts_line(summary: Summary) -> str:
    counts, critical = summary.counts, summary.critical
    return (
        f"cases: {counts.cases} ({counts.passed} passed, {counts.failed} failed, "
        f"{counts.errors} errors, {counts.skipped} skipped); "
        f"critical: {critical.passed}/{critical.total} passed"
    )


def _measure_lines(summary: Summary) -> list[str]:
    """Why cases failed, latency, the judge's calls, its cascade and votes: each where the
    run has something to say."""
    said = (
        ("why cases failed: ", causes_line(summary)),
        ("latency: ", latency_text(summary.latency)),
        ("", _usage_line(summary)),
    )
    lines = [f"{label}{text}" for label, text in said if text]
    lines.extend(f"cascade: {line}" for line in cascade_lines(summary))
    lines.extend(f"votes: {line}" for line in vote_lines(summary))
    return lines


def _usage_line(summary: Summary) -> str:
    usage = summary.usage
    if not (usage.judge_calls or usage.cache_hits):
        return ""
    return f"judge: {usage.judge_calls} calls, {usage.cache_hits} cached, ${usage.cost_usd:.2f}"


def _note_lines(report: Report) -> list[str]:
    """The judge-flaky cases, what was not checked, a partial run, the warnings."""
    lines = []
    if report.flaky:
        lines.append(flaky_line(report.flaky))
    if report.summary.unchecked:
        lines.append(f"not checked: {_text(report.summary.unchecked)}")
    if report.run.partial:
        lines.append("partial run: interrupted before every case finished")
    lines.extend(f"warning: {_text(w)}" for w in report.warnings)
    return lines


def _text(text: str) -> str:
    """Untrusted text for the terminal: without control sequences, a long one cut with a
    note of its length."""
    return cut_long(strip_control(text))


def _one_line(text: str, limit: int) -> str:
    return cut(" ".join(strip_control(text).split()), limit)


FLAKY_KEYS = 10
"""The most judge-flaky cases the terminal names (the reports list them all)."""


def flaky_line(flaky: list[FlakyCase]) -> str:
    """ "judge-flaky: c1, c2 (QUARANTINED: c2)": one short line however many cases flipped;
    past :data:`FLAKY_KEYS` of either list, how many more."""

    def named(keys: list[str]) -> str:
        shown = ", ".join(strip_control(key) for key in keys[:FLAKY_KEYS])
        return shown + (f" and {len(keys) - FLAKY_KEYS} more" if len(keys) > FLAKY_KEYS else "")

    quarantined = [c.key for c in flaky if c.quarantined]
    return f"judge-flaky: {named([c.key for c in flaky])}" + (
        f" (QUARANTINED: {named(quarantined)})" if quarantined else ""
    )


def baseline_lines(comparison: Comparison | None) -> list[str]:
    """The comparison with the baseline: why there was none, or what regressed, the cases
    whose content changed and the cases that newly fail."""
    if comparison is None:
        return []
    if comparison.not_compared is not None:
        return [f"baseline: not compared: {strip_control(comparison.not_compared)}"]
    lines = [f"baseline: {strip_control(comparison.baseline)}: {_regressions(comparison)}"]
    changed = changed_line(comparison)
    if changed:
        lines.append(f"baseline: {strip_control(changed)}")
    if comparison.newly_failing:
        lines.append(f"newly failing: {strip_control(newly_failing_summary(comparison))}")
    return lines


def _regressions(comparison: Comparison) -> str:
    """What regressed against the baseline, or how many metrics were compared."""
    regressed = comparison.regressions
    if regressed:
        return "; ".join(f"REGRESSION {describe(c)}" for c in regressed)
    return f"no regression ({len(comparison.changes)} metrics compared)"
