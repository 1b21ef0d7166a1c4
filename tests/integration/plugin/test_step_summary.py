"""The compact Markdown summary: ``eval_summary.md`` beside the reports and, on GitHub
Actions, ``$GITHUB_STEP_SUMMARY``; written on a fatal exit too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case

RETRIEVAL_ONLY = "metrics:\n  retrieval_recall: 1.0\n"


def test_every_failing_case_is_listed_with_its_reason_critical_first(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    step_summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    pytester.makefile(".yaml", **{"eval-config": RETRIEVAL_ONLY})
    write_dataset(
        [
            case("plain_miss", "deliver abroad?", expected_contexts=["x.md"]),
            case("ok", "refund policy?", expected_contexts=["policy.md"]),
            case("crit_miss", "deliver abroad?", expected_contexts=["y.md"], critical=True),
        ]
    )
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == 2
    text = step_summary.read_text()
    assert text.startswith("## RAG evaluation FAILED: exit 2, critical case crit_miss failed")
    assert "| Retrieval Recall | 0.33 (0.00-1.00) |" in text
    failing = [line for line in text.splitlines() if line.startswith("- **")]
    assert failing == [
        "- **crit_miss** (critical): retrieval_recall 0.00 < 1.00 (0 of 1 expected documents "
        "retrieved; missing: y.md)",
        "- **plain_miss**: retrieval_recall 0.00 < 1.00 (0 of 1 expected documents retrieved; "
        "missing: x.md)",
    ]
    assert (pytester.path / "results" / "eval_summary.md").read_text() == text


def test_a_fatal_configuration_error_still_reaches_the_step_summary(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    step_summary = pytester.path / "step_summary.md"
    step_summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    write_dataset()
    pytester.makefile(".yaml", **{"eval-config": "slow_treshold: 3\n"})
    result = pytester.runpytest("--rag-dataset", "dataset.json")
    assert result.ret == 3
    lines = step_summary.read_text().splitlines()
    assert lines[:3] == ["earlier step", "## RAG evaluation FAILED: exit 3, fatal", ""]
    assert "unknown key 'slow_treshold'" in lines[3]


def test_without_the_variable_nothing_but_the_report_folder_is_written(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    pytester.makefile(".yaml", **{"eval-config": RETRIEVAL_ONLY})
    write_dataset([case("ok", "refund policy?", expected_contexts=["policy.md"])])
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == 0
    text = (pytester.path / "results" / "eval_summary.md").read_text()
    assert text.startswith("## RAG evaluation passed: exit 0, all tests passed")
    assert "### Failing" not in text
