"""The release a run says it comes from: the package's version, the changelog's newest
release, the JSON report's ``tool`` and the HTML page's ``generator`` are one number."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.helpers import read_report

ROOT = Path(__file__).resolve().parents[3]

TESTS = """
from rag_eval_pytest import assert_retrieval
def test_retrieval(rag_case):
    assert_retrieval(rag_case, 0.0)
"""


def released_versions() -> list[str]:
    """The changelog's released sections, newest first (``## 0.1.0 - 2026-11-28``)."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## (\d+\.\d+\.\d+) - \d{4}-\d{2}-\d{2}$", text, flags=re.MULTILINE)


def test_the_package_version_is_the_changelogs_newest_release() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings[0] == "Unreleased", "changes since the last release gather on top"
    assert released_versions()[0] == version("rag-eval-pytest")


def test_the_reports_name_the_version_that_wrote_them(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset()
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    assert result.ret == 0
    current = released_versions()[0]
    assert read_report(pytester)["tool"] == {"name": "rag-eval-pytest", "version": current}
    page = (pytester.path / "results" / "eval_report.html").read_text(encoding="utf-8")
    assert f'<meta name="generator" content="rag-eval-pytest {current}">' in page
