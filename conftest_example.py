"""A starting point for your own ``conftest.py``: copy it next to your RAG tests.

Then run ``pytest --rag-dataset path/to/dataset.json``. Every test that takes ``rag_case``
runs once per dataset case.
"""

from __future__ import annotations

import pytest

from rag_eval_pytest import CallableAdapter, RAGResponse


def answer(question: str) -> RAGResponse:
    """Replace with a call into your RAG system.

    Return ``(answer, contexts)``, a dict with ``answer``/``contexts``/``sources``, or a
    ``RAGResponse``. Contexts are strings or ``{"text": ..., "source": ...}``; return
    ``contexts=None`` when your system cannot say what it retrieved.
    """
    raise NotImplementedError("wire your RAG system here")


@pytest.fixture(scope="session")
def rag_adapter() -> CallableAdapter:
    """How the plugin reaches the RAG system under test (sync or async callables work)."""
    return CallableAdapter(answer)
