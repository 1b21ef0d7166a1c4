"""The assertion API on the demo app: one test per dataset case (``--rag-dataset``)."""

from __future__ import annotations

from rag_eval_pytest import RagCase, assert_retrieval, evaluate


def test_retrieves_the_expected_documents(rag_case: RagCase) -> None:
    assert_retrieval(rag_case, recall=1.0, precision=0.75)


def test_answers_something(rag_case: RagCase) -> None:
    assert rag_case.answer.strip(), "the RAG app returned an empty answer"
    result = evaluate(rag_case, "retrieval_recall")
    assert result.score is not None
