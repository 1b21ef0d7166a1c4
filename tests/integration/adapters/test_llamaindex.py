"""LlamaIndexAdapter with a real llama-index-core index on its mock LLM and embeddings."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.adapters.llamaindex import LlamaIndexAdapter
from rag_eval_pytest.data.response import Context
from rag_eval_pytest.errors import AdapterError, ConfigError
from tests.helpers import case, installed, read_report

pytestmark = installed("llama_index.core")


@pytest.fixture(autouse=True, scope="module")
def _llama_index_imported() -> None:
    """llama-index-core, imported when these tests run rather than when every xdist worker
    collects this file (3 s of CPU each), and before the in-process run below, which drops
    the modules it imported first when it ends."""
    import llama_index.core.embeddings
    import llama_index.core.llms  # noqa: F401


def index_of(*docs: Any) -> Any:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding

    return VectorStoreIndex.from_documents(list(docs), embed_model=MockEmbedding(embed_dim=8))


def document(text: str, **fields: Any) -> Any:
    from llama_index.core import Document

    return Document(text=text, **fields)


def mock_llm() -> Any:
    from llama_index.core.llms import MockLLM

    return MockLLM()


def small_index() -> Any:
    return index_of(
        document("Full refund within 30 days.", metadata={"file_name": "policy.md"}),
        document("We ship worldwide.", id_="shipping-doc"),
    )


def test_query_engine_gives_answer_contexts_and_sources() -> None:
    engine = small_index().as_query_engine(llm=mock_llm(), similarity_top_k=2)
    adapter = LlamaIndexAdapter(engine)
    response = asyncio.run(adapter.aquery("What is the refund policy?"))
    # MockLLM answers with the prompt it was given: the question and the retrieved text.
    assert "What is the refund policy?" in response.answer
    assert "Full refund within 30 days." in response.answer
    assert response.contexts is not None
    assert sorted(response.contexts, key=lambda c: c.text) == [
        Context(text="Full refund within 30 days.", source="policy.md"),
        Context(text="We ship worldwide.", source="shipping-doc"),
    ]
    assert adapter.describe() == "llamaindex RetrieverQueryEngine"


def test_an_index_becomes_a_query_engine() -> None:
    adapter = LlamaIndexAdapter(
        small_index(), engine_kwargs={"llm": mock_llm(), "similarity_top_k": 1}
    )
    response = adapter.query("refund?")
    assert response.contexts is not None and len(response.contexts) == 1


def test_source_key_picks_the_metadata_field() -> None:
    index = index_of(document("t", metadata={"url": "https://docs/x", "file_name": "x.md"}))
    adapter = LlamaIndexAdapter(index.as_query_engine(llm=mock_llm()), source_key="url")
    response = adapter.query("q")
    assert response.contexts == [Context(text="t", source="https://docs/x")]


def test_engine_without_a_text_response_is_an_adapter_error() -> None:
    class Engine:
        async def aquery(self, question: str) -> object:
            return object()

    with pytest.raises(AdapterError, match="returned a object without a text response"):
        asyncio.run(LlamaIndexAdapter(Engine()).aquery("q"))


def test_neither_engine_nor_index_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="neither a query engine, a chat engine nor an index"):
        LlamaIndexAdapter(42)


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_index.core", None)
    with pytest.raises(ConfigError) as info:
        LlamaIndexAdapter(object())
    assert str(info.value) == (
        "the llamaindex adapter needs llama-index-core, which is not installed: "
        "pip install 'rag-eval-pytest[llamaindex]'"
    )


RAG_FILE = """
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM

_index = VectorStoreIndex.from_documents(
    [Document(text="Full refund within 30 days.", metadata={"file_name": "policy.md"})],
    embed_model=MockEmbedding(embed_dim=8),
)
engine = _index.as_query_engine(llm=MockLLM())
"""


def test_llamaindex_target_through_pytest(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset([case("tc_refund", "refund policy?", expected_contexts=["policy.md"])])
    pytester.makepyfile(li_rag=RAG_FILE)
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\n"})
    result = pytester.runpytest(
        "--rag-dataset",
        "dataset.json",
        "--rag-adapter",
        "llamaindex",
        "--rag-target",
        "li_rag.py:engine",
    )
    assert result.ret == 0, result.stdout.str()
    (only,) = read_report(pytester)["cases"]
    assert only["sources"] == ["policy.md"]
    assert only["contexts"] == [{"text": "Full refund within 30 days.", "source": "policy.md"}]
