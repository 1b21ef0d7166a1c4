"""Words as the metrics and the local judge read them: tokens, stems and content words.

Rule-based and deterministic (no model), English only: the words that carry a text's meaning
(no stopwords, negations or numbers), each stemmed, a demonym read as its place. Context
recall, knowledge retention, the answer's spans and the local judge all compare texts by
these words.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lexicon import word_table

_TABLES = "rag_eval_pytest.text"
STOPWORDS = word_table(_TABLES, "stop_words").words("words")
NEGATIONS = word_table(_TABLES, "negations").words("words")
# Places and their demonyms: "The French-born painter" states that the painter is from France.
_DEMONYMS = word_table(_TABLES, "demonyms").groups("places")
PLACES = {word: place for place, adjectives in _DEMONYMS.items() for word in (place, *adjectives)}

_TOKEN = re.compile(r"\$?\d+(?:[.,]\d+)*(?:%|st|nd|rd|th|s)?|[^\W\d_]+(?:['’\-][^\W\d_]+)*")


def tokens(text: str) -> list[str]:
    """Words and numbers of ``text`` in order (hyphenated words and "don't" stay whole)."""
    return _TOKEN.findall(text)


# A plural of a three-letter word: "dogs", "days", "fees" (not "news", "plus", "this").
_SHORT_PLURAL = re.compile(r"[a-z]{2}[^suiwo]s")
_DOUBLED = re.compile(r"(bb|dd|gg|mm|nn|pp|rr|tt)$")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: enough to match "refunds"/"refunded"/"refund"."""
    word = word.lower().replace("’", "'").strip("'-")
    if word.endswith("'s"):
        word = word[:-2]
    word = _without_suffix(word)
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    # One spelling for British and American English: "colour" and "color", "grey" and "gray".
    if len(word) >= 6 and word.endswith("our"):
        word = word[:-2] + "r"
    return _SPELLINGS.get(word, word)


# The suffixes a stem loses, each with what replaces it, the first that applies only.
_SUFFIXES = (
    ("ies", "y"),
    ("ied", "y"),
    ("ing", ""),
    ("ness", ""),
    ("ment", ""),
    ("edly", ""),
    ("ly", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
)


def _without_suffix(word: str) -> str:
    """``word`` without the first of :data:`_SUFFIXES` it ends with, where the rest is long
    enough (or a short plural: "dogs")."""
    for suffix, replacement in _SUFFIXES:
        if _strips(word, suffix):
            return _undoubled(word[: -len(suffix)] + replacement, suffix)
    return word


def _strips(word: str, suffix: str) -> bool:
    return word.endswith(suffix) and (
        len(word) > len(suffix) + 3 or (suffix == "s" and bool(_SHORT_PLURAL.fullmatch(word)))
    )


def _undoubled(word: str, suffix: str) -> str:
    """The consonant an inflection doubles, once: "submitted", "planned", "running"."""
    if suffix in ("ed", "ing") and len(word) >= 4 and _DOUBLED.search(word):
        return word[:-1]
    return word


_SPELLINGS = word_table(_TABLES, "spellings").mapping("stems")


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """Stemmed words that carry meaning: no stopwords, negations, numbers or short words. A
    demonym counts as its place ("French", "French-born" -> france). Memoised: a claim's
    checks read the same passages many times."""
    words: set[str] = set()
    for t in tokens(text):
        if _carries_meaning(t):
            words.update(_token_words(t))
    return frozenset(words)


def _carries_meaning(token: str) -> bool:
    """Whether a token may carry meaning: no number, amount, stopword or negation."""
    low = token.lower()
    return not (token[0].isdigit() or token.startswith("$") or low in STOPWORDS or low in NEGATIONS)


def _token_words(token: str) -> list[str]:
    """The content words of one token: its stem (a demonym's place) but for a short word,
    and the places of a hyphenated word's demonyms ("French-born")."""
    low = token.lower()
    words = [PLACES.get(low) or stem(token)] if len(token) > 2 else []
    if "-" in low:
        words += [PLACES[part] for part in low.split("-") if part in PLACES]
    return words
