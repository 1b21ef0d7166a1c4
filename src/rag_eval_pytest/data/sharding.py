"""Sharding for CI matrices: ``--rag-shard I/N`` runs every N-th case, starting at the I-th.

Cases are assigned by their position in the datasets (round robin), so every shard gets a
share of the critical cases and of each dataset, and the N shards together run every case
once. ``rag-eval merge`` puts the shards' reports back together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .dataset import DatasetCollection

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"2/4"`` -> ``Shard(2, 4)``; raises ``ValueError`` with what is expected."""
    match = _SHARD.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a shard: expected I/N, e.g. 1/4")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"{text!r} is not a shard: I must be between 1 and N")
    return Shard(index, count)


def select_shard(collection: DatasetCollection, shard: Shard) -> DatasetCollection:
    """The cases of ``shard``, by their position among all cases."""
    cases = [c for c in collection.cases if c.index % shard.count == shard.index - 1]
    return replace(collection, cases=cases)
