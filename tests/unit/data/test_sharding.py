"""``--rag-shard I/N``: every N-th case from the I-th, by position across the datasets, so
the N shards together run every case exactly once; a malformed shard says what is expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_eval_pytest.data.dataset import Case, DatasetCollection, LoadedCase
from rag_eval_pytest.data.sharding import Shard, parse_shard, select_shard


def collection(count: int) -> DatasetCollection:
    cases = [
        LoadedCase(key=f"c{i}", index=i, case=Case(question=f"q{i}?"), dataset=Path("d.json"))
        for i in range(count)
    ]
    return DatasetCollection(datasets=[], cases=cases, warnings=["w"], total_cases=count)


@pytest.mark.parametrize(("text", "shard"), [("2/4", Shard(2, 4)), (" 1 / 1 ", Shard(1, 1))])
def test_parse(text: str, shard: Shard) -> None:
    assert parse_shard(text) == shard
    assert str(shard) == text.replace(" ", "")


@pytest.mark.parametrize("text", ["2", "a/b", "2/4/8", "-1/4", ""])
def test_a_malformed_shard_says_the_form(text: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_shard(text)
    assert str(info.value) == f"{text!r} is not a shard: expected I/N, e.g. 1/4"


@pytest.mark.parametrize("text", ["0/4", "5/4", "0/0", "1/0"])
def test_an_index_outside_1_to_n_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="I must be between 1 and N"):
        parse_shard(text)


def test_shards_take_every_nth_case_and_together_take_each_once() -> None:
    whole = collection(10)
    picked = [[c.key for c in select_shard(whole, Shard(i, 3)).cases] for i in (1, 2, 3)]
    assert picked == [["c0", "c3", "c6", "c9"], ["c1", "c4", "c7"], ["c2", "c5", "c8"]]
    assert sorted(key for keys in picked for key in keys) == sorted(c.key for c in whole.cases)


def test_a_shard_keeps_the_rest_of_the_collection_and_leaves_it_unchanged() -> None:
    whole = collection(4)
    part = select_shard(whole, Shard(2, 2))
    assert part.warnings == ["w"] and part.total_cases == 4
    assert list(part.by_key()) == ["c1", "c3"]
    assert len(whole.cases) == 4


def test_more_shards_than_cases_leaves_some_empty() -> None:
    assert select_shard(collection(2), Shard(3, 4)).cases == []
