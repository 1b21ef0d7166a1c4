"""A secret that is one of the report's fixed words (a metric's name, a field name) still
gives the run its verdict, its reports and its summary, with the secret's other
occurrences masked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.redaction import MASK
from tests.helpers import case
from tests.integration.plugin.test_reports import run


def test_a_secret_that_is_a_fixed_word_is_masked_and_the_run_still_reports(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A key long and odd enough to be a secret, which is also a metric's name in the reports.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "retrieval_recall")
    write_dataset(
        [
            case("ok", "What is the refund policy?", expected_contexts=["policy.md"]),
            case("retrieval_recall-1", "Do you deliver abroad?", expected_contexts=["shipping.md"]),
        ]
    )
    result = run(pytester, rag_app)
    assert result.ret == 1, result.stdout.str()
    assert "internal error" not in result.stdout.str()
    result.stdout.fnmatch_lines(["rag-eval: exit 1: 1 test *"])
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert f"### FAILED: {MASK}-1 " in markdown.replace("\\", "")
    assert (pytester.path / "results" / "eval_report.json").is_file()
