"""A LangChain runnable named by ``--rag-target`` in a file, run through pytest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

pytest.importorskip("langchain_core")

# Imported before the inner run, which drops the modules it imported first when it ends.
import langchain_core.documents
import langchain_core.runnables  # noqa: F401

RAG_FILE = """
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda

DOCS = {"policy.md": "Full refund within 30 days.", "shipping.md": "We ship worldwide."}

def _answer(question):
    hits = [Document(page_content=t, metadata={"source": n})
            for n, t in DOCS.items() if any(w in t.lower() for w in question.lower().split())]
    return {"answer": " ".join(d.page_content for d in hits) or "I don't know.", "context": hits}

chain = RunnableLambda(_answer)
"""


def test_langchain_target_from_a_file_through_pytest(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(
        [
            case("tc_refund", "refund policy", expected_contexts=["policy.md"]),
            case("tc_ship", "ship abroad", expected_contexts=["shipping.md"]),
        ]
    )
    (pytester.path / "app").mkdir()
    (pytester.path / "app" / "rag.py").write_text(RAG_FILE, encoding="utf-8")
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\n"})
    result = pytester.runpytest(
        "--rag-dataset",
        "dataset.json",
        "--rag-adapter",
        "langchain",
        "--rag-target",
        "app/rag.py:chain",
    )
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    cases = {c["id"]: c for c in read_report(pytester)["cases"]}
    assert cases["tc_refund"]["answer"] == "Full refund within 30 days."
    assert cases["tc_ship"]["sources"] == ["shipping.md"]
