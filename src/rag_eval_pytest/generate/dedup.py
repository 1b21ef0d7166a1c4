"""Near-duplicate questions left out of a generated set.

Two checks. By words, always (:class:`Deduplicator`): a question whose content words are
mostly those of one already kept (Jaccard at least :data:`WORD_OVERLAP`), or whose ground
truth is the same sentence. By meaning, for an LLM judge's questions, which paraphrase
(:func:`near_duplicates`): the embeddings the local judge ships, a cosine of at least
:data:`SAME_MEANING` between two questions. The first question of each near-duplicate group
is kept; the order is the generation's, so the choice is the same for the same input.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from ..text.words import content_words

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Sequence

    Embed = Callable[[list[str]], Awaitable[list[list[float]]]]

WORD_OVERLAP = 0.8
SAME_MEANING = 0.92
"""The cosine of two questions' all-MiniLM-L6-v2 embeddings from which they are taken as
one question reworded."""
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")


def _words(text: str) -> frozenset[str]:
    return content_words(text) | frozenset(_DIGITS.findall(text))


def _normal(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


class Deduplicator:
    """The questions kept so far (and those of a dataset appended to); :meth:`add` keeps a
    question unless it nearly repeats one of them."""

    def __init__(self, existing: Iterable[str] = ()) -> None:
        self._texts: set[str] = set()
        self._truths: set[str] = set()
        self._words: list[frozenset[str]] = []
        self.dropped = 0
        for question in existing:
            self._remember(question, None)

    def duplicate(self, question: str, ground_truth: str | None = None) -> bool:
        if _normal(question) in self._texts:
            return True
        if ground_truth is not None and _normal(ground_truth) in self._truths:
            return True
        words = _words(question)
        return bool(words) and any(_jaccard(words, kept) >= WORD_OVERLAP for kept in self._words)

    def add(self, question: str, ground_truth: str | None = None) -> bool:
        """Keep ``question`` unless it nearly repeats one kept: whether it was kept."""
        if self.duplicate(question, ground_truth):
            self.dropped += 1
            return False
        self._remember(question, ground_truth)
        return True

    def _remember(self, question: str, ground_truth: str | None) -> None:
        self._texts.add(_normal(question))
        if ground_truth is not None:
            self._truths.add(_normal(ground_truth))
        self._words.append(_words(question))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    return dot / norm if norm else 0.0


async def near_duplicates(
    questions: Sequence[str], embed: Embed, existing: Sequence[str] = ()
) -> set[int]:
    """The positions of ``questions`` that reword an earlier one (or one of ``existing``)."""
    if not questions:
        return set()
    vectors = await embed([*existing, *questions])
    kept = list(vectors[: len(existing)])
    dropped: set[int] = set()
    for index, vector in enumerate(vectors[len(existing) :]):
        if any(_cosine(vector, other) >= SAME_MEANING for other in kept):
            dropped.add(index)
        else:
            kept.append(vector)
    return dropped
