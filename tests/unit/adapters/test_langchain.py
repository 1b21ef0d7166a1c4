"""LangChainAdapter with real langchain-core chains built on its fake models (no network)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from rag_eval_pytest.adapters.langchain import LangChainAdapter
from rag_eval_pytest.data.response import Context
from rag_eval_pytest.errors import AdapterError, ConfigError

pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import (
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)
from langchain_core.vectorstores import InMemoryVectorStore

DOCS = [
    Document(page_content="Full refund within 30 days.", metadata={"source": "policy.md"}),
    Document(page_content="We ship worldwide.", metadata={"source": "shipping.md"}),
]
PROMPT = ChatPromptTemplate.from_template("Context: {context}\nQuestion: {question}")


def retrieval_chain(answers: list[str]) -> Any:
    """The common RAG shape: retrieve, then answer; output {"question", "context", "answer"}."""
    store = InMemoryVectorStore.from_documents(DOCS, DeterministicFakeEmbedding(size=16))
    retriever = store.as_retriever(search_kwargs={"k": 2})
    llm = FakeListChatModel(responses=answers)
    return RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=PROMPT | llm | StrOutputParser()
    )


def test_retrieval_chain_gives_answer_contexts_and_sources() -> None:
    adapter = LangChainAdapter(retrieval_chain(["Refunds are accepted within 30 days."]))
    response = asyncio.run(adapter.aquery("What is the refund policy?"))
    assert response.answer == "Refunds are accepted within 30 days."
    assert response.contexts is not None
    assert sorted(response.contexts, key=lambda c: c.text) == [
        Context(text="Full refund within 30 days.", source="policy.md"),
        Context(text="We ship worldwide.", source="shipping.md"),
    ]
    assert sorted(response.retrieved_sources) == ["policy.md", "shipping.md"]
    assert adapter.describe() == "langchain RunnableSequence"


def test_configured_keys_and_dict_input() -> None:
    def chain(inputs: dict[str, str]) -> dict[str, Any]:
        doc = Document(page_content="text", metadata={"path": "a.md", "source": "ignored"})
        return {"result": f"about {inputs['query']}", "docs": [doc]}

    adapter = LangChainAdapter(
        RunnableLambda(chain),
        input_key="query",
        answer_key="result",
        context_key="docs",
        source_key="path",
    )
    response = adapter.query("refunds")
    assert response.answer == "about refunds"
    assert response.contexts == [Context(text="text", source="a.md")]


def test_text_and_message_outputs_have_unknown_contexts() -> None:
    llm = FakeListChatModel(responses=["plain", "message"])
    prompt = RunnableLambda(lambda q: {"context": "none", "question": q}) | PROMPT
    first = LangChainAdapter(prompt | llm | StrOutputParser()).query("q")
    second = LangChainAdapter(prompt | llm).query("q")
    assert (first.answer, first.contexts) == ("plain", None)
    assert (second.answer, second.contexts) == ("message", None)


def test_queries_go_through_ainvoke() -> None:
    calls: list[str] = []

    def sync(question: str) -> dict[str, Any]:
        calls.append("invoke")
        return {"answer": "sync", "context": []}

    async def asynchronous(question: str) -> dict[str, Any]:
        calls.append("ainvoke")
        return {"answer": "async", "context": []}

    response = asyncio.run(LangChainAdapter(RunnableLambda(sync, afunc=asynchronous)).aquery("q"))
    assert (response.answer, response.contexts, calls) == ("async", [], ["ainvoke"])


def test_unusable_outputs_are_adapter_errors() -> None:
    with pytest.raises(AdapterError, match=r"no 'answer' key \(keys: text, docs\)"):
        LangChainAdapter(RunnableLambda(lambda q: {"text": "a", "docs": []})).query("q")
    with pytest.raises(AdapterError, match="'context' is a str, not a list of documents"):
        LangChainAdapter(RunnableLambda(lambda q: {"answer": "a", "context": "x"})).query("q")
    with pytest.raises(AdapterError, match="answered with a int"):
        LangChainAdapter(RunnableLambda(lambda q: 42)).query("q")


def test_not_a_runnable_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not a Runnable"):
        LangChainAdapter(object())


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_core", None)
    with pytest.raises(ConfigError) as info:
        LangChainAdapter(RunnableLambda(lambda q: q))
    assert str(info.value) == (
        "the langchain adapter needs langchain-core, which is not installed: "
        "pip install 'rag-eval-pytest[langchain]'"
    )
