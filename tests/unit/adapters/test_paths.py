"""Response paths: how ``data.answer``, ``results[0].text`` and ``docs[*].source`` are read,
and the error naming the exact step where a response does not match."""

from __future__ import annotations

import re

import pytest

from rag_eval_pytest.adapters.paths import EACH, PathError, ResponsePath

RESPONSE = {
    "data": {
        "answer": "Paris",
        "documents": [
            {"text": "one", "metadata": {"source": "a.md"}},
            {"text": "two", "metadata": {"source": "b.md"}},
        ],
    },
    "flag": True,
}


def test_parse_splits_keys_indexes_and_each() -> None:
    assert ResponsePath.parse("data.answer").steps == ("data", "answer")
    assert ResponsePath.parse("results[0].text").steps == ("results", 0, "text")
    assert ResponsePath.parse("docs[*].source").steps == ("docs", EACH, "source")
    assert ResponsePath.parse("items[-1]").steps == ("items", -1)
    assert ResponsePath.parse("  answer  ").text == "answer"


@pytest.mark.parametrize(
    ("text", "where"),
    [("data..answer", 5), ("a[x]", 2), ("a]", 2), ("a[0]b", 5)],
)
def test_an_invalid_path_names_the_character(text: str, where: int) -> None:
    expected = re.escape(f"invalid response path {text!r} at character {where}")
    with pytest.raises(ValueError, match=expected):
        ResponsePath.parse(text)


def test_an_empty_path_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be empty"):
        ResponsePath.parse("   ")


def test_extract_follows_keys_indexes_and_maps_each() -> None:
    assert ResponsePath.parse("data.answer").extract(RESPONSE) == "Paris"
    assert ResponsePath.parse("data.documents[1].text").extract(RESPONSE) == "two"
    assert ResponsePath.parse("data.documents[-1].text").extract(RESPONSE) == "two"
    sources = ResponsePath.parse("data.documents[*].metadata.source").extract(RESPONSE)
    assert sources == ["a.md", "b.md"]
    assert ResponsePath.parse("[*]").extract([1, 2]) == [1, 2]


def test_a_missing_key_names_the_path_so_far_and_the_keys_there() -> None:
    with pytest.raises(PathError) as info:
        ResponsePath.parse("data.answr").extract(RESPONSE)
    assert info.value.where == "data.answr"
    assert info.value.path == "data.answr"
    assert str(info.value) == "data.answr: missing (keys there: answer, documents)"


def test_a_missing_index_names_the_list_length() -> None:
    with pytest.raises(PathError) as info:
        ResponsePath.parse("data.documents[2].text").extract(RESPONSE)
    assert str(info.value) == "data.documents[2]: missing (the list has 2 items)"


def test_a_step_into_the_wrong_kind_of_value_names_what_was_found() -> None:
    with pytest.raises(PathError, match=r"^flag\.x: missing \(flag is a boolean\)$"):
        ResponsePath.parse("flag.x").extract(RESPONSE)
    with pytest.raises(PathError, match=r"^data\.answer: expected a list, found a string$"):
        ResponsePath.parse("data.answer[0]").extract(RESPONSE)
    with pytest.raises(PathError, match=r"^response: expected a list, found an object$"):
        ResponsePath.parse("[*]").extract({"a": 1})
    with pytest.raises(PathError, match=r"^answer: missing \(response is null\)$"):
        ResponsePath.parse("answer").extract(None)


def test_a_failure_inside_each_names_the_element() -> None:
    data = {"docs": [{"source": "a"}, {"id": 2}]}
    with pytest.raises(PathError) as info:
        ResponsePath.parse("docs[*].source").extract(data)
    assert info.value.where == "docs[1].source"
    assert "keys there: id" in info.value.reason


def test_the_keys_listed_are_sorted_and_at_most_ten() -> None:
    data = {f"k{n:02d}": n for n in range(15, 0, -1)}
    with pytest.raises(PathError) as info:
        ResponsePath.parse("missing").extract(data)
    listed = info.value.reason.removeprefix("missing (keys there: ").removesuffix(")")
    assert listed.split(", ") == [f"k{n:02d}" for n in range(1, 11)]
