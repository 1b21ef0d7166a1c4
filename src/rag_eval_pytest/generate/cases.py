"""A generated case before it is written: its kind, question, ground truth and source chunks.

Both generators make these; :mod:`.output` writes them as dataset cases. The kinds are the
tags a generated case carries (``extractive`` offline; ``single``, ``multi_hop``,
``comparison``, ``conditional``, ``unanswerable`` and ``conversation`` from an LLM judge).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .chunking import Chunk

Kind = Literal["extractive", "single", "multi_hop", "comparison", "conditional", "unanswerable"]
LLM_KINDS: tuple[Kind, ...] = ("single", "multi_hop", "comparison", "conditional", "unanswerable")
"""The kinds of question an LLM judge writes, in the order ``--types`` lists them."""
CONVERSATION = "conversation"
TWO_CHUNK_KINDS = frozenset({"multi_hop", "comparison"})
"""Kinds written from two chunks: a question that needs both."""


@dataclass(frozen=True)
class Turn:
    """One turn of a generated conversation."""

    question: str
    ground_truth: str
    chunks: tuple[Chunk, ...]


@dataclass(frozen=True)
class Generated:
    """One generated case: a question (``ground_truth`` ``None`` for an unanswerable one),
    or a conversation's ``turns``; ``chunks`` it was made from; ``rule`` the extractive rule
    that made its question."""

    kind: str
    question: str
    ground_truth: str | None
    chunks: tuple[Chunk, ...]
    rule: str | None = None
    turns: tuple[Turn, ...] = field(default=())

    @property
    def tags(self) -> list[str]:
        return [CONVERSATION] if self.turns else [self.kind]
