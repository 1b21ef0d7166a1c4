"""The same checks as the main example, with the RAG system reached over HTTP."""

from __future__ import annotations

from rag_eval_pytest import RagCase, assert_retrieval


def test_retrieves_the_expected_documents(rag_case: RagCase) -> None:
    if not rag_case.case.has_recorded_answer:
        assert rag_case.response.latency is not None  # measured around the HTTP round trip
    assert_retrieval(rag_case, recall=1.0, precision=0.75)
