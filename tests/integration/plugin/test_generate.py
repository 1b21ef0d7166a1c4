"""``rag-eval generate`` and the plugin: a generated dataset runs as it is, and the retrieval
metrics find the chunks each case was made from with a plain RAG over the same documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_eval_pytest.cli import main
from tests.documents import BM25_APP, write_documents
from tests.helpers import read_report

CONFIG = "metrics:\n  retrieval_recall: 1.0\n  retrieval_hit_rate: 1.0\n"


@pytest.mark.parametrize("form", ["path", "chunk"])
def test_a_generated_dataset_runs_as_it_is_and_retrieval_finds_its_chunks(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    monkeypatch.chdir(pytester.path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    write_documents(pytester.path / "docs")
    argv = ["generate", "docs", "--output", "generated.json", "--count", "15"]
    assert main([*argv, "--source-format", form]) == 0
    pytester.makepyfile(app=BM25_APP)
    pytester.syspathinsert()
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    result = pytester.runpytest(
        "--rag-dataset", "generated.json", "--rag-target", "app:answer", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=15)
    report = read_report(pytester)
    assert report["run"]["exit_code"] == 0
    cases = report["cases"]
    assert len(cases) == 15
    assert all(c["metrics"]["retrieval_recall"]["score"] == 1.0 for c in cases)
    assert {c["id"] for c in cases} == {
        c["id"] for c in json.loads(Path("generated.json").read_text())["test_cases"]
    }
