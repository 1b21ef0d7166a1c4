"""A key given twice in one JSON object or YAML mapping is an error naming the key (and, in
YAML, its line), never "the last one wins"; a YAML merge key may still be overridden."""

from __future__ import annotations

import json

import pytest
import yaml

from rag_eval_pytest.data.duplicate_keys import (
    DuplicateKeyError,
    unique_keys,
    unique_keys_yaml_loader,
    yaml_problem,
)


def test_json_objects_with_distinct_keys_load_as_usual() -> None:
    text = '{"a": 1, "b": {"a": 2}}'  # the same key in two objects is fine
    assert json.loads(text, object_pairs_hook=unique_keys) == {"a": 1, "b": {"a": 2}}


def test_a_json_key_given_twice_is_named() -> None:
    with pytest.raises(DuplicateKeyError) as info:
        json.loads(
            '{"test_cases": [{"id": "a", "question": "q", "id": "b"}]}',
            object_pairs_hook=unique_keys,
        )
    assert str(info.value) == "the key 'id' appears twice in one object"


def test_a_yaml_key_given_twice_is_named_with_its_line() -> None:
    text = "test_cases:\n  - id: a\n    question: q\n    question: r\n"
    with pytest.raises(DuplicateKeyError) as info:
        yaml.load(text, Loader=unique_keys_yaml_loader())
    assert str(info.value) == "the key 'question' appears twice in one mapping (line 4)"


def test_yaml_keys_that_differ_and_merge_keys_are_accepted() -> None:
    text = "base: &b\n  x: 1\n  y: 2\nchild:\n  <<: *b\n  y: 3\n"
    data = yaml.load(text, Loader=unique_keys_yaml_loader())
    assert data["child"] == {"x": 1, "y": 3}


def test_yaml_stays_safe() -> None:
    assert issubclass(unique_keys_yaml_loader(), yaml.SafeLoader)
    with pytest.raises(yaml.YAMLError):
        yaml.load("!!python/object/apply:os.system ['true']", Loader=unique_keys_yaml_loader())


def test_a_yaml_parse_error_is_worded_with_its_place() -> None:
    with pytest.raises(yaml.YAMLError) as info:
        yaml.load("a: [1, 2\nb: 3\n", Loader=unique_keys_yaml_loader())
    text = yaml_problem(info.value)
    assert text.startswith("invalid YAML at line ")
    line = int(text.split("at line ")[1].split(",")[0])
    assert line in (2, 3)  # where the unclosed list was found to be broken
    assert ", column " in text


def test_a_yaml_error_without_a_place_keeps_its_first_line() -> None:
    assert yaml_problem(yaml.YAMLError("bad thing\nmore detail")) == "invalid YAML: bad thing"
