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
    empty_below = count == 0 and threshold is not None and high <= threshold + 1e-9
    failing = (below > 0 and met == 0) or empty_below
    tip = f"{low:.1f}–{high:.1f}: {count} case{'' if count == 1 else 's'}"
    bar = plot.rect(i, count, "bar low" if failing else "bar", tip)
    if below and met:
        bar += plot.rect(i, below, "bar low", f"{tip}, {below} below the threshold")
    return bar


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
    width, height, left, right, top, bottom = 540, 180, 34, 12, 10, 22
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / max(runs - 1, 1)

    def x(run: int) -> str:
        return _num(left + (run - 1) * step if runs > 1 else left + plot_w / 2)

    def y(score: float) -> str:
        return _num(top + plot_h * (1 - score))

    parts = [
        f'<svg class="chart trend" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{html_text(title)}</title>",
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line class="grid" x1="{left}" y1="{y(tick)}" x2="{left + plot_w}" y2="{y(tick)}"/>'
            f'<text class="tick" x="{left - 4}" y="{_num(float(y(tick)) + 3)}" '
            f'text-anchor="end">{tick:g}</text>'
        )
    for run in range(1, runs + 1):
        parts.append(
            f'<text class="tick" x="{x(run)}" y="{height - 6}" text-anchor="middle">{run}</text>'
        )
    if threshold is not None:
        parts.append(
            f'<line class="threshold" x1="{left}" y1="{y(threshold)}" x2="{left + plot_w}" '
            f'y2="{y(threshold)}"><title>threshold {threshold:.2f}</title></line>'
        )
    for i, line in enumerate(series):
        colour = f"s{i % SERIES_CLASSES}"
        label = html_text(line.label)
        if len(line.points) > 1:
            path = " ".join(f"{x(run)},{y(score)}" for run, score in line.points)
            parts.append(f'<polyline class="line {colour}" points="{path}"/>')
        for run, score in line.points:
            hollow = " hollow" if run in line.hollow else ""
            parts.append(
                f'<circle class="dot {colour}{hollow}" cx="{x(run)}" cy="{y(score)}" r="3.5">'
                f"<title>run {run}: {score:.2f} ({label})</title></circle>"
            )
    for marker in markers:
        parts.append(
            f'<circle class="regression" cx="{x(marker.run)}" cy="{y(marker.score)}" r="8">'
            f"<title>{html_text(marker.note)}</title></circle>"
            f'<text class="regression-label" x="{x(marker.run)}" '
            f'y="{_num(float(y(marker.score)) - 11)}" text-anchor="middle">▼</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
