"""``CallableAdapter`` and ``as_adapter``: a sync or async function, a ``module:function``
string or a duck-typed object is the RAG system; its latency is measured unless it reports
its own, and what it returns goes through ``to_response`` with its name in any error."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.adapters.base import RAGAdapter
from rag_eval_pytest.adapters.callable import CallableAdapter, as_adapter, with_latency
from rag_eval_pytest.data.response import RAGResponse
from rag_eval_pytest.errors import AdapterError, ConfigError


def answer(question: str) -> tuple[str, list[str]]:
    return f"answer to {question}", ["a context"]


async def async_answer(question: str) -> dict[str, Any]:
    return {"answer": question[::-1], "contexts": []}


def test_a_sync_function_is_queried_and_timed() -> None:
    adapter = CallableAdapter(answer)
    response = asyncio.run(adapter.aquery("q"))
    assert response.answer == "answer to q"
    assert [c.text for c in response.contexts or []] == ["a context"]
    assert response.latency is not None and response.latency >= 0
    assert adapter.describe() == "callable answer"
    assert adapter.kind == "callable"


def test_an_async_function_is_awaited_by_aquery_and_by_query() -> None:
    adapter = CallableAdapter(async_answer)
    assert asyncio.run(adapter.aquery("abc")).answer == "cba"
    assert adapter.query("abc").answer == "cba"


def test_a_sync_function_returning_an_awaitable_is_awaited() -> None:
    def deferred(question: str) -> Any:
        return async_answer(question)

    assert asyncio.run(CallableAdapter(deferred).aquery("xy")).answer == "yx"


def test_a_latency_the_system_reports_is_kept() -> None:
    def reports(question: str) -> RAGResponse:
        return RAGResponse(answer="a", contexts=[], latency=12.5)

    assert asyncio.run(CallableAdapter(reports).aquery("q")).latency == 12.5
    measured = with_latency(RAGResponse(answer="a"), 0.25)
    assert measured.latency == 0.25


def test_a_bad_return_value_names_the_callable() -> None:
    def broken(question: str) -> int:
        return 7

    with pytest.raises(AdapterError, match=r"^RAG callable .*broken returned int;"):
        asyncio.run(CallableAdapter(broken).aquery("q"))


def test_a_target_string_is_loaded_from_a_file_in_the_search_paths(tmp_path: Path) -> None:
    (tmp_path / "my_rag.py").write_text(
        "def reply(question):\n    return 'from file: ' + question\n"
    )
    adapter = CallableAdapter("my_rag.py:reply", search_paths=[tmp_path])
    assert adapter.describe() == "callable my_rag.py:reply"
    assert adapter.query("q").answer == "from file: q"


def test_a_target_that_is_not_callable_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"target 'math:pi' is not callable"):
        CallableAdapter("math:pi")


def test_as_adapter_keeps_an_adapter_and_wraps_the_rest() -> None:
    adapter = CallableAdapter(answer)
    assert as_adapter(adapter) is adapter
    assert isinstance(as_adapter(answer), CallableAdapter)

    class Engine:
        def query(self, question: str) -> str:
            return "duck " + question

    duck = as_adapter(Engine())
    assert isinstance(duck, RAGAdapter)
    assert duck.describe() == "Engine"
    assert asyncio.run(duck.aquery("q")).answer == "duck q"


def test_a_duck_adapter_prefers_aquery_and_names_the_class_in_errors() -> None:
    class Both:
        def query(self, question: str) -> str:
            return "sync"

        async def aquery(self, question: str) -> str:
            return "async"

    assert asyncio.run(as_adapter(Both()).aquery("q")).answer == "async"

    class Bad:
        def query(self, question: str) -> list[str]:
            return ["not", "a", "response"]

    with pytest.raises(AdapterError, match=r"^Bad\.query returned list;"):
        asyncio.run(as_adapter(Bad()).aquery("q"))


def test_as_adapter_refuses_anything_else_and_says_what_to_return() -> None:
    with pytest.raises(ConfigError, match=r"rag_adapter returned int; return a callable"):
        as_adapter(3)
