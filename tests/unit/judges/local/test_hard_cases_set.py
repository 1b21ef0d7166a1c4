"""The hard-cases set the accuracy benchmark reports: every failure class in its right and its
wrong form, each row complete for the metric it targets, across the domains a RAG system
answers about."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from rag_eval_pytest.metrics.registry import get_metric

SET = Path(__file__).parents[4] / "benchmarks" / "data" / "hard_cases.jsonl"


def load() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line]


def test_every_failure_class_has_a_right_and_a_wrong_form() -> None:
    rows = load()
    assert len(rows) >= 120
    assert len({r["id"] for r in rows}) == len(rows)
    forms = Counter((r["failure_class"], r["label"]) for r in rows)
    for kind in {r["failure_class"] for r in rows}:
        assert forms[kind, 1] == forms[kind, 0] > 0, kind
    for row in rows:
        get_metric(row["task"])  # a metric the plugin has
        assert row["question"], row["id"]
        if row["task"] == "answer_correctness":
            assert row["ground_truth"], row["id"]
        elif row["task"] == "context_relevance":
            assert row["contexts"], row["id"]
        else:
            assert row["answer"], row["id"]


def test_the_set_spans_the_domains_and_the_facts_bound_to_a_role() -> None:
    rows = load()
    domains = {r["domain"] for r in rows}
    assert {"hr", "billing", "shipping", "healthcare", "travel", "it", "retail", "finance"} <= (
        domains
    )
    kinds = {r["failure_class"] for r in rows}
    assert {"swapped_quantity", "swapped_time", "weekday", "direction"} <= kinds
    assert {"list_answer", "context_sentence"} <= kinds
