"""Evaluate a LlamaIndex query engine (or an index): return it from ``rag_adapter``, or run
``pytest --rag-adapter llamaindex --rag-target
query_engine:query_engine`` without this conftest."""

from __future__ import annotations

from typing import Any

import pytest
from query_engine import query_engine

from rag_eval_pytest.adapters.llamaindex import LlamaIndexAdapter


@pytest.fixture(scope="session")
def rag_adapter() -> Any:
    # Sources come from each source node's metadata (file_name here; source_key= to choose).
    return LlamaIndexAdapter(query_engine)
