"""Relevance without an LLM: of an answer to its question, of a context sentence to a question.

Both are logistic models on a few signals, fitted on the dev halves of human-labelled sets
(``benchmarks/judge_accuracy.py --fit``). For an answer: the embedding similarity of question
and answer, the share of the question's content words the answer contains, and whether it
holds the kind of thing the question asks for (a number for "how many", a date for "when", a
name for "who"). For a context sentence: its similarity to the question. Similarity alone
rewards being on topic; these sets' negatives are on topic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ...text.facts import content_words, dates, names, quantities
from .support import logistic

if TYPE_CHECKING:
    from collections.abc import Sequence

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class LogisticModel:
    """Weights, bias and the probability from which the text counts as relevant
    (``support``); ``shown_at`` is the score that probability is shown as (the metric's
    default threshold), so that the default threshold and the fitted cut agree."""

    weights: tuple[float, ...]
    bias: float
    support: float = 0.5
    shown_at: float = 0.5

    def probability(self, features: Sequence[float]) -> float:
        return logistic(self.weights, self.bias, features)

    def score(self, features: Sequence[float]) -> float:
        """The probability mapped piecewise-linearly so that ``support`` shows as
        ``shown_at`` (monotone: the ranking is the probability's)."""
        p = self.probability(features)
        if p <= self.support:
            value = p / self.support * self.shown_at if self.support > 0 else 0.0
        else:
            value = self.shown_at + (p - self.support) / (1 - self.support) * (1 - self.shown_at)
        return round(min(1.0, max(0.0, value)), 4)


# Fitted by ``python benchmarks/judge_accuracy.py --fit`` (see benchmarks/README.md).
RELEVANCE = LogisticModel(weights=(2.68, 0.59, 0.69), bias=-2.15, support=0.57, shown_at=0.7)
SENTENCE_RELEVANCE = LogisticModel(weights=(1.72,), bias=-0.46, support=0.65)

_WH = re.compile(
    r"\b(who|whom|whose|when|where|what year|how (many|much|long|old|far|big))\b", re.I
)


def question_coverage(question: str, text: str) -> float:
    """Share of the question's content words found in the text."""
    words = content_words(question)
    if not words:
        return 0.0
    return len(words & content_words(text)) / len(words)


def expected_type_found(question: str, answer: str) -> float:
    """1 when the answer holds what the question's wh-word asks for, 0 when it does not,
    0.5 when the question asks for no particular kind of thing."""
    match = _WH.search(question)
    if match is None:
        return 0.5
    wh = match.group(0).lower()
    if wh.startswith("how") or wh == "what year":
        found = bool(quantities(answer) or dates(answer))
    elif wh == "when":
        found = bool(dates(answer)) or bool(
            re.search(r"\b(century|decade|year|season|after|before|during)\b", answer, re.I)
        )
    else:  # who, whom, whose, where: a name
        found = bool(names(answer))
    return 1.0 if found else 0.0


def answer_features(question: str, answer: str, q: Vector, a: Vector) -> list[float]:
    return [
        float(q @ a),
        question_coverage(question, answer),
        expected_type_found(question, answer),
    ]


def answer_relevance(
    question: str, answer: str, q: Vector, a: Vector, model: LogisticModel = RELEVANCE
) -> tuple[float, str]:
    """(score 0..1, reason) of how well the answer addresses the question."""
    features = answer_features(question, answer, q, a)
    score = model.score(features)
    parts = [
        f"similarity to the question {features[0]:.2f}",
        f"{features[1]:.0%} of the question's words",
    ]
    if features[2] == 0.0:
        parts.append("it does not contain what the question asks for")
    return score, "; ".join(parts)


def sentence_features(q: Vector, vectors: list[Vector]) -> list[list[float]]:
    """Per sentence: its similarity to the question. (Its neighbours' similarity and the
    question's words were tried and left out: on the dev queries they did not help, and a
    neighbour would make an unrelated sentence "relevant".)"""
    own = np.vstack(vectors) @ q
    return [[float(x)] for x in own]


def sentence_relevance(
    question: str,
    sentences: list[str],
    q: Vector,
    vectors: list[Vector],
    model: LogisticModel = SENTENCE_RELEVANCE,
) -> list[float]:
    """Relevance probability of each context sentence to the question."""
    if not sentences:
        return []
    return [model.probability(f) for f in sentence_features(q, vectors)]
