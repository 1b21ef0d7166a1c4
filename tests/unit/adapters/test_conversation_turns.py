"""Adapters given a conversation's history: a callable's second parameter, the HTTP request
template's ``{history}`` and ``{messages}``, LangChain's chat history, LlamaIndex's chat
engine; and one clear error where a RAG system takes no history."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rag_eval_pytest.adapters.base import RAGAdapter
from rag_eval_pytest.adapters.callable import CallableAdapter, as_adapter
from rag_eval_pytest.adapters.http import _fill
from rag_eval_pytest.data.response import Message, RAGResponse
from rag_eval_pytest.errors import AdapterError

HISTORY: list[Message] = [
    {"role": "user", "content": "What does an account cost?"},
    {"role": "assistant", "content": "5 EUR a month."},
]


def test_a_function_with_a_second_parameter_gets_the_history() -> None:
    seen: list[Any] = []

    def answer(question: str, history: list[Message]) -> str:
        seen.append((question, history))
        return "12 EUR."

    adapter = CallableAdapter(answer)
    response = asyncio.run(adapter.aquery_turn("And for business?", HISTORY))
    assert response.answer == "12 EUR." and seen == [("And for business?", HISTORY)]
    asyncio.run(adapter.aquery("One question?"))  # a case: an empty history
    assert seen[-1] == ("One question?", [])


def test_an_async_function_with_a_history_parameter() -> None:
    async def answer(question: str, history: list[Message]) -> str:
        return f"{len(history)} earlier messages"

    response = asyncio.run(CallableAdapter(answer).aquery_turn("q", HISTORY))
    assert response.answer == "2 earlier messages"


def test_a_function_of_the_question_alone_cannot_run_a_conversation() -> None:
    def answer(question: str, top_k: int = 3) -> str:  # a default: not a history
        return "x"

    adapter = CallableAdapter(answer)
    assert asyncio.run(adapter.aquery("q")).answer == "x"
    with pytest.raises(AdapterError, match="takes one question, not a conversation's history"):
        asyncio.run(CallableAdapter(lambda q: "x").aquery_turn("q", HISTORY))
    assert asyncio.run(adapter.aquery_turn("q", HISTORY)).answer == "x"  # takes a second one


def test_an_object_whose_query_takes_a_history() -> None:
    class Chat:
        def query(self, question: str, history: list[Message]) -> str:
            return str(len(history))

    assert asyncio.run(as_adapter(Chat()).aquery_turn("q", HISTORY)).answer == "2"


def test_a_custom_adapter_implements_query_turn_or_is_refused() -> None:
    class OneQuestion(RAGAdapter):
        def query(self, question: str) -> RAGResponse:
            return RAGResponse(answer="x")

    class Turns(OneQuestion):
        def query_turn(self, question: str, history: Any) -> RAGResponse:
            return RAGResponse(answer=str(len(history)))

    with pytest.raises(AdapterError, match="implement query_turn"):
        asyncio.run(OneQuestion().aquery_turn("q", HISTORY))
    assert asyncio.run(Turns().aquery_turn("q", HISTORY)).answer == "2"


def test_the_http_template_sends_the_history_and_the_messages() -> None:
    template = {"messages": "{messages}", "history": "{history}", "q": "Q: {question}"}
    body = _fill(template, "And for business?", HISTORY)
    assert body["history"] == HISTORY
    assert body["messages"] == [*HISTORY, {"role": "user", "content": "And for business?"}]
    assert body["q"] == "Q: And for business?"
    single = _fill(template, "q")
    assert single["history"] == [] and single["messages"] == [{"role": "user", "content": "q"}]
    inside = _fill({"prompt": "{history} then {question}"}, "q", HISTORY)
    assert inside["prompt"].startswith('[{"role": "user", "content": "What does')


def test_an_http_template_without_the_history_refuses_a_conversation() -> None:
    from rag_eval_pytest.adapters.http import HttpAdapter

    adapter = HttpAdapter("http://127.0.0.1:9/rag")
    with pytest.raises(AdapterError, match=r"put \"\{history\}\".*in http.body"):
        asyncio.run(adapter.aquery_turn("q", HISTORY))


def test_langchain_gets_input_and_chat_history() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.runnables import RunnableLambda

    from rag_eval_pytest.adapters.langchain import LangChainAdapter

    seen: list[Any] = []

    def chain(inputs: dict[str, Any]) -> str:
        seen.append(inputs)
        return "12 EUR."

    adapter = LangChainAdapter(RunnableLambda(chain))
    assert asyncio.run(adapter.aquery_turn("And for business?", HISTORY)).answer == "12 EUR."
    assert seen == [
        {
            "input": "And for business?",
            "chat_history": [("human", "What does an account cost?"), ("ai", "5 EUR a month.")],
        }
    ]


def test_llamaindex_chat_engine_gets_the_chat_history() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.llms import ChatMessage, MessageRole

    from rag_eval_pytest.adapters.llamaindex import LlamaIndexAdapter

    class Reply:
        response = "12 EUR."
        source_nodes: tuple[Any, ...] = ()

    class ChatEngine:
        def __init__(self) -> None:
            self.seen: list[Any] = []

        async def achat(self, message: str, chat_history: list[ChatMessage]) -> Reply:
            self.seen.append((message, chat_history))
            return Reply()

    engine = ChatEngine()
    adapter = LlamaIndexAdapter(engine)
    assert asyncio.run(adapter.aquery_turn("And for business?", HISTORY)).answer == "12 EUR."
    ((message, history),) = engine.seen
    assert message == "And for business?"
    assert [(m.role, m.content) for m in history] == [
        (MessageRole.USER, "What does an account cost?"),
        (MessageRole.ASSISTANT, "5 EUR a month."),
    ]
