"""The assertion API on a LlamaIndex query engine. Mock embeddings retrieve arbitrarily, so
this example only shows the wiring: the contexts and their sources reach the report."""

from __future__ import annotations

from rag_eval_pytest import RagCase, evaluate


def test_engine_returns_contexts_with_sources(rag_case: RagCase) -> None:
    assert rag_case.contexts, "the query engine returned no source nodes"
    assert all(c.source and c.source.endswith(".md") for c in rag_case.contexts)
    evaluate(rag_case, "retrieval_recall")  # recorded in the report, not asserted
