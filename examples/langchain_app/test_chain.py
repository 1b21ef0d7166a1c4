"""The assertion API on a LangChain chain."""

from __future__ import annotations

from rag_eval_pytest import RagCase, assert_retrieval


def test_chain_retrieves_the_expected_documents(rag_case: RagCase) -> None:
    assert_retrieval(rag_case, recall=1.0, precision=0.75)
