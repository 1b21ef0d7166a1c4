"""The terminal summary: the metric table aligned in columns, the counts, the failure causes,
latency and judge usage when there are any, a long or hostile metric name kept to one short
line, however many judge-flaky cases one short line, the files written or not, and the exit
line last."""

from __future__ import annotations

from typing import Any

from rag_eval_pytest.reporting.models import FlakyCase, Report
from rag_eval_pytest.reporting.terminal import METRIC_CELL, summary_lines
from tests.unit.reporting.test_html import CASES, report


def changed(base: Report, **summary: Any) -> Report:
    return base.model_copy(update={"summary": base.summary.model_copy(update=summary)}, deep=True)


def test_the_table_is_aligned_with_the_composite_first() -> None:
    lines = summary_lines(report(CASES), [], [])
    header, rule, composite, faithfulness = lines[:4]
    assert header.split() == ["Metric", "Score", "Threshold", "Status"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert composite.split() == ["Composite", "0.71", "0.75", "FAIL"]
    # The mean with its interval and the cases not judged; the gate and its status.
    assert faithfulness.split("  ")[0] == "Faithfulness"
    assert "0.84 (0.78-0.90) (1 not judged)" in faithfulness
    assert faithfulness.rstrip().endswith("PASS")
    # Every column starts at the same place on every row.
    for row in (composite, faithfulness):
        assert row.index(row.split()[1]) == header.index("Score")


def test_counts_and_the_exit_line_close_the_summary() -> None:
    lines = summary_lines(report(CASES), [], [])
    assert "cases: 3 (1 passed, 1 failed, 1 errors, 0 skipped); critical: 0/1 passed" in lines
    assert lines[-1] == "rag-eval: exit 2: critical case refund failed"


def test_latency_and_usage_lines_appear_only_when_there_is_something_to_say() -> None:
    quiet = summary_lines(report(CASES), [], [])
    assert not any(line.startswith(("latency:", "judge:", "why cases failed:")) for line in quiet)
    base = report(CASES)
    busy = changed(
        base,
        latency=base.summary.latency.model_copy(
            update={"count": 3, "avg_s": 0.25, "p50_s": 0.2, "p95_s": 1.5, "slow": 1}
        ),
        usage=base.summary.usage.model_copy(
            update={"judge_calls": 12, "cache_hits": 3, "cost_usd": 0.4567}
        ),
        failure_causes={"retrieval_miss": 2},
        unexplained_failures=1,
    )
    lines = summary_lines(busy, [], [])
    assert "latency: avg 250ms | p50 200ms | p95 1.50s | slow (>5s): 1" in lines
    assert "judge: 12 calls, 3 cached, $0.46" in lines
    assert "why cases failed: 2 retrieval_miss, 1 unexplained" in lines


def test_a_long_or_hostile_metric_name_stays_one_short_cell() -> None:
    base = report(CASES)
    faith = base.summary.metrics["faithfulness"]
    name = "criteria: \x1b[31mthe answer must\nnot promise refunds beyond thirty days ever"
    lines = summary_lines(changed(base, metrics={name: faith}), [], [])
    row = lines[3]
    cell = row.split("  ")[0]
    assert "\x1b" not in row and "\n" not in row
    assert cell.startswith("Criteria: the answer must not promise")
    assert len(cell) == METRIC_CELL and cell.endswith("…")


def test_files_written_and_not_written_and_warnings_are_listed() -> None:
    lines = summary_lines(
        report(CASES, warnings=["bad \x1b[2Jthing"]),
        ["results/eval_report.json"],
        ["results/eval_report.html: disk full"],
    )
    assert "warning: bad thing" in lines
    assert "reports: results/eval_report.json" in lines
    assert "could not write results/eval_report.html: disk full" in lines
    assert lines.index("reports: results/eval_report.json") < len(lines) - 1


def test_many_judge_flaky_cases_make_one_short_line() -> None:
    flaky = [
        FlakyCase(key=f"c{i:03d}", outcomes="passed, failed, passed", quarantined=i % 2 == 0)
        for i in range(25)
    ]
    lines = summary_lines(report(CASES).model_copy(update={"flaky": flaky}), [], [])
    [line] = [line for line in lines if line.startswith("judge-flaky:")]
    assert line == (
        "judge-flaky: c000, c001, c002, c003, c004, c005, c006, c007, c008, c009 and 15 more "
        "(QUARANTINED: c000, c002, c004, c006, c008, c010, c012, c014, c016, c018 and 3 more)"
    )
