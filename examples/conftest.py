"""Wire the RAG system under test: here, the demo app in examples/demo_rag.

Copy this pattern into your own conftest.py: return any callable ``question -> (answer,
contexts)`` (or a dict, or a RAGResponse), or an adapter such as ``CallableAdapter``.
"""

from __future__ import annotations

import pytest
from demo_rag import answer

from rag_eval_pytest import CallableAdapter


@pytest.fixture(scope="session")
def rag_adapter() -> CallableAdapter:
    return CallableAdapter(answer)
