"""A LangChain RAG chain over the demo documents: a retriever, a prompt, a model.

The model is langchain-core's fake chat model (no network, no key); swap in any chat model
(`ChatAnthropic`, `ChatOpenAI`, ...) and the plugin evaluates it the same way. The chain's
output has the common shape ``{"question", "context": [Document], "answer"}``.
"""

from __future__ import annotations

from typing import Any

from demo_rag.app import DemoRag
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

_rag = DemoRag()
PROMPT = ChatPromptTemplate.from_template(
    "Answer from the context only.\nContext: {context}\nQuestion: {question}"
)


def _retrieve(question: str) -> list[Document]:
    return [
        Document(page_content=passage.text, metadata={"source": passage.source})
        for passage in _rag.retrieve(question)
    ]


def _answer_from_documents(inputs: dict[str, Any]) -> str:
    # Stands in for a model's answer: the retrieved text, as the demo app composes it.
    return str(_rag.answer(inputs["question"])["answer"])


def build_chain(model: Any = None) -> Any:
    answer = (
        RunnableLambda(_answer_from_documents)
        if model is None
        else PROMPT | model | StrOutputParser()
    )
    return RunnableParallel(
        context=RunnableLambda(_retrieve), question=RunnablePassthrough()
    ).assign(answer=answer)


chain = build_chain()
fake_model_chain = build_chain(FakeListChatModel(responses=["I don't know."]))
