"""The assertion API on the demo app: one test per dataset case (``--rag-dataset``).

Without ANTHROPIC_API_KEY the judge-based checks use the offline judge (local embeddings and
rules); with it, Claude. Nothing else changes.
"""

from __future__ import annotations

from rag_eval_pytest import RagCase, assert_faithful, assert_relevant, assert_retrieval


def test_answer_is_grounded_in_the_retrieved_documents(rag_case: RagCase) -> None:
    assert_faithful(rag_case, threshold=0.8)


def test_answer_addresses_the_question(rag_case: RagCase) -> None:
    assert_relevant(rag_case, threshold=0.5)


def test_retrieves_the_expected_documents(rag_case: RagCase) -> None:
    assert_retrieval(rag_case, recall=1.0, precision=0.75)
