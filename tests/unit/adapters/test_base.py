"""What a RAG callable may return, and what it may not: ``to_response`` accepts a response,
an ``(answer, contexts[, sources])`` tuple, a mapping with ``answer`` or a bare string, and
every other value is one ``AdapterError`` naming where it came from and what was wrong."""

from __future__ import annotations

import asyncio

import pytest

from rag_eval_pytest.adapters.base import RAGAdapter, to_response
from rag_eval_pytest.data.response import Context, RAGResponse
from rag_eval_pytest.errors import AdapterError

ORIGIN = "RAG callable app:answer"


def test_a_bare_string_is_an_answer_with_unknown_contexts() -> None:
    response = to_response("Paris", origin=ORIGIN)
    assert response.answer == "Paris"
    assert response.contexts is None  # unknown, not "retrieved nothing"


def test_a_pair_is_answer_and_contexts_and_a_triple_adds_sources() -> None:
    pair = to_response(("Paris", ["France's capital is Paris."]), origin=ORIGIN)
    assert pair.contexts == [Context(text="France's capital is Paris.")]
    assert pair.sources == []
    triple = to_response(("Paris", [], ["doc-1", "doc-2"]), origin=ORIGIN)
    assert triple.contexts == []
    assert triple.retrieved_sources == ["doc-1", "doc-2"]


def test_a_mapping_keeps_its_known_fields_and_ignores_the_others() -> None:
    response = to_response(
        {"answer": "Paris", "contexts": [{"text": "t", "source": "a.md"}], "debug": {"x": 1}},
        origin=ORIGIN,
    )
    assert response.answer == "Paris"
    assert response.retrieved_sources == ["a.md"]


def test_a_response_is_returned_as_it_is() -> None:
    given = RAGResponse(answer="Paris", contexts=[])
    assert to_response(given, origin=ORIGIN) is given


def test_a_mapping_without_an_answer_names_its_keys() -> None:
    with pytest.raises(AdapterError) as info:
        to_response({"text": "Paris", "docs": []}, origin=ORIGIN)
    message = str(info.value)
    assert message.startswith(ORIGIN)
    assert "without 'answer'" in message and "text, docs" in message
    with pytest.raises(AdapterError, match=r"keys: none"):
        to_response({}, origin=ORIGIN)


def test_an_invalid_field_is_named_in_the_error() -> None:
    with pytest.raises(AdapterError) as info:
        to_response(("Paris", "one context, not a list"), origin=ORIGIN)
    message = str(info.value)
    assert message.startswith(f"{ORIGIN} returned an unusable response: field 'contexts'")
    assert "put it in a list" in message
    assert "Value error" not in message  # pydantic's wording, not ours


def test_an_answer_of_the_wrong_type_is_named() -> None:
    with pytest.raises(AdapterError, match=r"field 'answer'"):
        to_response({"answer": 42}, origin=ORIGIN)


@pytest.mark.parametrize("value", [None, 3, ["Paris", []], ("only one",), ("a", [], [], "x")])
def test_any_other_value_says_what_was_expected(value: object) -> None:
    with pytest.raises(AdapterError) as info:
        to_response(value, origin=ORIGIN)
    message = str(info.value)
    assert message.startswith(f"{ORIGIN} returned {type(value).__name__};")
    assert "(answer, contexts)" in message


def test_an_adapter_that_implements_nothing_says_so() -> None:
    class Empty(RAGAdapter):
        pass

    with pytest.raises(NotImplementedError, match="Empty implements neither query nor aquery"):
        asyncio.run(Empty().aquery("q"))


def test_a_sync_adapter_is_awaitable_and_describes_itself_without_secrets() -> None:
    class Sync(RAGAdapter):
        def query(self, question: str) -> RAGResponse:
            return RAGResponse(answer=question.upper(), contexts=[])

    adapter = Sync()
    assert asyncio.run(adapter.aquery("hi")).answer == "HI"
    assert adapter.describe() == "Sync"
    assert adapter.secrets() == []
    assert adapter.kind == "custom"
