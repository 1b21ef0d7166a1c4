"""Deterministic checks that catch what embedding similarity misses.

Similarity says "these are about the same thing"; it cannot tell 20 days from 30 days, a
claim from its negation, or Paris from Lyon. Each check compares a claim with its best
evidence and returns a human-readable problem ("claims 30 days; the context says 20 days")
or nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "ours",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "too",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "also",
        "about",
        "any",
        "each",
        "all",
        "some",
        "such",
        "only",
        "own",
        "same",
        "just",
        "should",
        "may",
        "might",
        "must",
        "shall",
        "very",
        "more",
        "most",
        "other",
        "up",
        "out",
        "over",
        "under",
        "again",
        "further",
        "once",
        "here",
        "both",
        "few",
        "nor",
        "off",
        "until",
        "because",
        "during",
        "before",
        "after",
        "above",
        "below",
        "between",
        "through",
    ]
)
NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "cannot",
        "without",
        "n't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "don't",
        "doesn't",
        "didn't",
        "won't",
        "can't",
        "couldn't",
        "shouldn't",
        "wouldn't",
    ]
)
_NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "fifteen": "15",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "thousand": "1000",
    "half": "0.5",
    "once": "1",
    "twice": "2",
}
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:[.,]\d+)*%?")
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*%?$")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _stem(word: str) -> str:
    word = word.lower().strip("'-")
    for suffix in ("ies", "es", "s", "ing", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def content_words(text: str) -> set[str]:
    return {
        _stem(t)
        for t in tokens(text)
        if not _NUMBER.match(t)
        and t.lower() not in STOPWORDS
        and t.lower() not in NEGATIONS
        and len(t) > 2
    }


def coverage(claim: str, evidence: str) -> float:
    """Share of the claim's content words (stemmed) found in the evidence."""
    words = content_words(claim)
    if not words:
        return 1.0
    return len(words & content_words(evidence)) / len(words)


@dataclass(frozen=True)
class Quantity:
    value: str
    unit: str  # the word after the number, stemmed ("" when none)
    text: str  # as written

    def show(self) -> str:
        return self.text


def _normal_number(token: str) -> str:
    token = token.lower()
    token = _NUMBER_WORDS.get(token, token)
    token = token.replace(",", "")
    if token.endswith(".0"):
        token = token[:-2]
    return token


def quantities(text: str) -> list[Quantity]:
    words = tokens(text)
    found = []
    for i, word in enumerate(words):
        if _NUMBER.match(word) or word.lower() in _NUMBER_WORDS:
            nxt = words[i + 1] if i + 1 < len(words) else ""
            unit = "" if _NUMBER.match(nxt) or nxt.lower() in STOPWORDS else _stem(nxt)
            if word.lower() in ("once", "twice", "half") and not unit:
                continue
            shown = f"{word} {nxt}" if unit else word
            found.append(Quantity(_normal_number(word), unit, shown))
    return found


def number_conflict(claim: str, evidence: str) -> str | None:
    """A number of the claim that the evidence does not state."""
    stated = quantities(evidence)
    values = {q.value for q in stated}
    for q in quantities(claim):
        if q.value in values:
            continue
        same_unit = [s for s in stated if q.unit and s.unit == q.unit]
        if same_unit:
            return f"claims {q.show()}; the context says {same_unit[0].show()}"
        return f"claims {q.show()}; the context states no such number"
    return None


def negated(text: str) -> bool:
    return any(t.lower() in NEGATIONS or t.lower().endswith("n't") for t in tokens(text))


def negation_conflict(claim: str, evidence: str) -> str | None:
    if negated(claim) != negated(evidence):
        said = "negates" if negated(claim) else "affirms"
        return f"the claim {said} what the context states the other way"
    return None


def _names(text: str) -> set[str]:
    """Capitalised words that are not the first word of the text: likely names."""
    words = tokens(text)
    return {w for w in words[1:] if w[:1].isupper() and w.lower() not in STOPWORDS}


def entity_conflict(claim: str, evidence: str) -> str | None:
    missing = sorted(_names(claim) - set(tokens(evidence)))
    if missing:
        return f"names {', '.join(missing)}, which the context does not mention"
    return None
