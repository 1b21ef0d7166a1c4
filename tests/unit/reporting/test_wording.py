"""The reports' wording: one module says how a score, an interval, a metric's row, the judge's
votes, a verdict and a newly failing case read, and every output says them in those words."""

from __future__ import annotations

from typing import Any

from rag_eval_pytest.reporting.html_report import render_html
from rag_eval_pytest.reporting.markdown import render_markdown, render_step_summary
from rag_eval_pytest.reporting.models import Report
from rag_eval_pytest.reporting.step_summary import render_fatal_summary
from rag_eval_pytest.reporting.terminal import summary_lines
from rag_eval_pytest.reporting.wording import (
    SUMMARY_HEADER,
    fmt_interval,
    latency_text,
    summary_rows,
    verdict_line,
    vote_lines,
)
from tests.unit.reporting.test_html import CASES, report


def with_votes(base: Report) -> Report:
    faithfulness = base.summary.metrics["faithfulness"].model_copy(
        update={"votes": {"revoted": 4, "disagreed": 1}}
    )
    summary = base.summary.model_copy(update={"metrics": {"faithfulness": faithfulness}})
    return base.model_copy(update={"summary": summary})


def test_a_metric_row_reads_the_same_in_every_table() -> None:
    built = report(CASES)
    assert summary_rows(built.summary) == [
        ("Composite", "0.71", "0.75", "FAIL"),
        ("Faithfulness", "0.84 (0.78-0.90) (1 not judged)", "0.80 (mean); 0.70 per case", "PASS"),
    ]
    markdown = render_markdown(built)
    assert "| Metric | Score | Threshold | Status |" in markdown
    row = "| Faithfulness | 0.84 (0.78-0.90) (1 not judged) | 0.80 (mean); 0.70 per case | PASS |"
    assert row in markdown and row in render_step_summary(built)
    terminal = summary_lines(built, [], [])
    assert terminal[0].split() == list(SUMMARY_HEADER)
    assert "0.80 (mean); 0.70 per case" in terminal[3]
    assert "<td>0.80 (mean); 0.70 per case</td>" in render_html(built)


def test_the_judges_votes_read_the_same_in_every_output() -> None:
    built = with_votes(report(CASES))
    (line,) = vote_lines(built.summary)
    assert line == (
        "Faithfulness: 4 verdicts near the threshold asked again with more votes; the votes "
        "differed on 1 (25%)"
    )
    assert f"- {line}" in render_markdown(built)
    assert f"<li>{line}</li>" in render_html(built)
    assert f"votes: {line}" in summary_lines(built, [], [])


def test_the_verdict_reads_the_same_on_the_page_the_summary_and_a_fatal_run() -> None:
    assert verdict_line(0, "all gates passed") == "RAG evaluation passed: exit 0, all gates passed"
    built = report(CASES)
    assert render_step_summary(built).startswith(
        "## RAG evaluation FAILED: exit 2, critical case refund failed\n"
    )
    assert "RAG evaluation FAILED: exit 2 — critical case refund failed" in render_html(built)
    assert render_fatal_summary("dataset.json: no cases", 3).startswith(
        "## RAG evaluation FAILED: exit 3, fatal\n"
    )


def test_an_interval_of_one_point_or_none_is_not_shown() -> None:
    assert fmt_interval((0.781, 0.9)) == "0.78-0.90"
    assert fmt_interval((0.78, 0.9), "–") == "0.78–0.90"
    assert fmt_interval((0.5, 0.5)) is None
    assert fmt_interval(None) is None


def test_latency_is_said_only_with_live_queries() -> None:
    latency: Any = report(CASES).summary.latency
    assert latency_text(latency) is None
    live = latency.model_copy(update={"count": 2, "avg_s": 0.25, "p50_s": 0.2, "p95_s": 1.5})
    assert latency_text(live) == "avg 250ms | p50 200ms | p95 1.50s | slow (>5s): 0"
