"""``eval_report.html``: the report as one self-contained page, readable offline as a CI
artifact.

The page is rendered from the Jinja2 templates in ``templates/`` (``eval_report.html.jinja``,
and ``case.html.jinja`` for each case): this module computes what they show (the charts, the
filters' indexes, which cases are shown in full) and the templates lay it out. Jinja2 is
imported when a page is rendered, never by a run that writes no page.

The page holds its CSS and a small script of its own (the case filters, ``templates/``), and
SVG charts drawn by :mod:`.charts`; it loads nothing (its Content-Security-Policy allows no
source but its own style and script, by hash). Sections: the verdict and the gates, the
comparison with the baseline, judge-flaky and critical cases, tags, failure causes, each
metric's distribution, the trend of every metric over the history (from the report's
``trend``), then the cases (a conversation as its turns, the failing turn first).

Untrusted text (answers, contexts, questions, sources, judge reasons, tags, names) is safe by
default: the templates autoescape, and every value they place goes through
:func:`~rag_eval_pytest.text.escaping.html_text` (``html.escape`` after removing control and
bidirectional characters). It is never placed in the script, nor in an attribute; the filters
read indexes (``data-tags="0 3"``), and nothing of it becomes a link. Only HTML this module
built from escaped pieces (the charts, the marked answer, a rendered case) and the page's own
style, script and policy are placed as they are (:func:`_built`).

Without JavaScript the page shows every case and no filter. At scale, the first cases
(failing ones first, then the rest in dataset order) are shown in full, up to
:data:`FULL_CASES` cases or :data:`FULL_BYTES` bytes of them; every further case is one row
of a compact table (up to :data:`COMPACT_CASES` rows or :data:`COMPACT_BYTES` bytes), so a
page stays under 10 MB; ``eval_report.json`` has them all.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from itertools import chain, islice
from typing import TYPE_CHECKING, Any

from ..metrics.registry import metric_order
from ..metrics.retrieval import source_matches
from ..text.escaping import html_text, marked_html
from ..text.shorten import LONG_TEXT, one_line
from ..text.spans import marked_pieces
from . import wording
from .case_source import ListCases, failing, not_failing
from .charts import SERIES_CLASSES, Marker, Series, histogram_svg, line_chart_svg
from .wording import (
    answer_marks,
    fmt_duration,
    fmt_score,
    fmt_seconds,
    title,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import TextIO

    from jinja2 import Environment
    from markupsafe import Markup

    from .case_source import CaseSource
    from .models import (
        CaseResult,
        CaseTest,
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
_SELECTION = {"other": "other selection", "unknown": "selection not recorded"}


# ---------------------------------------------------------------------------------------
# The templates, and what they may place as it is.


def _built(html: str) -> Markup:
    """HTML this module built from escaped pieces (or the page's own style, script and
    policy), which the templates place as it is; everything else they escape."""
    return _markup()(html)


@cache
def _markup() -> type[Markup]:
    from markupsafe import Markup

    return Markup


_PLAIN = re.compile(r"[^&<>\"']*")


def _inert(value: object) -> object:
    """Every value a template places: markup as it is, anything else as inert text. Printable
    text without a character to escape is left to the templates' own escaping, which leaves
    it as it is (most of a page's values: numbers, statuses, keys)."""
    if hasattr(value, "__html__"):
        return value
    text = str(value)
    if text.isprintable() and _PLAIN.fullmatch(text):
        return text
    return _built(html_text(text))


def _text(value: object, limit: int | None = None) -> Markup:
    """The ``text`` filter: untrusted text as inert HTML, cut at ``limit`` characters."""
    return _built(html_text(value, limit))


# A template line that starts indented continues the line above: the templates are laid out
# for their reader, and the page keeps each case (and each long line) on one line.
_CONTINUED = re.compile(r"\n[ \t]+")


def _template_source(name: str) -> str:
    return _CONTINUED.sub("", _resource(name))


@cache
def _resource(name: str) -> str:
    return (resources.files(__package__) / "templates" / name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


@cache
def _page_assets() -> dict[str, Markup]:
    """The page's style, its script, and the policy that allows exactly these two."""
    css, script = _resource("eval_report.css"), _resource("eval_report.js")
    policy = (
        "default-src 'none'; "
        f"style-src 'sha256-{_sha256(css)}'; script-src 'sha256-{_sha256(script)}'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )
    return {"css": _built(css), "script": _built(script), "policy": _built(policy)}


@cache
def _environment() -> Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_template_source),
        autoescape=True,
        finalize=_inert,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        text=_text,
        score=fmt_score,
        seconds=fmt_seconds,
        duration=fmt_duration,
        metric_title=title,
        one_line=lambda text: one_line(str(text), LONG_TEXT),
    )
    env.globals.update(_GLOBALS)
    return env


# ---------------------------------------------------------------------------------------
# What a case shows beyond its own fields.


@dataclass(frozen=True)
class _Answer:
    label: str
    marked: Markup | None
    """The answer with its statements that count against it in ``<mark>``, if any."""
    unmatched: list[str]


def _answer(case: CaseResult | TurnResult) -> _Answer:
    """The answer's heading, its marks and the statements not found in it. A conversation's
    evidence indexes its turns' answers, not its last one's."""
    label = "Answer" + (" (recorded)" if case.recorded else "")
    conversation = getattr(case, "turns", None) is not None
    spans, unmatched = answer_marks([] if conversation else case.metrics.values())
    if not spans or case.answer is None:
        return _Answer(label, None, unmatched)
    context = None if len(case.answer) <= _LONG else _SHORT
    # marked_html escapes each piece of the answer, then adds the <mark> elements.
    marked = _built(marked_html(marked_pieces(case.answer, spans, context)))
    return _Answer(label, marked, unmatched)


def _found(expected: Iterable[str], source: str | None) -> bool:
    return any(source_matches(e, source) for e in expected)


def _not_retrieved(case: CaseResult | TurnResult) -> list[str]:
    sources = [c.source for c in case.contexts or []]
    return [e for e in case.expected_contexts or [] if not _retrieved(e, sources)]


def _retrieved(expected: str, sources: list[str | None]) -> bool:
    return any(source_matches(expected, source) for source in sources)


def _metric_warnings(case: CaseResult | TurnResult) -> list[str]:
    return [w for r in case.metrics.values() for w in r.warnings]


def _failing_turns_first(case: CaseResult) -> list[TurnResult]:
    return sorted(case.turns or [], key=lambda t: (t.status != "failed", t.turn))


def _failed_tests(case: CaseResult) -> list[CaseTest]:
    return [t for t in case.tests if t.outcome in _FAILING]


def _run_note(point: TrendPoint) -> str:
    marks = ("partial" if point.partial else "", _SELECTION.get(point.selection, ""))
    return ", ".join(mark for mark in marks if mark)


_GLOBALS: dict[str, Any] = {
    "wording": wording,
    "tone": _TONE,
    "LONG": _LONG,
    "TEXT": _TEXT,
    "SHORT": _SHORT,
    "LINE": _LINE,
    "SERIES_CLASSES": SERIES_CLASSES,
    "answer_view": _answer,
    "found": _found,
    "not_retrieved": _not_retrieved,
    "metric_warnings": _metric_warnings,
    "failing_turns_first": _failing_turns_first,
    "failed_tests": _failed_tests,
    "run_note": _run_note,
}


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
# Charts: distributions and the trend. The charts escape their labels; the rest is numbers.


@dataclass(frozen=True)
class _Histogram:
    name: str
    count: str
    svg: Markup


@dataclass
class _Overview:
    """What the page needs of every case before it shows any: the scores of its histograms,
    the tags and causes its filters number."""

    names: list[str]
    composites: list[float] = field(default_factory=list)
    scores: dict[str, list[float]] = field(default_factory=dict)
    tags: set[str] = field(default_factory=set)
    causes: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, report: Report, cases: Iterable[CaseResult]) -> _Overview:
        overview = cls(list(report.summary.metrics))
        overview.scores = {name: [] for name in overview.names}
        for case in cases:
            overview.add(case)
        return overview

    def add(self, case: CaseResult) -> None:
        if case.composite is not None:
            self.composites.append(case.composite)
        for name, scores in self.scores.items():
            result = case.metrics.get(name)
            if result is not None and result.score is not None:
                scores.append(result.score)
        self.tags.update(case.tags)
        if case.failure_cause is not None:
            self.causes.add(case.failure_cause)


def _distributions(report: Report, overview: _Overview) -> list[_Histogram]:
    """A histogram of the composites, then of each metric's scores (those with any)."""
    composites = overview.composites
    figures = (
        [_histogram("Composite", composites, report.summary.composite.threshold)]
        if composites
        else []
    )
    for name, m in report.summary.metrics.items():
        scores = overview.scores[name]
        if scores:
            figures.append(_histogram(title(name), scores, _threshold_of(m)))
    return figures


def _threshold_of(metric: MetricSummary) -> float | None:
    """The metric's threshold, or the one threshold all its cases had."""
    if metric.threshold is None and len(metric.case_thresholds) == 1:
        return metric.case_thresholds[0]
    return metric.threshold


def _histogram(name: str, scores: list[float], threshold: float | None) -> _Histogram:
    count = f"{len(scores)} case" + ("" if len(scores) == 1 else "s")
    return _Histogram(name, count, _built(histogram_svg(name, scores, threshold)))


@dataclass(frozen=True)
class _TrendFigure:
    heading: str
    svg: Markup
    labels: list[str] = field(default_factory=list)


def _identity(point: TrendPoint) -> str | None:
    """Which judge scored a run: its identity (by its judge's name in an older line)."""
    return point.judge_identity or point.judge


def _judge_labels(points: Sequence[TrendPoint]) -> dict[str | None, str]:
    """Each judge identity of the trend's runs and how the legend names it: its judge's
    name, with the identity's start where two identities share a name."""
    names: dict[str | None, str] = {}
    for point in points:
        names.setdefault(_identity(point), point.judge or "not recorded")
    shared = list(names.values())
    return {
        key: f"{name} {key[:8]}" if shared.count(name) > 1 and key is not None else name
        for key, name in names.items()
    }


def _trend_figures(report: Report) -> list[_TrendFigure]:
    """A line chart per metric (the composite first), one line per judge identity."""
    trend = report.trend
    if trend is None or len(trend.points) < 2:
        return []
    points = trend.points
    labels = _judge_labels(points)
    thresholds = _thresholds(report.summary)
    figures = []
    for name in _trend_names(points):
        series = _series(name, points, labels)
        if series:
            markers = _regression_markers(trend, name, len(points))
            figures.append(_trend_figure(name, series, thresholds.get(name), markers, len(points)))
    return figures


def _trend_names(points: Sequence[TrendPoint]) -> list[str]:
    return ["composite", *sorted({m for p in points for m in p.metrics}, key=metric_order)]


def _thresholds(summary: Summary) -> dict[str, float | None]:
    thresholds = {n: m.threshold for n, m in summary.metrics.items()}
    thresholds["composite"] = summary.composite.threshold
    return thresholds


def _regression_markers(trend: Trend, name: str, runs: int) -> list[Marker]:
    """A marker on this run's point for the metric's regression, if it has one."""
    return [
        Marker(
            runs,
            r.current,
            f"Regression: {fmt_score(r.previous)} → {fmt_score(r.current)} since run "
            f"{r.previous_run}",
        )
        for r in trend.regressions
        if r.name == name
    ]


def _trend_figure(
    name: str, series: list[Series], threshold: float | None, markers: list[Marker], runs: int
) -> _TrendFigure:
    heading = "Composite" if name == "composite" else title(name)
    svg = line_chart_svg(heading, runs, series, threshold=threshold, markers=markers)
    return _TrendFigure(heading, _built(svg), [line.label for line in series])


def _series(name: str, points: Sequence[TrendPoint], labels: dict[str | None, str]) -> list[Series]:
    """The metric's scores over the runs, one line per judge identity; a partial run or one
    of another selection is drawn hollow."""
    lines: dict[str | None, list[tuple[int, float]]] = {}
    for number, point in enumerate(points, start=1):
        score = point.composite if name == "composite" else point.metrics.get(name)
        if score is not None:
            lines.setdefault(_identity(point), []).append((number, score))
    hollow = _hollow(points)
    return [Series(labels[key], line, hollow) for key, line in lines.items()]


def _hollow(points: Sequence[TrendPoint]) -> frozenset[int]:
    """The numbers of the runs drawn hollow: partial, or of another selection."""
    return frozenset(
        number
        for number, point in enumerate(points, start=1)
        if point.partial or point.selection != "same"
    )


# ---------------------------------------------------------------------------------------
# The cases: the first in full, then compact rows, within the page's budget.


class _Index:
    """Tags and causes as numbers: the filters compare numbers, so no untrusted text goes
    into an attribute or the script."""

    def __init__(self, values: Iterable[str]) -> None:
        self.values = sorted(set(values))
        self.number = {value: i for i, value in enumerate(self.values)}


@dataclass(frozen=True)
class _Numbers:
    """What a case's filter attributes say: its tags' and its cause's numbers."""

    tags: str
    cause: str


class _Numbering:
    """The numbers of the tags and causes of the cases, and each case's filter attributes."""

    def __init__(self, overview: _Overview, causes: dict[str, int]) -> None:
        self.tags = _Index(overview.tags)
        self.causes = _Index([*causes, *overview.causes])

    def of(self, case: CaseResult, cause: str | None) -> _Numbers:
        cause_number = "" if cause is None else str(self.causes.number[cause])
        return _Numbers(" ".join(str(self.tags.number[tag]) for tag in case.tags), cause_number)


class _Cases:
    """The page's cases, failing first, then the rest in report order, each read and
    rendered as the page is written: the first in full, within the budget (cases, bytes),
    then compact rows (:data:`COMPACT_CASES`, :data:`COMPACT_BYTES`). :attr:`shown` and
    :attr:`left` are known once the page has written the cases before them."""

    def __init__(
        self, source: CaseSource, numbering: _Numbering, names: list[str], budget: tuple[int, int]
    ) -> None:
        self.total = len(source)
        self.tags = numbering.tags.values
        self.causes = numbering.causes.values
        self.names = names
        self.shown = 0
        self.rows = 0
        self._numbering = numbering
        self._budget = budget
        self._pending = _Pending(chain(source.read(failing), source.read(not_failing)))
        self._macros: Any = _environment().get_template("case.html.jinja").module

    @property
    def left(self) -> int:
        return self.total - self.shown - self.rows

    @property
    def full(self) -> Iterator[Markup]:
        """The first cases in full; the failing among the first :data:`OPEN_CASES` open."""
        size = 0
        while self.shown < self._budget[0] and size < self._budget[1]:
            case = self._pending.next()
            if case is None:
                return
            cause = case_cause(case)
            opened = case.status in _FAILING and self.shown < OPEN_CASES
            number = self.shown + 1
            block = self._macros.full_case(
                case, cause, number, self._numbering.of(case, cause), opened
            )
            self.shown += 1
            size += len(block.encode("utf-8"))
            yield block

    @property
    def compact(self) -> Iterator[Iterator[Markup]]:
        """The next cases as compact rows, in tables of a few hundred rows, each laid out on
        its own (fixed columns) and skipped by the browser while off screen: one table of
        10,000 rows takes seconds to lay out."""
        rows = self._rows()
        for first in rows:
            yield chain([first], islice(rows, _CHUNK - 1))

    def _rows(self) -> Iterator[Markup]:
        size = 0
        while self.rows < COMPACT_CASES and size < COMPACT_BYTES:
            case = self._pending.next()
            if case is None:
                return
            row = self._macros.compact_row(
                case, self.names, self._numbering.of(case, case_cause(case))
            )
            self.rows += 1
            size += len(row.encode("utf-8"))
            yield row


class _Pending:
    """The cases still to show, one taken at a time."""

    def __init__(self, cases: Iterator[CaseResult]) -> None:
        self._cases = cases

    def next(self) -> CaseResult | None:
        return next(self._cases, None)


# ---------------------------------------------------------------------------------------


def render_html(
    report: Report, *, full_cases: int = FULL_CASES, full_bytes: int = FULL_BYTES
) -> str:
    """The whole page of a report in memory, as text (:func:`write_html`)."""
    out = io.StringIO()
    write_html(out, report, ListCases(report.cases), full_cases=full_cases, full_bytes=full_bytes)
    return out.getvalue()


def write_html(
    out: TextIO,
    report: Report,
    cases: CaseSource,
    *,
    full_cases: int = FULL_CASES,
    full_bytes: int = FULL_BYTES,
) -> None:
    """The page to ``out``, written as it is rendered; ``report``'s cases are ``cases``,
    read once for the histograms and the filters, then once more as they are shown."""
    causes = cause_counts(report)
    trend = report.trend if report.trend is not None and len(report.trend.points) >= 2 else None
    overview = _Overview.of(report, cases.read())
    numbering = _Numbering(overview, causes)
    page = _environment().get_template("eval_report.html.jinja")
    parts = page.generate(
        report=report,
        large=len(cases) > LARGE,
        causes=sorted(causes.items(), key=lambda item: (-item[1], item[0])),
        distributions=_distributions(report, overview),
        trend=trend,
        trend_figures=_trend_figures(report),
        cases=_Cases(cases, numbering, overview.names, (full_cases, full_bytes)),
        **_page_assets(),
    )
    for part in parts:
        out.write(part)
