"""How the reports and the assertion messages say things: a score, a duration, a metric's
name, its mean with its interval, its thresholds and status, the judge's votes, a cascade's
tiers, the failing cases' causes, a change since the baseline and its verdict, the cases that
newly fail, the run's verdict, the evidence's labels and where the answer is marked.

Plain text, one wording for every output: the Markdown report and the run's step summary
(:mod:`.markdown`), the step summary of a run that ended before its tests
(:mod:`.step_summary`), the HTML page (:mod:`.html_report`), the terminal summary
(:mod:`.terminal`), the run's exit reason (:mod:`.baselines`) and the assertions' failure
messages (``engine/assertions.py``). Each escapes the text for its own output, and none of
the renderers imports another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..text.spans import Span
from .causes import MEANINGS

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ..metrics.base import MetricResult
    from .models import (
        Comparison,
        LatencySummary,
        MetricChange,
        MetricSummary,
        NewlyFailing,
        Summary,
    )


# ---------------------------------------------------------------------------------------
# Numbers and names.


def fmt_score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value * 1000:.0f}ms" if value < 1 else f"{value:.2f}s"


def fmt_duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m {secs:02d}s" if minutes else f"{seconds:.1f}s"


def fmt_interval(interval: tuple[float, float] | None, dash: str = "-") -> str | None:
    """A 95 % interval, "0.78-0.90"; ``None`` when there is none or it is a single point."""
    if interval is None or interval[0] == interval[1]:
        return None
    return f"{fmt_score(interval[0])}{dash}{fmt_score(interval[1])}"


_ACRONYMS = {"mrr": "MRR", "ndcg": "nDCG"}


def title(name: str) -> str:
    """A metric's name as a heading: ``retrieval_ndcg`` is "Retrieval nDCG"; a named check
    keeps its own words ("Criteria: the answer must not promise refunds")."""
    kind, colon, label = name.partition(": ")
    words = " ".join(_ACRONYMS.get(word, word.title()) for word in kind.split("_"))
    return words + colon + label


# ---------------------------------------------------------------------------------------
# The summary: each metric against its thresholds, the judge, the failing cases' causes.


def mean_cell(m: MetricSummary) -> str:
    """A metric's mean with its 95 % interval, "0.84 (0.78-0.90)", and how many cases were
    not judged."""
    shown = fmt_score(m.mean)
    interval = fmt_interval(m.interval)
    if interval is not None:
        shown += f" ({interval})"
    return shown + (f" ({m.not_judged} not judged)" if m.not_judged else "")


def metric_threshold(m: MetricSummary) -> str:
    """The thresholds a metric was held to: its run gate, else the per-case thresholds the
    tests applied ("0.90 per case", "0.70-0.90 per case"), both when it has both, else "-"."""
    gate = None if m.threshold is None else fmt_score(m.threshold)
    applied = m.case_thresholds
    if not applied:
        return gate or "-"
    low, high = applied[0], applied[-1]
    shown = fmt_score(low) if low == high else f"{fmt_score(low)}-{fmt_score(high)}"
    return f"{gate} (mean); {shown} per case" if gate else f"{shown} per case"


def metric_status(m: MetricSummary) -> str:
    """The gate's status, else whether the cases met their own thresholds ("FAIL (2 of 5
    cases)"; "NOT JUDGED" where no case was judged: nothing passed), else "-"."""
    if m.status is not None:
        return m.status
    if not m.case_thresholds:
        return "-"
    held = m.passed + m.failed
    if not held and m.not_judged:
        return "NOT JUDGED"
    return f"FAIL ({m.failed} of {held} cases)" if m.failed else "PASS"


SummaryRow = tuple[str, str, str, str]
SUMMARY_HEADER: SummaryRow = ("Metric", "Score", "Threshold", "Status")


def summary_rows(summary: Summary) -> list[SummaryRow]:
    """The metric table's rows under :data:`SUMMARY_HEADER`: the composite, then each metric
    (its title, its mean with its interval, its thresholds, its status)."""
    comp = summary.composite
    threshold = "-" if comp.threshold is None else fmt_score(comp.threshold)
    rows: list[SummaryRow] = [("Composite", fmt_score(comp.score), threshold, comp.status or "-")]
    rows += [
        (title(name), mean_cell(m), metric_threshold(m), metric_status(m))
        for name, m in summary.metrics.items()
    ]
    return rows


def latency_text(latency: LatencySummary) -> str | None:
    """The RAG system's latency: "avg 420ms | p50 380ms | p95 1.20s | slow (>5s): 0";
    ``None`` without a live query (every answer recorded)."""
    if not latency.count:
        return None
    return (
        f"avg {fmt_seconds(latency.avg_s)} | p50 {fmt_seconds(latency.p50_s)} | "
        f"p95 {fmt_seconds(latency.p95_s)} | slow (>{latency.slow_threshold_s:g}s): "
        f"{latency.slow}"
    )


def vote_lines(summary: Summary) -> list[str]:
    """The judge's measured disagreement per metric: "faithfulness: 12 verdicts near their
    threshold asked again with more votes; the votes differed on 2 (17 %)"."""
    lines = []
    for name, m in summary.metrics.items():
        revoted, disagreed = m.votes.get("revoted", 0), m.votes.get("disagreed", 0)
        if revoted:
            lines.append(
                f"{title(name)}: {revoted} verdict{'s' if revoted != 1 else ''} near the "
                f"threshold asked again with more votes; the votes differed on {disagreed} "
                f"({disagreed / revoted:.0%})"
            )
    return lines


def cascade_lines(summary: Summary) -> list[str]:
    """What each tier of a cascade judge decided, per metric: "faithfulness: the local judge
    decided 12 of 15 items, the LLM judge 3; 8 of 10 cases never asked the LLM judge"."""
    lines = []
    for name, m in summary.metrics.items():
        tiers = m.tiers
        if not tiers:
            continue
        local, llm, unasked = tiers.get("local", 0), tiers.get("llm", 0), tiers.get("unasked", 0)
        cases = m.judged + m.not_judged
        lines.append(
            f"{title(name)}: the local judge decided {local} of {local + llm} items, the LLM "
            f"judge {llm}; {unasked} of {cases} cases never asked the LLM judge"
        )
    return lines


def causes_line(summary: Summary) -> str:
    """The failing cases per cause, in one line: "2 retrieval_miss, 1 unsupported_answer, 1
    unexplained"; empty when no case failed. Only the known causes' names are shown: the line
    is plain text for the terminal and Markdown alike."""
    parts = [
        f"{count} {cause}" for cause, count in summary.failure_causes.items() if cause in MEANINGS
    ]
    if summary.unexplained_failures:
        parts.append(f"{summary.unexplained_failures} unexplained")
    return ", ".join(parts)


def verdict_line(exit_code: int, reason: str, joiner: str = ", ") -> str:
    """The run's verdict: "RAG evaluation FAILED: exit 2, critical case refund failed"."""
    word = "passed" if exit_code == 0 else "FAILED"
    return f"RAG evaluation {word}: exit {exit_code}{joiner}{reason}"


def votes_text(result: MetricResult) -> str:
    """What the judge's votes said of one result: their agreement, how many were asked, what
    each tier of a cascade decided, how many items it was unsure of ("3 votes; agreement
    67%"); "-" when they said nothing."""
    details = result.details
    parts = [
        _votes_part(details.get("votes")),
        _agreement_part(details.get("agreement")),
        _tiers_part(details.get("tiers")),
        _unsure_part(result),
    ]
    return "; ".join(part for part in parts if part) or "-"


def _votes_part(votes: object) -> str:
    if isinstance(votes, int) and not isinstance(votes, bool):
        return f"{votes} votes"
    return ""


def _agreement_part(agreement: object) -> str:
    if isinstance(agreement, (int, float)) and not isinstance(agreement, bool):
        return f"agreement {agreement:.0%}"
    return ""


def _tiers_part(tiers: object) -> str:
    """What each tier of a cascade decided: "llm 1, local 2"."""
    if not isinstance(tiers, dict):
        return ""
    return ", ".join(f"{k} {v}" for k, v in sorted(tiers.items()))


def _unsure_part(result: MetricResult) -> str:
    """How many items the judge was unsure of, and the band it was unsure in."""
    if not result.unsure:
        return ""
    bounds = result.bounds
    around = f" ({bounds[0]:.2f}–{bounds[1]:.2f})" if bounds is not None else ""
    return f"{result.unsure} unsure{around}"


# ---------------------------------------------------------------------------------------
# The baseline: each metric's change, the cases that newly fail.


def change_verdict(change: MetricChange) -> str:
    """What a metric's change since the baseline means: a regression, a significant drop
    too small to count, an improvement, or a change within the judge's noise."""
    if change.regression:
        if not change.testable:
            return "REGRESSION (too few cases to test against the noise)"
        return "REGRESSION"
    if not change.significant:
        return "within the noise"
    return "lower, below the least drop that counts" if change.change < 0 else "improved"


def change_cell(change: MetricChange) -> str:
    """A metric's change since the baseline with its 95 % interval: "-0.13 (-0.18 to -0.08)"."""
    low, high = change.interval
    return f"{change.change:+.2f} ({low:+.2f} to {high:+.2f})"


def changed_line(comparison: Comparison) -> str:
    """The cases not compared because their content changed since the baseline ("" when
    none): "2 cases have another question, ground truth or expected documents than in the
    baseline, not compared: c05, c07"."""
    changed = comparison.changed_cases
    if not changed:
        return ""
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    noun = "case has" if len(changed) == 1 else "cases have"
    return (
        f"{len(changed)} {noun} another question, ground truth or expected documents than in "
        f"the baseline, not compared: {shown}"
    )


NO_MEAN_COMPARED = "No metric was scored on 2 or more of the same cases: no mean compared."
NEWLY_FAILING_MEANING = "Passed in the baseline, failed now at the same threshold."
FLAKY_MEANING = (
    "Their outcome flipped at least twice in their last runs with the same answer, contexts "
    "and judge: the judge's noise, not the RAG system."
)


def newly_failing_heading(comparison: Comparison) -> str:
    """ "Newly failing: 2 cases": how many cases fail now that passed in the baseline."""
    cases = len({f.key for f in comparison.newly_failing})
    return f"Newly failing: {cases} case{'s' if cases != 1 else ''}"


def failing_verdict(item: NewlyFailing) -> str:
    """What a newly failing case means: a regression when its verdicts are stable."""
    if item.regression:
        return "REGRESSION (stable verdicts)"
    return "may be the judge's noise (a verdict of one vote, or votes that differed)"


def newly_failing_summary(comparison: Comparison, limit: int = 5) -> str:
    """ "3 cases since the baseline, 2 of them regressions (stable verdicts): c03
    faithfulness 0.90 → 0.29 REGRESSION, ..."."""
    items = comparison.newly_failing
    cases = len({f.key for f in items})
    regressed = len({f.key for f in comparison.regressed_cases})
    shown = ", ".join(_newly_failing_words(f) for f in items[:limit])
    return (
        f"{cases} case{'s' if cases != 1 else ''} since the baseline, {regressed} of them "
        f"regressions (stable verdicts): {shown}{_and_more(len(items), limit)}"
    )


def _newly_failing_words(item: NewlyFailing) -> str:
    """ "c03 faithfulness 0.90 → 0.29 REGRESSION"."""
    regression = " REGRESSION" if item.regression else ""
    return (
        f"{item.key} {item.metric} {fmt_score(item.before)} → {fmt_score(item.after)}{regression}"
    )


def _and_more(count: int, limit: int) -> str:
    """ " and 3 more", of the items past the ``limit`` shown; empty when all are shown."""
    return f" and {count - limit} more" if count > limit else ""


def describe(change: MetricChange) -> str:
    """ "faithfulness 0.91 -> 0.78 (-0.13, 95 % -0.18 to -0.08, p=0.001)"."""
    low, high = change.interval
    return (
        f"{change.metric} {change.before:.2f} -> {change.after:.2f} ({change.change:+.2f}, "
        f"95 % {low:+.2f} to {high:+.2f}, p={change.p_value:.3g}, {change.cases} cases)"
    )


def describe_cases(items: Sequence[NewlyFailing], limit: int = 5) -> str:
    """ "2 cases newly fail with stable verdicts: c03 faithfulness 0.90 -> 0.29 (< 0.70),
    c04 ..."."""
    keys = list(dict.fromkeys(f.key for f in items))
    shown = "; ".join(_failing_words(f) for f in items[:limit])
    noun = "case newly fails" if len(keys) == 1 else "cases newly fail"
    return f"{len(keys)} {noun} with stable verdicts: {shown}{_and_more(len(items), limit)}"


def _failing_words(item: NewlyFailing) -> str:
    threshold = "" if item.threshold is None else f" (< {item.threshold:.2f})"
    return f"{item.key} {item.metric} {item.before:.2f} -> {item.after:.2f}{threshold}"


# ---------------------------------------------------------------------------------------
# The evidence, and the answer's marks.


# The verdicts of evidence that speak for a score (the rest are findings).
GOOD_VERDICTS = frozenset(
    {"supported", "yes", "found", "expected", "relevant", "useful", "attributed", "kept"}
)


def evidence_label(verdict: str | None, score: float | None) -> str:
    """The verdict and the score of one piece of evidence ("not relevant 0.42"), so that a
    reader sees how close a sentence came; empty when it has neither."""
    shown = f"{score:.2f}" if score is not None else ""
    if verdict:
        return f"{verdict} {shown}".rstrip()
    return f"score {shown}" if shown else ""


MARK_LEGEND = "statements the judge found unsupported or contradicted"
"""What a marked span of the answer is, in every report's legend."""


def answer_marks(results: Iterable[MetricResult]) -> tuple[list[Span], list[str]]:
    """Where the statements that count against a score stand in the answer (the evidence's
    ``start`` and ``end``), and the statements of that kind not found in it (faithfulness's
    ``details["unmatched"]``)."""
    spans: list[Span] = []
    unmatched: list[str] = []
    for result in results:
        spans += _statement_spans(result)
        unmatched += _unmatched_statements(result)
    return spans, unmatched


def _statement_spans(result: MetricResult) -> list[Span]:
    return [
        Span(e.start, e.end)
        for e in result.evidence
        if e.kind == "statement" and e.start is not None and e.end is not None
    ]


def _unmatched_statements(result: MetricResult) -> list[str]:
    found = result.details.get("unmatched")
    return [str(text) for text in found] if isinstance(found, list) else []
