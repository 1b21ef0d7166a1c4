"""Evaluate a LangChain chain: return it from ``rag_adapter`` (or run
``pytest --rag-adapter langchain --rag-target rag_chain:chain``
without this conftest)."""

from __future__ import annotations

from typing import Any

import pytest
from rag_chain import chain

from rag_eval_pytest.adapters.langchain import LangChainAdapter


@pytest.fixture(scope="session")
def rag_adapter() -> Any:
    # answer_key / context_key name the chain's output keys ("answer" / "context" here).
    return LangChainAdapter(chain, answer_key="answer", context_key="context")
