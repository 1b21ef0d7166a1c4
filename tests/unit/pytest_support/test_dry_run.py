"""The header line and the ``--rag-dry-run`` plan: what they say about the selection, the
adapter, the judge and its cost, from the settings alone (no judge is built, nothing called)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.engine.session import EvalSession
from rag_eval_pytest.extras import local_available
from rag_eval_pytest.pytest_support.dry_run import cost_line, header_line, render_plan
from tests.unit.pytest_support.fakes import eval_session

CASES = (
    {"id": "plain"},
    {"id": "urgent", "critical": True, "tags": ["billing", "ui"]},
    {"id": "recorded", "answer": "Refunds take 14 days.", "contexts": ["Refunds: 14 days."]},
)
LOCAL = (
    "local (all-MiniLM-L6-v2 + rules)"
    if local_available()
    else "local (not installed: pip install 'rag-eval-pytest[local]')"
)


def session(tmp_path: Path, **settings: Any) -> EvalSession:
    return eval_session(tmp_path, *CASES, **{"judge": {"kind": "local"}, **settings})


# ----------------------------------------------------------------- the header


def test_the_header_names_dataset_cases_adapter_judge_and_output(tmp_path: Path) -> None:
    assert header_line(session(tmp_path)) == (
        f"rag-eval: dataset qa.json (3 cases, 1 critical) | adapter rag_adapter fixture "
        f"| judge {LOCAL} | output results"
    )


def test_the_header_counts_the_selection_and_names_the_config_file(tmp_path: Path) -> None:
    selected = session(tmp_path, tags=["billing"], target="app:answer")
    selected.config_file = "eval-config.yaml"
    line = header_line(selected)
    assert "(1 of 3 cases, 1 critical)" in line
    assert "| adapter app:answer |" in line
    assert line.endswith("| config eval-config.yaml")


@pytest.mark.parametrize(
    ("made_for", "note"),
    [
        (LOCAL, "(for this judge)"),
        ("anthropic (x)", "(made for anthropic (x), not for this judge)"),
    ],
)
def test_the_header_says_whether_the_calibration_is_for_this_judge(
    tmp_path: Path, made_for: str, note: str
) -> None:
    calibrated = session(tmp_path, judge={"kind": "local", "calibration": "cal.json"})
    calibrated.calibration = {"judge": made_for, "metrics": {}}
    assert header_line(calibrated).endswith(f" | calibration cal.json {note}")


# ----------------------------------------------------------------- the cost line


def test_the_local_judge_costs_nothing_to_announce(tmp_path: Path) -> None:
    local = session(tmp_path)
    assert cost_line(local, local.cases) is None


def test_a_suite_that_chooses_its_metrics_as_it_runs_is_not_estimated(tmp_path: Path) -> None:
    paid = session(tmp_path, judge={"kind": "anthropic"})
    line = cost_line(paid, None)
    assert line is not None and line.startswith("rag-eval: judge cost not estimated")


def test_the_zero_code_tests_cost_is_estimated_for_a_paid_judge(tmp_path: Path) -> None:
    paid = session(tmp_path, judge={"kind": "anthropic"})
    line = cost_line(paid, paid.cases[:2])
    assert line is not None
    assert re.fullmatch(
        r"rag-eval: judge cost estimate for the 2 zero-code tests: \d+ judge calls, "
        r"~\d+ tokens, ~\$\d+\.\d{4} \(cache hits cost nothing\)",
        line,
    ), line


def test_a_model_without_a_known_price_gives_no_estimate(tmp_path: Path) -> None:
    unpriced = session(tmp_path, judge={"kind": "openai", "model": "llama3"})
    assert cost_line(unpriced, unpriced.cases) is None


# ----------------------------------------------------------------- the plan


def test_the_plan_lists_critical_cases_first_with_their_flags(tmp_path: Path) -> None:
    lines = render_plan(session(tmp_path)).splitlines()
    assert lines[0] == "rag-eval dry run: dataset and configuration are valid; nothing was called."
    assert lines[2] == f"dataset {tmp_path / 'qa.json'}: 3 cases"
    assert lines[3] == "selected: 3 cases (1 critical)"
    cases = [line for line in lines if line.startswith("  ") and ": Question" in line]
    assert cases == [
        "  urgent [critical; tags billing,ui]: Question urgent?",
        "  plain: Question plain?",
        "  recorded [pre-recorded answer]: Question recorded?",
    ]
    assert "RAG queries: 2" in lines  # the recorded answer is not asked for


def test_the_plan_gives_metrics_gates_and_the_tag_filter(tmp_path: Path) -> None:
    plan = render_plan(
        session(
            tmp_path,
            tags=["billing"],
            metrics={"faithfulness": {"threshold": 0.8}, "retrieval_ndcg": {"k": 5}},
            thresholds={"composite": 0.7},
        )
    ).splitlines()
    assert "tags filter: billing" in plan
    assert "selected: 1 cases (1 critical)" in plan
    assert (
        "metrics (zero-code mode): faithfulness >= 0.80, retrieval_ndcg k=5 (default threshold)"
        in plan
    )
    assert "run thresholds: composite >= 0.70" in plan


def test_a_plan_without_judged_metrics_needs_no_judge(tmp_path: Path) -> None:
    plan = render_plan(session(tmp_path, metrics={"retrieval_ndcg": {}}))
    assert plan.splitlines()[-1] == "judge: not needed (no judge-based metric in zero-code mode)"
    assert "run thresholds: none" in plan


def test_the_local_judges_plan_is_offline_and_free(tmp_path: Path) -> None:
    last = render_plan(session(tmp_path)).splitlines()[-1]
    assert re.fullmatch(
        rf"judge {re.escape(LOCAL)}: offline, no API calls and no cost \(\d+ local judgements\)",
        last,
    )


def test_a_paid_judges_plan_estimates_the_zero_code_cost_and_says_what_it_leaves_out(
    tmp_path: Path,
) -> None:
    lines = render_plan(session(tmp_path, judge={"kind": "anthropic"})).splitlines()
    assert lines[-2].startswith(
        "judge anthropic (claude-sonnet-4-6), zero-code metrics, estimated: "
    )
    assert lines[-2].endswith("(cache hits cost nothing)")
    assert lines[-1].startswith("  this is what zero-code mode asks for")
