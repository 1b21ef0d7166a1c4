"""The SVG charts of the HTML report, drawn here as text: a histogram of a metric's case
scores and a line chart of scores over the last runs.

Each chart is an inline ``<svg>`` element: no script, no library, nothing fetched. Its
labels (a named check's name, a judge's name from the history) are untrusted text and pass
through :func:`~rag_eval_pytest.text.escaping.html_text`; the rest is numbers this module
formats. Colours come from the page's CSS classes, so a chart follows the page's theme.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..text.escaping import html_text

if TYPE_CHECKING:
    from collections.abc import Sequence

BINS = 10
SERIES_CLASSES = 6
"""How many line colours the page's CSS defines (``s0`` to ``s5``); more lines reuse them."""


def _num(value: float) -> str:
    """A coordinate: one decimal, no trailing zero."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def bin_counts(scores: Sequence[float], bins: int = BINS) -> list[int]:
    """How many scores fall in each of ``bins`` equal bins over [0, 1] (1.0 in the last)."""
    counts = [0] * bins
    for score in scores:
        counts[min(int(score * bins), bins - 1)] += 1
    return counts


def split_counts(
    scores: Sequence[float], threshold: float | None, bins: int = BINS
) -> list[tuple[int, int]]:
    """Per bin of :func:`bin_counts`, how many scores fall below ``threshold`` and how many
    meet it (a score equal to it passes, as its case does)."""
    below, met = [0] * bins, [0] * bins
    for score in scores:
        side = below if threshold is not None and score < threshold else met
        side[min(int(score * bins), bins - 1)] += 1
    return list(zip(below, met, strict=True))


@dataclass(frozen=True)
class _Plot:
    """Where a histogram's bars go: the plot's corner and size, and the tallest bar's count."""

    left: float
    top: float
    plot_w: float
    plot_h: float
    most: int

    def rect(self, i: int, count: int, cls: str, title: str) -> str:
        """Bin ``i``'s bar of ``count`` scores, standing on the axis."""
        bar_w = self.plot_w / BINS
        height = self.plot_h * count / self.most
        return (
            f'<rect class="{cls}" x="{_num(self.left + i * bar_w + 1)}" '
            f'y="{_num(self.top + self.plot_h - height)}" width="{_num(bar_w - 2)}" '
            f'height="{_num(height)}"><title>{title}</title></rect>'
        )


def _bar(plot: _Plot, i: int, below: int, met: int, threshold: float | None) -> str:
    """Bin ``i``'s bar: failing (red) when its scores are all below the threshold (an empty
    bin when its whole range is), else passing; a bin holding both kinds has its failing
    part drawn over it."""
    low, high = i / BINS, (i + 1) / BINS
    count = below + met
    failing = _failing_bin(below, met, high, threshold)
    tip = f"{low:.1f}–{high:.1f}: {count} case{'' if count == 1 else 's'}"
    bar = plot.rect(i, count, "bar low" if failing else "bar", tip)
    if below and met:
        bar += plot.rect(i, below, "bar low", f"{tip}, {below} below the threshold")
    return bar


def _failing_bin(below: int, met: int, high: float, threshold: float | None) -> bool:
    """Whether a bin is drawn failing: its scores all below the threshold; an empty bin,
    when its whole range is."""
    if below + met == 0:
        return threshold is not None and high <= threshold + 1e-9
    return below > 0 and met == 0


def histogram_svg(title: str, scores: Sequence[float], threshold: float | None = None) -> str:
    """A histogram of ``scores`` (each in [0, 1]) in ten bins: a bar whose scores are all
    below ``threshold`` is drawn as failing, one whose scores all meet it as passing, and a
    bar holding both shows its failing part; a dashed line marks the threshold; each bar's
    tooltip gives its range and count."""
    width, height, left, bottom, top = 240, 110, 26, 18, 8
    plot_w, plot_h = width - left - 6, height - bottom - top
    plot = _Plot(left, top, plot_w, plot_h, max(bin_counts(scores), default=0) or 1)
    parts = [
        f'<svg class="chart hist" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{html_text(title)}: {len(scores)} scores</title>",
        f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" '
        f'y2="{top + plot_h}"/>',
        f'<text class="tick" x="{left - 4}" y="{top + 4}" text-anchor="end">{plot.most}</text>',
        f'<text class="tick" x="{left - 4}" y="{top + plot_h}" text-anchor="end">0</text>',
    ]
    for i, (below, met) in enumerate(split_counts(scores, threshold)):
        parts.append(_bar(plot, i, below, met, threshold))
    for tick in (0.0, 0.5, 1.0):
        parts.append(
            f'<text class="tick" x="{_num(left + tick * plot_w)}" y="{height - 4}" '
            f'text-anchor="middle">{tick:g}</text>'
        )
    if threshold is not None:
        at = _num(left + threshold * plot_w)
        parts.append(
            f'<line class="threshold" x1="{at}" y1="{top}" x2="{at}" y2="{top + plot_h}">'
            f"<title>threshold {threshold:.2f}</title></line>"
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Series:
    """One line of a trend chart: the scores of the runs of one judge identity."""

    label: str
    points: list[tuple[int, float]]
    """(run number, score), oldest first; run numbers start at 1."""
    hollow: frozenset[int] = field(default_factory=frozenset)
    """Runs drawn as hollow dots: partial, or of another selection (not compared)."""


@dataclass(frozen=True)
class Marker:
    """A run flagged on a chart (a regression), with its tooltip."""

    run: int
    score: float
    note: str


def line_chart_svg(
    title: str,
    runs: int,
    series: Sequence[Series],
    *,
    threshold: float | None = None,
    markers: Sequence[Marker] = (),
) -> str:
    """Scores over ``runs`` runs (x: the run's number, y: 0 to 1), one line per series, a
    dot per run with its score in its tooltip; ``markers`` ringed and labelled, a dashed line
    at ``threshold``."""
    frame = _TrendFrame(runs)
    parts = [
        f'<svg class="chart trend" viewBox="0 0 {frame.width} {frame.height}" '
        f'width="{frame.width}" height="{frame.height}" role="img" '
        'xmlns="http://www.w3.org/2000/svg">',
        f"<title>{html_text(title)}</title>",
        *_trend_axes(frame),
        *_threshold_line(frame, threshold),
        *(part for i, line in enumerate(series) for part in _series_marks(frame, i, line)),
        *(_marker_mark(frame, marker) for marker in markers),
        "</svg>",
    ]
    return "".join(parts)


@dataclass(frozen=True)
class _TrendFrame:
    """Where the trend chart draws a run and a score."""

    runs: int
    width: int = 540
    height: int = 180
    left: int = 34
    right: int = 12
    top: int = 10
    bottom: int = 22

    @property
    def plot_w(self) -> int:
        return self.width - self.left - self.right

    def x(self, run: int) -> str:
        step = self.plot_w / max(self.runs - 1, 1)
        return _num(self.left + (run - 1) * step if self.runs > 1 else self.left + self.plot_w / 2)

    def y(self, score: float) -> str:
        plot_h = self.height - self.top - self.bottom
        return _num(self.top + plot_h * (1 - score))


def _trend_axes(frame: _TrendFrame) -> list[str]:
    """The grid with its score ticks, and each run's number under the chart."""
    left, right = frame.left, frame.left + frame.plot_w
    grid = [
        f'<line class="grid" x1="{left}" y1="{frame.y(tick)}" x2="{right}" y2="{frame.y(tick)}"/>'
        f'<text class="tick" x="{left - 4}" y="{_num(float(frame.y(tick)) + 3)}" '
        f'text-anchor="end">{tick:g}</text>'
        for tick in (0.0, 0.25, 0.5, 0.75, 1.0)
    ]
    runs = [
        f'<text class="tick" x="{frame.x(run)}" y="{frame.height - 6}" '
        f'text-anchor="middle">{run}</text>'
        for run in range(1, frame.runs + 1)
    ]
    return grid + runs


def _threshold_line(frame: _TrendFrame, threshold: float | None) -> list[str]:
    if threshold is None:
        return []
    return [
        f'<line class="threshold" x1="{frame.left}" y1="{frame.y(threshold)}" '
        f'x2="{frame.left + frame.plot_w}" y2="{frame.y(threshold)}">'
        f"<title>threshold {threshold:.2f}</title></line>"
    ]


def _series_marks(frame: _TrendFrame, i: int, line: Series) -> list[str]:
    """A series' line, and a dot per run with its score in its tooltip."""
    colour = f"s{i % SERIES_CLASSES}"
    label = html_text(line.label)
    parts = []
    if len(line.points) > 1:
        path = " ".join(f"{frame.x(run)},{frame.y(score)}" for run, score in line.points)
        parts.append(f'<polyline class="line {colour}" points="{path}"/>')
    for run, score in line.points:
        hollow = " hollow" if run in line.hollow else ""
        parts.append(
            f'<circle class="dot {colour}{hollow}" cx="{frame.x(run)}" cy="{frame.y(score)}" '
            f'r="3.5"><title>run {run}: {score:.2f} ({label})</title></circle>'
        )
    return parts


def _marker_mark(frame: _TrendFrame, marker: Marker) -> str:
    x, y = frame.x(marker.run), frame.y(marker.score)
    return (
        f'<circle class="regression" cx="{x}" cy="{y}" r="8">'
        f"<title>{html_text(marker.note)}</title></circle>"
        f'<text class="regression-label" x="{x}" y="{_num(float(y) - 11)}" '
        'text-anchor="middle">▼</text>'
    )
