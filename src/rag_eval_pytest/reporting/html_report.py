"""``eval_report.html``: the report as one self-contained page, readable offline as a CI
artifact.

The page holds its CSS, a small script of its own (the case filters) and SVG charts drawn by
:mod:`.charts`; it loads nothing (its Content-Security-Policy allows no source but its own
style and script, by hash). Sections: the verdict and the gates, the comparison with the
baseline, judge-flaky and critical cases, tags, failure causes, each metric's distribution,
the trend of every metric over the history (from the report's ``trend``), then the cases
(a conversation as its turns, the failing turn first).

Untrusted text (answers, contexts, questions, sources, judge reasons, tags, names) goes
through :func:`~rag_eval_pytest.text.escaping.html_text` (``html.escape`` after removing
control and bidirectional characters): it is never placed in the script, nor in an
attribute; the filters read indexes (``data-tags="0 3"``), and nothing of it becomes a link.

Without JavaScript the page shows every case and no filter. At scale, the first cases
(failing ones first, then the rest in dataset order) are shown in full, up to
:data:`FULL_CASES` cases or :data:`FULL_BYTES` bytes of them; every further case is one row
of a compact table (up to :data:`COMPACT_CASES` rows or :data:`COMPACT_BYTES` bytes), so a
page stays under 10 MB; ``eval_report.json`` has them all.
"""

from __future__ import annotations

import base64
import hashlib
from typing import TYPE_CHECKING

from ..metrics.registry import metric_order
from ..metrics.retrieval import source_matches
from ..text.escaping import html_text, marked_html
from ..text.spans import marked_pieces
from .charts import SERIES_CLASSES, Marker, Series, histogram_svg, line_chart_svg
from .wording import (
    FLAKY_MEANING,
    GOOD_VERDICTS,
    MARK_LEGEND,
    NEWLY_FAILING_MEANING,
    NO_MEAN_COMPARED,
    answer_marks,
    cascade_lines,
    change_cell,
    change_verdict,
    changed_line,
    evidence_label,
    failing_verdict,
    fmt_duration,
    fmt_interval,
    fmt_score,
    fmt_seconds,
    metric_status,
    metric_threshold,
    newly_failing_heading,
    title,
    verdict_line,
    vote_lines,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ..metrics.base import MetricResult
    from .models import (
        CaseResult,
        Comparison,
        MetricSummary,
        Report,
        Summary,
        Trend,
        TrendPoint,
        TurnResult,
    )

FULL_CASES = 1000
"""At most this many cases are shown in full; the rest get one compact row each."""
FULL_BYTES = 4_000_000
"""…and the full cases stop once their HTML reaches this many bytes (UTF-8)."""
LARGE = 200
"""A page of more cases lets the browser skip the cases off screen (``content-visibility``:
they are drawn as they are scrolled to, so a full-page screenshot of such a page shows their
frames only)."""
OPEN_CASES = 20
"""The first failing cases are shown open (a browser lays out a closed one's summary only)."""
COMPACT_CASES = 20_000
"""At most this many compact rows…"""
COMPACT_BYTES = 5_000_000
"""…and at most this many bytes of them; beyond, a count (the JSON report has every case)."""

# Untrusted text shown in full is cut at these lengths (the JSON report has the whole text).
_LONG = 6000  # an answer, an error
_TEXT = 2000  # a question, a ground truth, a context, a judge's reason, a test's message
_SHORT = 600  # a piece of evidence, a warning
_LINE = 160  # a case's one-line summary: its key, its question

_FAILING = ("failed", "error")
_CHUNK = 400  # compact rows per table
_TONE = {
    "PASS": "ok",
    "passed": "ok",
    "FAIL": "bad",
    "failed": "bad",
    "error": "bad",
    "NOT JUDGED": "warn",
    "not_judged": "warn",
    "skipped": "warn",
}

_SCRIPT = """(function () {
  "use strict";
  var bar = document.getElementById("filters");
  var items = document.querySelectorAll("[data-status]");
  var shown = document.getElementById("shown");
  var pick = function (id) { return document.getElementById(id).value; };
  function keep(item, status, tag, cause) {
    var own = item.getAttribute("data-status");
    if (status === "failing" ? own !== "failed" && own !== "error" : status && own !== status) {
      return false;
    }
    if (tag && (" " + item.getAttribute("data-tags") + " ").indexOf(" " + tag + " ") < 0) {
      return false;
    }
    return !cause || item.getAttribute("data-cause") === cause;
  }
  function apply() {
    var status = pick("f-status"), tag = pick("f-tag"), cause = pick("f-cause"), count = 0;
    for (var i = 0; i < items.length; i++) {
      var ok = keep(items[i], status, tag, cause);
      if (items[i].hidden === ok) { items[i].hidden = !ok; }
      if (ok) { count++; }
    }
    shown.textContent = count + " of " + items.length + " cases shown";
  }
  bar.addEventListener("change", apply);
  bar.hidden = false;
  if (pick("f-status") || pick("f-tag") || pick("f-cause")) {
    apply();  // a filter the browser kept from before a reload
  } else {
    shown.textContent = items.length + " of " + items.length + " cases shown";
  }
})();
"""

_CSS = """
:root{--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--ok:#1a7f37;
--bad:#cf222e;--warn:#9a6700;--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;
--line:#3d444d;--panel:#151b23;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--accent:#4493f8}}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0 auto;max-width:1180px;padding:20px 24px 48px;background:var(--bg);color:var(--fg);
font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:24px;margin:0 0 6px}
h2{font-size:18px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:14px 0 6px}
h4{font-size:13px;margin:10px 0 4px;color:var(--muted);text-transform:uppercase}
table{border-collapse:collapse;margin:6px 0}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.muted,.note{color:var(--muted)}
.ok{color:var(--ok)}.bad{color:var(--bad)}.warn{color:var(--warn)}
.verdict{margin:10px 0;padding:10px 14px;border:2px solid;border-radius:6px;font-size:16px;
font-weight:600}
.verdict.ok{border-color:var(--ok)}.verdict.bad{border-color:var(--bad)}
.banner{margin:8px 0;padding:6px 12px;border-left:4px solid var(--warn);background:var(--panel)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}
.facts dt{color:var(--muted)}.facts dd{margin:0}
.badge{display:inline-block;padding:0 7px;border:1px solid currentColor;border-radius:10px;
font-size:12px;font-weight:600;white-space:nowrap}
.tag{display:inline-block;padding:0 6px;margin:0 2px;border-radius:4px;background:var(--panel);
border:1px solid var(--line);font-size:12px}
.grid{display:flex;flex-wrap:wrap;gap:10px 18px}
figure{margin:0}figcaption{font-size:13px;font-weight:600}
.chart .axis{stroke:var(--muted)}.chart .grid{stroke:var(--line);stroke-width:1}
.chart .tick{font-size:10px;fill:var(--muted)}
.chart .bar{fill:var(--accent)}.chart .bar.low{fill:var(--bad)}
.chart .threshold{stroke:var(--warn);stroke-width:1.5;stroke-dasharray:4 3}
.chart .line{fill:none;stroke-width:2}
.chart .dot.hollow{fill:var(--bg);stroke-width:1.5}
.chart .regression{fill:none;stroke:var(--bad);stroke-width:2}
.chart .regression-label{fill:var(--bad);font-size:11px}
.s0{stroke:#0969da;fill:#0969da}.s1{stroke:#bc4c00;fill:#bc4c00}.s2{stroke:#1a7f37;fill:#1a7f37}
.s3{stroke:#8250df;fill:#8250df}.s4{stroke:#bf3989;fill:#bf3989}.s5{stroke:#4d6b7a;fill:#4d6b7a}
.legend span.key{display:inline-block;width:12px;height:3px;margin:0 4px 3px 10px;
vertical-align:middle}
.legend .s0{background:#0969da}.legend .s1{background:#bc4c00}.legend .s2{background:#1a7f37}
.legend .s3{background:#8250df}.legend .s4{background:#bf3989}.legend .s5{background:#4d6b7a}
#filters{display:flex;flex-wrap:wrap;gap:6px 16px;align-items:center;margin:8px 0;padding:8px 10px;
background:var(--panel);border:1px solid var(--line);border-radius:6px}
#filters select{font:inherit;padding:1px 4px}
details.case{margin:6px 0;padding:0 12px;border:1px solid var(--line);border-radius:6px}
details.case[open]{padding-bottom:10px}
details.case>summary{padding:6px 0;cursor:pointer}
details.case>summary .q{color:var(--muted)}
.turn{margin:10px 0;padding:2px 12px 6px;border-left:4px solid var(--line)}
.turn.failed{border-left-color:var(--bad)}
.turn>h3 .q{color:var(--muted);font-weight:400}
.text{margin:2px 0 8px;padding:6px 9px;border-radius:4px;background:var(--panel);
white-space:pre-wrap;overflow-wrap:anywhere}
ol.contexts{margin:4px 0;padding-left:0;list-style:none}
ol.contexts li{margin:4px 0}
.rank{display:inline-block;min-width:28px;font-weight:600}
ul.evidence{margin:2px 0 6px;padding-left:18px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
table.compact{width:100%;margin:0;table-layout:fixed}
.large details.case{content-visibility:auto;contain-intrinsic-size:auto 36px}
.large table.compact{content-visibility:auto;contain-intrinsic-size:auto 12000px}
@media print{.large details.case,.large table.compact{content-visibility:visible}}
table.compact td,table.compact th{padding:1px 6px;font-size:12px;overflow-wrap:anywhere}
col.c-status{width:84px}col.c-key{width:22%}col.c-num{width:72px}
footer{margin-top:36px;color:var(--muted);font-size:12px}
"""


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


_POLICY = (
    "default-src 'none'; "
    f"style-src 'sha256-{_sha256(_CSS)}'; script-src 'sha256-{_sha256(_SCRIPT)}'; "
    "img-src 'none'; base-uri 'none'; form-action 'none'"
)


def _t(text: object, limit: int | None = None) -> str:
    """Untrusted text as inert HTML."""
    return html_text(text, limit)


def _new_badge(status: str) -> str:
    return f'<span class="badge {_TONE.get(status, "muted")}">{_t(status)}</span>'


_BADGES = {status: _new_badge(status) for status in _TONE}


def _badge(status: str) -> str:
    return _BADGES.get(status) or _new_badge(status)


def _score_cell(value: float | None) -> str:
    return f'<td class="n">{fmt_score(value)}</td>'


# ---------------------------------------------------------------------------------------
# Failure causes (reporting/causes.py decided them; the report carries them).


def case_cause(case: CaseResult) -> str | None:
    """The case's failure cause, ``None`` when it has none (it passed, or nothing explains
    its failure)."""
    return case.failure_cause


def cause_counts(report: Report) -> dict[str, int]:
    """How many failing cases each failure cause has, most telling cause first."""
    return dict(report.summary.failure_causes)


# ---------------------------------------------------------------------------------------
# The summary and the gates.


def _facts(report: Report) -> list[str]:
    run, summary = report.run, report.summary
    counts, critical, usage = summary.counts, summary.critical, summary.usage
    rows: list[tuple[str, str]] = [
        ("Date", _t(run.started_at.replace("T", " ").replace("Z", " UTC"))),
        ("Duration", fmt_duration(run.duration_s)),
    ]
    if run.adapter:
        rows.append(("Adapter", _t(run.adapter)))
    rows.append(("Judge", _t(run.judge or "none")))
    for ds in run.datasets:
        name = f" ({_t(ds.name)})" if ds.name else ""
        rows.append(("Dataset", f"<code>{_t(ds.path)}</code>{name}, {ds.cases} cases"))
    rows.append(
        (
            "Cases",
            f"{counts.cases}: {counts.passed} passed, {counts.failed} failed, "
            f"{counts.errors} errors, {counts.skipped} skipped",
        )
    )
    rows.append(("Critical", f"{critical.passed}/{critical.total} passed"))
    lat = summary.latency
    rows.append(
        (
            "Latency",
            f"avg {fmt_seconds(lat.avg_s)}, p50 {fmt_seconds(lat.p50_s)}, p95 "
            f"{fmt_seconds(lat.p95_s)}, slow (&gt;{lat.slow_threshold_s:g}s): {lat.slow}"
            if lat.count
            else "no live queries (recorded answers)",
        )
    )
    if usage.judge_calls or usage.cache_hits:
        rows.append(
            (
                "Judge calls",
                f"{usage.judge_calls} ({usage.cache_hits} cached), tokens {usage.input_tokens} "
                f"in / {usage.output_tokens} out, ${usage.cost_usd:.2f}",
            )
        )
    if run.tags_filter:
        rows.append(("Tags selected", ", ".join(_t(tag) for tag in run.tags_filter)))
    if run.shard:
        rows.append(("Shard", _t(run.shard)))
    if run.git_commit:
        rows.append(("Commit", f"<code>{_t(run.git_commit)}</code>"))
    if run.id:
        rows.append(("Run", f"<code>{_t(run.id)}</code>"))
    return [
        '<dl class="facts">',
        *(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows),
        "</dl>",
    ]


def _interval(m: MetricSummary) -> str:
    return fmt_interval(m.interval, "–") or "-"


def _gates(summary: Summary) -> list[str]:
    comp = summary.composite
    lines = [
        "<table><thead><tr><th>Metric</th><th>Mean</th><th>95 % interval</th>"
        "<th>Threshold</th><th>Status</th><th>Judged</th><th>Cases passed / failed</th>"
        "</tr></thead><tbody>",
        f"<tr><th>Composite</th>{_score_cell(comp.score)}<td>-</td>"
        f"<td>{'-' if comp.threshold is None else fmt_score(comp.threshold)}</td>"
        f"<td>{_badge(comp.status) if comp.status else '-'}</td><td></td><td></td></tr>",
    ]
    for name, m in summary.metrics.items():
        status = metric_status(m)
        word = status.split(" ", 1)[0] if status.startswith(("PASS", "FAIL")) else status
        shown = _badge(word) + _t(status[len(word) :]) if status != "-" else "-"
        judged = f"{m.judged}" + (f" ({m.not_judged} not judged)" if m.not_judged else "")
        lines.append(
            f'<tr><td>{_t(title(name))}</td>{_score_cell(m.mean)}<td class="n">'
            f"{_interval(m)}</td><td>{_t(metric_threshold(m))}</td><td>{shown}</td>"
            f'<td class="n">{judged}</td><td class="n">{m.passed} / {m.failed}</td></tr>'
        )
    lines.append("</tbody></table>")
    return lines


def _summary(report: Report) -> list[str]:
    run, summary = report.run, report.summary
    tone = "ok" if run.exit_code == 0 else "bad"
    verdict = verdict_line(run.exit_code, _t(run.exit_reason), " — ")
    lines = [f'<div class="verdict {tone}">{verdict}</div>']
    if run.partial:
        lines.append(
            '<p class="banner"><b>Partial run:</b> the run was interrupted; only finished '
            "cases are reported.</p>"
        )
    if run.report_only:
        lines.append(
            '<p class="banner"><b>Report only:</b> per-case thresholds did not fail tests; '
            "run-level thresholds still set the exit code.</p>"
        )
    lines += _facts(report)
    lines += ['<h2 id="gates">Summary and gates</h2>', *_gates(summary)]
    if any(m.interval is not None for m in summary.metrics.values()):
        lines.append('<p class="note">Means over the cases, with their 95 % interval.</p>')
    if summary.unchecked:
        lines.append(f'<p class="banner"><b>Not checked:</b> {_t(summary.unchecked)}</p>')
    for heading, found in (
        ("Cascade judge", cascade_lines(summary)),
        ("Judge votes", vote_lines(summary)),
    ):
        if found:
            lines += [f"<h3>{heading}</h3><ul>", *(f"<li>{_t(x)}</li>" for x in found), "</ul>"]
    return lines


def _comparison(comparison: Comparison | None) -> list[str]:
    if comparison is None:
        return []
    lines = ['<h2 id="baseline">Compared with the baseline</h2>']
    if comparison.not_compared:
        return [*lines, f"<p>Not compared: {_t(comparison.not_compared)}.</p>"]
    lines += [
        f"<p>Baseline: {_t(comparison.baseline)}. Each metric over the cases both runs "
        f"scored; a regression is a drop with p &lt; {comparison.alpha:g} of at least "
        f"{comparison.min_drop:g}, or a case that newly fails with stable verdicts.</p>",
    ]
    changed = changed_line(comparison)
    if changed:
        lines.append(f"<p>{_t(changed)}.</p>")
    if not comparison.changes:
        lines.append(f"<p>{NO_MEAN_COMPARED}</p>")
        return [*lines, *_newly_failing(comparison)]
    lines += [
        "<table><thead><tr><th>Metric</th><th>Cases</th><th>Baseline</th><th>This run</th>"
        "<th>Change (95 % interval)</th><th>p</th><th>Verdict</th></tr></thead><tbody>",
    ]
    for c in comparison.changes:
        tone = "bad" if c.regression else "muted"
        lines.append(
            f'<tr><td>{_t(title(c.metric))}</td><td class="n">{c.cases}</td>'
            f"{_score_cell(c.before)}{_score_cell(c.after)}"
            f'<td class="n">{change_cell(c)}</td>'
            f'<td class="n">{c.p_value:.3g}</td>'
            f'<td class="{tone}">{_t(change_verdict(c))}</td></tr>'
        )
    return [*lines, "</tbody></table>", *_newly_failing(comparison)]


def _newly_failing(comparison: Comparison) -> list[str]:
    """The cases that passed in the baseline and fail now, each metric with its scores."""
    if not comparison.newly_failing:
        return []
    lines = [
        f'<h3 id="newly-failing">{newly_failing_heading(comparison)}</h3>',
        f"<p>{NEWLY_FAILING_MEANING}</p>",
        "<table><thead><tr><th>Case</th><th>Metric</th><th>Baseline</th><th>This run</th>"
        "<th>Threshold</th><th>Verdict</th></tr></thead><tbody>",
    ]
    for f in comparison.newly_failing:
        tone = "bad" if f.regression else "muted"
        lines.append(
            f"<tr><td>{_t(f.key)}</td><td>{_t(title(f.metric))}</td>"
            f"{_score_cell(f.before)}{_score_cell(f.after)}{_score_cell(f.threshold)}"
            f'<td class="{tone}">{_t(failing_verdict(f))}</td></tr>'
        )
    return [*lines, "</tbody></table>"]


def _flaky_and_critical(report: Report) -> list[str]:
    lines: list[str] = []
    if report.flaky:
        lines += [
            f'<h2 id="flaky">Judge-flaky cases: {len(report.flaky)}</h2>',
            f"<p>{FLAKY_MEANING}</p><ul>",
        ]
        for case in report.flaky:
            mark = ' <b class="bad">QUARANTINED</b>' if case.quarantined else ""
            lines.append(f"<li><code>{_t(case.key)}</code>: {_t(case.outcomes)}{mark}</li>")
        lines.append("</ul>")
    critical = report.summary.critical
    if not critical.total:
        return lines
    lines.append(
        f'<h2 id="critical">Critical tests: {critical.passed}/{critical.total} passed</h2>'
    )
    if critical.failed:
        lines += [
            "<ul>",
            *(f'<li class="bad">FAILED: <code>{_t(k)}</code></li>' for k in critical.failed),
            "</ul>",
        ]
    return lines


def _tags(summary: Summary) -> list[str]:
    if not summary.tags:
        return []
    lines = [
        '<h2 id="tags">Results by tag</h2><table><thead><tr><th>Tag</th><th>Cases</th>'
        "<th>Passed</th><th>Failed</th><th>Average score</th></tr></thead><tbody>"
    ]
    for t in summary.tags:
        lines.append(
            f'<tr><td>{_t(t.tag)}</td><td class="n">{t.count}</td><td class="n">{t.passed}</td>'
            f'<td class="n">{t.failed}</td>{_score_cell(t.avg_score)}</tr>'
        )
    return [*lines, "</tbody></table>"]


def _causes(counts: dict[str, int]) -> list[str]:
    if not counts:
        return []
    lines = [
        '<h2 id="causes">Failure causes</h2><table><thead><tr><th>Cause</th><th>Cases</th>'
        "</tr></thead><tbody>"
    ]
    for cause, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f'<tr><td>{_t(cause)}</td><td class="n">{count}</td></tr>')
    return [*lines, "</tbody></table>"]


# ---------------------------------------------------------------------------------------
# Charts: distributions and the trend.


def _distributions(report: Report) -> list[str]:
    summary = report.summary
    figures = []
    composites = [c.composite for c in report.cases if c.composite is not None]
    if composites:
        figures.append(_histogram("Composite", composites, summary.composite.threshold))
    for name, m in summary.metrics.items():
        scores = [
            r.score
            for case in report.cases
            if (r := case.metrics.get(name)) is not None and r.score is not None
        ]
        if not scores:
            continue
        threshold = m.threshold
        if threshold is None and len(m.case_thresholds) == 1:
            threshold = m.case_thresholds[0]
        figures.append(_histogram(title(name), scores, threshold))
    if not figures:
        return []
    return [
        '<h2 id="distributions">Score distributions</h2>',
        '<p class="note">Each judged case\'s score in ten bins; scores below the threshold '
        "(dashed) in red.</p>",
        '<div class="grid">',
        *figures,
        "</div>",
    ]


def _histogram(name: str, scores: list[float], threshold: float | None) -> str:
    count = f"{len(scores)} case" + ("" if len(scores) == 1 else "s")
    return (
        f'<figure><figcaption>{_t(name)} <span class="muted">({count})</span>'
        f"</figcaption>{histogram_svg(name, scores, threshold)}</figure>"
    )


def _judge_labels(trend: Trend) -> dict[str | None, str]:
    """Each judge identity of the trend's runs and how the legend names it: its judge's
    name, with the identity's start where two identities share a name."""
    names: dict[str | None, str] = {}
    for point in trend.points:
        names.setdefault(point.judge_identity or point.judge, point.judge or "not recorded")
    shared = list(names.values())
    return {
        key: f"{name} {key[:8]}" if shared.count(name) > 1 and key is not None else name
        for key, name in names.items()
    }


def _trend(report: Report) -> list[str]:
    trend = report.trend
    if trend is None or len(trend.points) < 2:
        return []
    points = trend.points
    labels = _judge_labels(trend)
    lines = [f'<h2 id="trend">Trend: last {len(points)} runs</h2>']
    compared = trend.compared_with
    if compared:
        lines.append(
            f"<p>Compared with run <code>{_t(compared.run_id)}</code>, the last complete run "
            "of the same selection; runs of other selections are drawn hollow, not compared. "
            "One line per judge identity.</p>"
        )
    else:
        lines.append(f"<p>Not compared: {_t(trend.not_compared or 'no comparable run')}.</p>")
    for r in trend.regressions:
        lines.append(
            f'<p class="banner bad"><b>Regression:</b> {_t(title(r.name))} '
            f"{fmt_score(r.previous)} → {fmt_score(r.current)} since run "
            f"<code>{_t(r.previous_run)}</code>.</p>"
        )
    names = ["composite", *sorted({m for p in points for m in p.metrics}, key=metric_order)]
    thresholds = {n: m.threshold for n, m in report.summary.metrics.items()}
    thresholds["composite"] = report.summary.composite.threshold
    figures = []
    for name in names:
        series: dict[str | None, list[tuple[int, float]]] = {}
        hollow: set[int] = set()
        for number, point in enumerate(points, start=1):
            score = point.composite if name == "composite" else point.metrics.get(name)
            if point.partial or point.selection != "same":
                hollow.add(number)
            if score is not None:
                series.setdefault(point.judge_identity or point.judge, []).append((number, score))
        if not series:
            continue
        markers = [
            Marker(
                len(points),
                r.current,
                f"Regression: {fmt_score(r.previous)} → {fmt_score(r.current)} since run "
                f"{r.previous_run}",
            )
            for r in trend.regressions
            if r.name == name
        ]
        drawn = [Series(labels[key], line, frozenset(hollow)) for key, line in series.items()]
        heading = "Composite" if name == "composite" else title(name)
        figures.append(
            f"<figure><figcaption>{_t(heading)}</figcaption>"
            + line_chart_svg(
                heading, len(points), drawn, threshold=thresholds.get(name), markers=markers
            )
            + _legend(drawn)
            + "</figure>"
        )
    lines += ['<div class="grid">', *figures, "</div>", *_runs_table(points)]
    return lines


def _legend(series: Sequence[Series]) -> str:
    keys = "".join(
        f'<span class="key s{i % SERIES_CLASSES}"></span>{_t(line.label)}'
        for i, line in enumerate(series)
    )
    return f'<div class="legend muted">{keys}</div>'


def _runs_table(points: Sequence[TrendPoint]) -> list[str]:
    marks = {"other": "other selection", "unknown": "selection not recorded"}
    lines = [
        "<table><thead><tr><th>Run</th><th>Date</th><th>Run id</th><th>Judge</th>"
        "<th>Composite</th><th>Note</th></tr></thead><tbody>"
    ]
    for number, p in enumerate(points, start=1):
        note = ", ".join(
            x for x in ("partial" if p.partial else "", marks.get(p.selection, "")) if x
        )
        lines.append(
            f'<tr><td class="n">{number}</td><td>{_t((p.timestamp or "")[:16].replace("T", " "))}'
            f"</td><td><code>{_t(p.run_id or '-')}</code></td><td>{_t(p.judge or '-')}</td>"
            f"{_score_cell(p.composite)}<td>{note}</td></tr>"
        )
    return [*lines, "</tbody></table>"]


# ---------------------------------------------------------------------------------------
# The cases.


class _Index:
    """Tags and causes as numbers: the filters compare numbers, so no untrusted text goes
    into an attribute or the script."""

    def __init__(self, values: Iterable[str]) -> None:
        self.values = sorted(set(values))
        self.number = {value: i for i, value in enumerate(self.values)}

    def options(self, label: str) -> str:
        return f'<option value="">{label}</option>' + "".join(
            f'<option value="{i}">{_t(value, 80)}</option>' for i, value in enumerate(self.values)
        )


def _filter_attributes(case: CaseResult, cause: str | None, tags: _Index, causes: _Index) -> str:
    numbers = " ".join(str(tags.number[tag]) for tag in case.tags)
    return (
        f'data-status="{case.status}" data-tags="{numbers}" '
        f'data-cause="{"" if cause is None else causes.number[cause]}"'
    )


def _filters(tags: _Index, causes: _Index) -> list[str]:
    statuses = (
        ("", "any status"),
        ("failing", "failing (failed or error)"),
        ("failed", "failed"),
        ("error", "error"),
        ("passed", "passed"),
        ("skipped", "skipped"),
    )
    status_options = "".join(f'<option value="{v}">{label}</option>' for v, label in statuses)
    return [
        '<div id="filters" hidden>',
        f'<label>Status <select id="f-status">{status_options}</select></label>',
        f'<label>Tag <select id="f-tag">{tags.options("any tag")}</select></label>',
        f'<label>Cause <select id="f-cause">{causes.options("any cause")}</select></label>',
        '<span id="shown" class="muted"></span>',
        "</div>",
        '<noscript><p class="note">Filters need JavaScript: every case is listed.</p></noscript>',
    ]


def _block(label: str, text: str | None, limit: int = _TEXT) -> str:
    if text is None:
        return f'<h4>{label}</h4><p class="muted">(none)</p>'
    return f'<h4>{label}</h4><div class="text">{_t(text, limit)}</div>'


def _answer(case: CaseResult | TurnResult) -> list[str]:
    """The answer, with the statements that count against it in ``<mark>`` (each piece
    escaped before the element is added), a legend, and the statements not found in it."""
    label = "Answer" + (" (recorded)" if case.recorded else "")
    # A conversation's evidence indexes its turns' answers, not its last one's.
    conversation = getattr(case, "turns", None) is not None
    spans, unmatched = answer_marks([] if conversation else case.metrics.values())
    if not spans or case.answer is None:
        lines = [_block(label, case.answer, _LONG)]
    else:
        context = None if len(case.answer) <= _LONG else _SHORT
        marked = marked_html(marked_pieces(case.answer, spans, context))
        lines = [
            f'<h4>{label}</h4><div class="text">{marked}</div>'
            f'<p class="muted">Legend: <mark>marked</mark> = {MARK_LEGEND}.</p>'
        ]
    if unmatched:
        missing = ", ".join(f"“{_t(text, _SHORT)}”" for text in unmatched)
        lines.append(f'<p class="muted">Not found in the answer: {missing}</p>')
    return lines


def _contexts(case: CaseResult | TurnResult) -> list[str]:
    expected = case.expected_contexts
    lines = ["<h4>Retrieved contexts</h4>"]
    if case.contexts is None:
        lines.append('<p class="muted">unknown (the RAG system returned no contexts)</p>')
    elif not case.contexts:
        lines.append('<p class="muted">none retrieved</p>')
    else:
        lines.append('<ol class="contexts">')
        for rank, ctx in enumerate(case.contexts, start=1):
            hit = expected is not None and any(source_matches(e, ctx.source) for e in expected)
            mark = ' <span class="badge ok">expected</span>' if hit else ""
            source = f" <code>{_t(ctx.source, _LINE)}</code>" if ctx.source else ""
            lines.append(
                f'<li><span class="rank">#{rank}</span>{source}{mark}'
                f'<div class="text">{_t(ctx.text, _TEXT)}</div></li>'
            )
        lines.append("</ol>")
    if expected is not None:
        sources = [c.source for c in case.contexts or []]
        missed = [e for e in expected if not any(source_matches(e, s) for s in sources)]
        shown = ", ".join(f"<code>{_t(e, _LINE)}</code>" for e in expected) or "none"
        lines.append(f"<p><b>Expected documents:</b> {shown}")
        if missed:
            lines.append(
                ' <span class="bad">— not retrieved: '
                + ", ".join(f"<code>{_t(e, _LINE)}</code>" for e in missed)
                + "</span>"
            )
        lines.append("</p>")
    return lines


def _votes(result: MetricResult) -> str:
    """What the judge's votes said of one result: their agreement, how many were asked, what
    each tier of a cascade decided, how many items it was unsure of."""
    details, parts = result.details, []
    votes, agreement, tiers = details.get("votes"), details.get("agreement"), details.get("tiers")
    if isinstance(votes, int) and not isinstance(votes, bool):
        parts.append(f"{votes} votes")
    if isinstance(agreement, (int, float)) and not isinstance(agreement, bool):
        parts.append(f"agreement {agreement:.0%}")
    if isinstance(tiers, dict) and tiers:
        parts.append(", ".join(f"{_t(k)} {_t(v)}" for k, v in sorted(tiers.items())))
    if result.unsure:
        bounds = result.bounds
        around = f" ({bounds[0]:.2f}–{bounds[1]:.2f})" if bounds is not None else ""
        parts.append(f"{result.unsure} unsure{around}")
    return "; ".join(parts) or "-"


def _scores(case: CaseResult | TurnResult, heading: str = "Scores") -> list[str]:
    if not case.metrics:
        return [f'<h4>{heading}</h4><p class="muted">no metric was evaluated</p>']
    lines = [
        f"<h4>{heading}</h4><table><thead><tr><th>Metric</th><th>Score</th><th>Threshold</th>"
        "<th>Status</th><th>Judge votes</th><th>Reason</th></tr></thead><tbody>"
    ]
    for name, r in case.metrics.items():
        lines.append(
            f"<tr><td>{_t(title(name))}</td>{_score_cell(r.score)}"
            f"{_score_cell(r.threshold) if r.threshold is not None else '<td>-</td>'}"
            f"<td>{_badge(r.status)}</td><td>{_votes(r)}</td><td>{_t(r.reason, _TEXT)}</td></tr>"
        )
    lines.append("</tbody></table>")
    for name, r in case.metrics.items():
        if not r.evidence:
            continue
        lines.append(f'<h4>Evidence: {_t(title(name))}</h4><ul class="evidence">')
        for e in r.evidence:
            label = evidence_label(e.verdict, e.score)
            good = e.verdict is not None and e.verdict.lower() in GOOD_VERDICTS
            tone = "ok" if good else "bad" if e.verdict else "muted"
            verdict = f'<span class="badge {tone}">{_t(label)}</span> ' if label else ""
            source = f" <code>{_t(e.source, _LINE)}</code>" if e.source else ""
            reason = f' <span class="muted">— {_t(e.reason, _SHORT)}</span>' if e.reason else ""
            lines.append(
                f'<li>{verdict}<span class="muted">{_t(e.kind)}</span>{source}: '
                f"{_t(e.text, _SHORT)}{reason}</li>"
            )
        lines.append("</ul>")
    warnings = [w for r in case.metrics.values() for w in r.warnings]
    if warnings:
        lines += ["<h4>Warnings</h4><ul>", *(f"<li>{_t(w, _SHORT)}</li>" for w in warnings)]
        lines.append("</ul>")
    return lines


def _turns(case: CaseResult) -> list[str]:
    """A conversation as its turns, the failing first, each with its question, answer (its
    unsupported statements marked), ground truth, contexts and scores."""
    turns = sorted(case.turns or [], key=lambda t: (t.status != "failed", t.turn))
    lines = [f'<h4>Conversation: {len(turns)} turns, the failing first</h4><div class="turns">']
    for turn in turns:
        status = turn.status or "not measured"
        lines += [
            f'<section class="turn {status.replace(" ", "-")}" data-turn="{turn.turn}">'
            f"<h3>Turn {turn.turn} of {len(turns)} {_badge(status)} "
            f'<span class="q">— {_t(" ".join(turn.question.split()), _LINE)}</span></h3>',
            _block("Question", turn.question),
            *_answer(turn),
            _block("Ground truth", turn.ground_truth),
            *_contexts(turn),
            *_scores(turn),
            "</section>",
        ]
    lines.append("</div>")
    return lines


def _case_head(case: CaseResult, cause: str | None) -> str:
    critical = ' <span class="badge bad">critical</span>' if case.critical else ""
    tags = "".join(f' <span class="tag">{_t(tag, 60)}</span>' for tag in case.tags)
    because = f' <span class="badge warn">{_t(cause, 60)}</span>' if cause else ""
    return (
        f"{_badge(case.status)} <b>{_t(case.key, _LINE)}</b>{critical} "
        f'<span class="muted">composite {fmt_score(case.composite)}</span>{because}{tags} '
        f'<span class="q">— {_t(" ".join(case.question.split()), _LINE)}</span>'
    )


def _full_case(case: CaseResult, cause: str | None, number: int, attributes: str) -> str:
    opened = " open" if case.status in _FAILING and number <= OPEN_CASES else ""
    lines = [
        f'<details class="case" id="case-{number}" {attributes}{opened}>'
        f"<summary>{_case_head(case, cause)}</summary>",
        _block("Question", case.question),
    ]
    if case.error:
        lines.append(_block("Error", case.error, _LONG))
    if case.turns is not None:
        lines += _turns(case)
        lines += _scores(case, "Scores of the conversation, from its turns'")
    else:
        lines += _answer(case)
        lines.append(_block("Ground truth", case.ground_truth))
        lines += _contexts(case)
        lines += _scores(case)
    failed = [t for t in case.tests if t.outcome in _FAILING]
    if failed:
        lines.append("<h4>Failed tests</h4><ul>")
        for test in failed:
            message = f": {_t(test.message, _TEXT)}" if test.message else ""
            lines.append(f"<li><code>{_t(test.nodeid)}</code> {test.outcome}{message}</li>")
        lines.append("</ul>")
    latency = "" if case.latency_s is None else f", latency {fmt_seconds(case.latency_s)}"
    lines.append(
        f'<p class="muted">Dataset <code>{_t(case.dataset)}</code>, case <code>'
        f"{_t(case.id)}</code>{latency}{' (slow)' if case.slow else ''}</p></details>"
    )
    return "".join(lines)


def _compact_row(case: CaseResult, names: Sequence[str], attributes: str) -> str:
    cells = []
    for name in names:
        r = case.metrics.get(name)
        if r is None:
            cells.append("<td></td>")
        elif r.status == "not_judged":
            cells.append('<td class="warn">n/j</td>')
        else:
            tone = ' class="n bad"' if r.status == "failed" else ' class="n"'
            cells.append(f"<td{tone}>{fmt_score(r.score)}</td>")
    return (
        f'<tr {attributes}><td class="{_TONE[case.status]}">{case.status}</td>'
        f"<td>{_t(case.key, 80)}</td>{_score_cell(case.composite)}{''.join(cells)}"
        f"<td>{_t(' '.join(case.question.split()), 100)}</td></tr>"
    )


def _cases(report: Report, causes: dict[str, int], full_cases: int, full_bytes: int) -> list[str]:
    cases = sorted(report.cases, key=lambda c: c.status not in _FAILING)  # stable
    tags = _Index(tag for case in cases for tag in case.tags)
    cause_of = [case_cause(case) for case in cases]
    cause_index = _Index([*causes, *(c for c in cause_of if c is not None)])
    lines = [
        f'<h2 id="cases">Cases: {len(cases)}</h2>',
        '<p class="note">Failing cases first, then the rest in dataset order. Texts longer '
        "than the page shows end in “…”: eval_report.json has them whole.</p>",
        *_filters(tags, cause_index),
    ]
    size, shown = 0, 0
    for case, cause in zip(cases, cause_of, strict=True):
        if shown >= full_cases or size >= full_bytes:
            break
        attributes = _filter_attributes(case, cause, tags, cause_index)
        block = _full_case(case, cause, shown + 1, attributes)
        lines.append(block)
        size += len(block.encode("utf-8"))
        shown += 1
    if shown == len(cases):
        return lines
    names = list(report.summary.metrics)
    rows: list[str] = []
    size = 0
    for case, cause in zip(cases[shown:], cause_of[shown:], strict=True):
        if len(rows) >= COMPACT_CASES or size >= COMPACT_BYTES:
            break
        row = _compact_row(case, names, _filter_attributes(case, cause, tags, cause_index))
        rows.append(row)
        size += len(row.encode("utf-8"))
    columns = '<col class="c-status"><col class="c-key">' + '<col class="c-num">' * (1 + len(names))
    header = "".join(f"<th>{_t(title(n), 40)}</th>" for n in names)
    lines += [
        f"<h3>{len(cases) - shown} more cases, one line each</h3>",
        f'<p class="note">The first {shown} cases above are shown in full; eval_report.json '
        "has every case in full.</p>",
        f'<table class="compact"><colgroup>{columns}<col></colgroup><thead><tr><th>Status</th>'
        f"<th>Case</th><th>Composite</th>{header}<th>Question</th></tr></thead></table>",
    ]
    # Tables of a few hundred rows, each laid out on its own (fixed columns) and skipped by
    # the browser while off screen: one table of 10,000 rows takes seconds to lay out.
    for start in range(0, len(rows), _CHUNK):
        lines += [
            f'<table class="compact"><colgroup>{columns}<col></colgroup><tbody>',
            *rows[start : start + _CHUNK],
            "</tbody></table>",
        ]
    left = len(cases) - shown - len(rows)
    if left:
        lines.append(f'<p class="note">{left} further cases are only in eval_report.json.</p>')
    return lines


# ---------------------------------------------------------------------------------------


def render_html(
    report: Report, *, full_cases: int = FULL_CASES, full_bytes: int = FULL_BYTES
) -> str:
    """The whole page, as text."""
    causes = cause_counts(report)
    body = [
        "<h1>RAG Evaluation Report</h1>",
        *_summary(report),
        *_comparison(report.comparison),
        *_flaky_and_critical(report),
        *_tags(report.summary),
        *_causes(causes),
        *_distributions(report),
        *_trend(report),
        *_cases(report, causes, full_cases, full_bytes),
    ]
    if report.warnings:
        body += ['<h2 id="warnings">Warnings</h2><ul>']
        body += [f"<li>{_t(w, _TEXT)}</li>" for w in report.warnings]
        body.append("</ul>")
    tool = report.tool
    body.append(
        f"<footer>{_t(tool.name)} {_t(tool.version)}, report schema "
        f"{report.schema_version}. A self-contained page: it loads nothing.</footer>"
    )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">',
            "<title>RAG Evaluation Report</title>",
            f"<style>{_CSS}</style>",
            '</head><body class="large">' if len(report.cases) > LARGE else "</head><body>",
            *body,
            f"<script>{_SCRIPT}</script>",
            "</body></html>",
            "",
        ]
    )
