"""The HTML report's SVG charts: well-formed inline SVG, ten histogram bins over [0, 1] with
the failing ones marked, lines placed by run and score, hollow dots and regression markers,
and every untrusted label escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from rag_eval_pytest.reporting.charts import (
    SERIES_CLASSES,
    Marker,
    Series,
    bin_counts,
    histogram_svg,
    line_chart_svg,
)

NS = {"svg": "http://www.w3.org/2000/svg"}
HOSTILE = '<script>alert(1)</script> & "quoted"'


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # raises on markup that is not well formed


@pytest.mark.parametrize(
    ("score", "bin_"), [(0.0, 0), (0.0999, 0), (0.1, 1), (0.55, 5), (0.95, 9), (1.0, 9)]
)
def test_each_score_falls_in_its_tenth(score: float, bin_: int) -> None:
    counts = bin_counts([score])
    assert counts.index(1) == bin_ and sum(counts) == 1


def test_the_histogram_has_ten_bars_and_marks_those_below_the_threshold() -> None:
    root = parse(histogram_svg("faithfulness", [0.05, 0.45, 0.45, 0.95, 1.0], threshold=0.5))
    bars = root.findall("svg:rect", NS)
    assert len(bars) == 10
    low = [i for i, bar in enumerate(bars) if "low" in bar.get("class", "").split()]
    assert low == [0, 1, 2, 3, 4]  # the bins wholly below 0.5
    heights = [float(bar.get("height", "0")) for bar in bars]
    # The tallest bars (two scores each) fill the plot: 110 high less 18 below and 8 above.
    assert heights[4] == heights[9] == 84 and heights[0] == 42 and heights[1] == 0
    tips = [bar.find("svg:title", NS).text for bar in bars]  # type: ignore[union-attr]
    assert tips[4] == "0.4–0.5: 2 cases"
    assert tips[0] == "0.0–0.1: 1 case"
    (line,) = root.findall("svg:line[@class='threshold']", NS)
    assert line.find("svg:title", NS).text == "threshold 0.50"  # type: ignore[union-attr]
    assert root.find("svg:title", NS).text == "faithfulness: 5 scores"  # type: ignore[union-attr]


def classes(root: ET.Element) -> list[tuple[str, str]]:
    """Each bar's class and tooltip, in the order drawn."""
    return [
        (bar.get("class", ""), bar.find("svg:title", NS).text or "")  # type: ignore[union-attr]
        for bar in root.findall("svg:rect", NS)
    ]


def test_a_bar_whose_scores_all_meet_a_threshold_of_1_is_passing() -> None:
    # A score equal to the threshold passes: the bar of perfect scores is no failing bar,
    # though its range (0.9 to 1.0) does not go above the threshold.
    bars = classes(parse(histogram_svg("retrieval_recall", [1.0, 1.0, 1.0, 0.0], threshold=1.0)))
    assert bars[9] == ("bar", "0.9–1.0: 3 cases")
    assert bars[0] == ("bar low", "0.0–0.1: 1 case")


def test_a_bar_holding_failing_and_passing_scores_shows_its_failing_part() -> None:
    root = parse(histogram_svg("faithfulness", [0.95, 1.0, 1.0], threshold=1.0))
    bars = classes(root)
    assert bars[9:] == [
        ("bar", "0.9–1.0: 3 cases"),
        ("bar low", "0.9–1.0: 3 cases, 1 below the threshold"),
    ]
    whole, failing = root.findall("svg:rect", NS)[9:]
    assert float(whole.get("height", "0")) == 84 and float(failing.get("height", "0")) == 28
    assert whole.get("x") == failing.get("x")
    # A threshold inside a bin: each score is on its side of it.
    assert classes(parse(histogram_svg("m", [0.72, 0.74], threshold=0.75)))[7][0] == "bar low"
    assert classes(parse(histogram_svg("m", [0.75, 0.78], threshold=0.75)))[7][0] == "bar"


def test_an_empty_histogram_draws_flat_bars_and_no_threshold() -> None:
    root = parse(histogram_svg("m", []))
    assert all(float(bar.get("height", "1")) == 0 for bar in root.findall("svg:rect", NS))
    assert root.findall("svg:line[@class='threshold']", NS) == []
    assert not any("low" in bar.get("class", "") for bar in root.findall("svg:rect", NS))


def test_untrusted_labels_are_escaped() -> None:
    hist = histogram_svg(HOSTILE, [0.5])
    trend = line_chart_svg(
        HOSTILE, 2, [Series(HOSTILE, [(1, 0.5), (2, 0.6)])], markers=[Marker(2, 0.6, HOSTILE)]
    )
    for svg in (hist, trend):
        assert "<script>" not in svg
        root = parse(svg)
        assert root.find("svg:script", NS) is None
        assert HOSTILE in "".join(root.itertext())  # shown as text, whole


def test_lines_are_placed_by_run_and_score() -> None:
    series = [
        Series("judge a", [(1, 1.0), (3, 0.0)], hollow=frozenset({3})),
        Series("b", [(2, 0.5)]),
    ]
    root = parse(line_chart_svg("trend", 3, series, threshold=0.75))
    (polyline,) = root.findall("svg:polyline", NS)  # a single point draws no line
    # x from 34 to 528 over 3 runs; y from 10 (score 1) to 158 (score 0).
    assert polyline.get("points") == "34,10 528,158"
    dots = root.findall("svg:circle", NS)
    assert [(d.get("cx"), d.get("cy"), d.get("class")) for d in dots] == [
        ("34", "10", "dot s0"),
        ("528", "158", "dot s0 hollow"),
        ("281", "84", "dot s1"),
    ]
    assert dots[0].find("svg:title", NS).text == "run 1: 1.00 (judge a)"  # type: ignore[union-attr]
    (threshold,) = root.findall("svg:line[@class='threshold']", NS)
    assert threshold.get("y1") == "47"  # 10 + 148 * 0.25


def test_one_run_sits_in_the_middle_and_colours_cycle() -> None:
    series = [Series(f"j{i}", [(1, 0.5)]) for i in range(SERIES_CLASSES + 1)]
    root = parse(line_chart_svg("t", 1, series))
    dots = root.findall("svg:circle", NS)
    assert {d.get("cx") for d in dots} == {"281"}
    assert dots[-1].get("class") == "dot s0"  # the seventh line reuses the first colour


def test_a_regression_is_ringed_and_labelled() -> None:
    root = parse(line_chart_svg("t", 2, [], markers=[Marker(2, 0.5, "faithfulness fell")]))
    (ring,) = root.findall("svg:circle[@class='regression']", NS)
    assert (ring.get("cx"), ring.get("cy")) == ("528", "84")
    assert ring.find("svg:title", NS).text == "faithfulness fell"  # type: ignore[union-attr]
    assert [t.text for t in root.findall("svg:text[@class='regression-label']", NS)] == ["▼"]
