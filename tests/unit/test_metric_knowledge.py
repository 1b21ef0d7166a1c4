"""A metric owns what it knows: no module outside ``metrics/`` names a built-in metric in its
code (a string literal), so adding or changing a metric touches its module, its registry row
and its docs; the cost estimate and the companions come from the metric classes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rag_eval_pytest
from rag_eval_pytest.metrics.registry import METRIC_NAMES, metric_class

PACKAGE = Path(rag_eval_pytest.__file__).parent


def metric_names_in_code(path: Path) -> list[tuple[int, str]]:
    """String literals of ``path`` that are a built-in metric's name (docstrings aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in METRIC_NAMES
        and id(node) not in docstrings
    ]


def test_no_module_outside_metrics_names_a_built_in_metric() -> None:
    found = {
        str(path.relative_to(PACKAGE)): names
        for path in sorted(PACKAGE.rglob("*.py"))
        if "metrics" not in path.relative_to(PACKAGE).parts
        and (names := metric_names_in_code(path))
    }
    assert found == {}


def test_the_check_finds_a_metric_named_outside_metrics(tmp_path: Path) -> None:
    planted = tmp_path / "estimate.py"
    planted.write_text('"""Costs of faithfulness."""\nif metric == "faithfulness":\n    pass\n')
    assert metric_names_in_code(planted) == [(2, "faithfulness")]


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_every_judged_metric_declares_the_questions_it_asks(name: str) -> None:
    metric = metric_class(name)()
    asked = metric.judge_questions(
        "Q?", "The truth.", "An answer.", ["A context."], earlier=["My order number is 4417."]
    )
    if "judge" in metric.requires:
        assert asked, f"{name} asks a judge but declares no question for the cost estimate"
    else:
        assert asked == []
