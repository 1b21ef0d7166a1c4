"""Wire the RAG system under test: here, the demo app in examples/demo_rag.

Copy this pattern into your own conftest.py: return any callable ``question -> (answer,
contexts)`` (or a dict, or a RAGResponse), or an adapter such as ``CallableAdapter``. The demo
app's ``chat(question, history=())`` answers single questions and conversations' turns alike:
a callable with a second parameter gets each turn's earlier turns as its history.
"""

from __future__ import annotations

import pytest
from demo_rag import chat

from rag_eval_pytest import CallableAdapter


@pytest.fixture(scope="session")
def rag_adapter() -> CallableAdapter:
    return CallableAdapter(chat)
