"""The demo RAG app: retrieval by word overlap, answers composed from retrieved sentences.

``answer(question)`` answers one question; ``chat(question, history)`` answers one turn of a
conversation, reading a follow-up ("And how quickly?") with the user's previous question.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

DOCS_DIR = Path(__file__).with_name("docs")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "my",
        "of",
        "on",
        "or",
        "the",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)
# The composer's own additions: the "hallucinations" the report should catch.
_EMBELLISHMENTS = {
    "refunds.md": "Refunds are usually processed within 24 hours.",
}


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def _sentences(text: str) -> list[str]:
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", body) if s.strip()]


@dataclass(frozen=True)
class Passage:
    source: str
    text: str


class DemoRag:
    """Retrieve the ``k`` best passages (whole documents) and answer from them."""

    def __init__(self, docs_dir: Path = DOCS_DIR, k: int = 2, min_score: float = 0.15) -> None:
        self.passages = [
            Passage(path.name, " ".join(_sentences(path.read_text(encoding="utf-8"))))
            for path in sorted(docs_dir.glob("*.md"))
        ]
        self.k = k
        self.min_score = min_score
        counts: dict[str, int] = {}
        for passage in self.passages:
            for word in set(_words(passage.text)):
                counts[word] = counts.get(word, 0) + 1
        n = len(self.passages)
        self.idf = {w: math.log((n + 1) / (c + 0.5)) for w, c in counts.items()}

    def retrieve(self, question: str, earlier: str = "") -> list[Passage]:
        query = set(_words(question)) | set(_words(earlier))
        scored = []
        for passage in self.passages:
            words = set(_words(passage.text))
            overlap = sum(self.idf.get(w, 0.0) for w in query & words)
            total = sum(self.idf.get(w, 0.0) for w in query) or 1.0
            scored.append((overlap / total, passage))
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return [p for score, p in scored[: self.k] if score >= self.min_score]

    def answer(self, question: str, earlier: str = "") -> dict[str, object]:
        """Answer ``question``; ``earlier``, the question a follow-up continues, joins the
        search and breaks ties between sentences the follow-up's own words rank alike."""
        passages = self.retrieve(question, earlier)
        if not passages:
            return {"answer": "I don't know.", "contexts": []}
        query, before = set(_words(question)), set(_words(earlier))
        best = max(
            (s for p in passages for s in _sentences(p.text)),
            key=lambda s: (len(query & set(_words(s))), len(before & set(_words(s)))),
        )
        answer = best
        extra = _EMBELLISHMENTS.get(passages[0].source)
        if extra:
            answer = f"{answer} {extra}"
        return {
            "answer": answer,
            "contexts": [{"text": p.text, "source": p.source} for p in passages],
        }


_DEFAULT: DemoRag | None = None


def answer(question: str) -> dict[str, object]:
    """``question -> {"answer", "contexts"}``: the callable the examples evaluate."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = DemoRag()
    return _DEFAULT.answer(question)


# A follow-up names nothing of its own: "And how quickly?", "What about part-time staff?".
# The app recognises only these openings: "How long is it valid?" after a question about
# passwords is asked as if alone, the mistake the demo's conversations catch.
_FOLLOW_UP = re.compile(r"^\s*(and|what about|how about)\b", re.IGNORECASE)


def chat(question: str, history: Sequence[Mapping[str, str]] = ()) -> dict[str, object]:
    """``(question, history) -> {"answer", "contexts"}``: one turn of a conversation, the
    earlier turns as ``[{"role": "user"|"assistant", "content": ...}]``. A follow-up is read
    with the user's previous question; any other question, and a single one, alone."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = DemoRag()
    asked = [m["content"] for m in history if m.get("role") == "user"]
    if asked and _FOLLOW_UP.match(question):
        return _DEFAULT.answer(question, earlier=asked[-1])
    return _DEFAULT.answer(question)


def retrieve(question: str) -> list[Passage]:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = DemoRag()
    return _DEFAULT.retrieve(question)
