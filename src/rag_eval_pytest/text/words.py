"""Words as the metrics and the local judge read them: tokens, stems and content words.

Rule-based and deterministic (no model), English only: the words that carry a text's meaning
(no stopwords, negations or numbers), each stemmed, a demonym read as its place. Context
recall, knowledge retention, the answer's spans and the local judge all compare texts by
these words.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from .lexicon import word_table

if TYPE_CHECKING:
    from collections.abc import Iterator

_TABLES = "rag_eval_pytest.text"
STOPWORDS = word_table(_TABLES, "stop_words").words("words")
NEGATIONS = word_table(_TABLES, "negations").words("words")
# Places and their demonyms: "The French-born painter" states that the painter is from France.
_DEMONYMS = word_table(_TABLES, "demonyms").groups("places")
PLACES = {word: place for place, adjectives in _DEMONYMS.items() for word in (place, *adjectives)}
PLACE_ALIASES = word_table(_TABLES, "demonyms").groups("aliases")
"""Places by their other names ("united kingdom": "britain", "uk")."""

_TOKEN = re.compile(r"\$?\d+(?:[.,]\d+)*(?:%|st|nd|rd|th|s)?|[^\W\d_]+(?:['’\-][^\W\d_]+)*")


def tokens(text: str) -> list[str]:
    """Words and numbers of ``text`` in order (hyphenated words and "don't" stay whole)."""
    return _TOKEN.findall(text)


def token_matches(text: str) -> Iterator[re.Match[str]]:
    """The :func:`tokens` of ``text`` with where each stands."""
    return _TOKEN.finditer(text)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The stem of ``word``: the Snowball English stemmer's (Porter2: "buildings" and
    "building", "cities" and "city", "refunds" and "refunded" meet), one spelling for British
    and American English on top ("colour" and "color", "organised" and "organized"), and an
    irregular plural's singular ("children" and "child")."""
    stemmed = _snowball(word.lower().replace("’", "'").strip("'-"))
    return _spellings().get(stemmed, stemmed)


def _snowball(word: str) -> str:
    return str(_stemmer().stemWord(word))


@cache
def _stemmer() -> Any:
    """The Snowball English stemmer, imported when a stem is first asked for: a run that
    reads no text never imports it."""
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@cache
def _spellings() -> dict[str, str]:
    """The British spellings' stems, each with the American spelling's stem."""
    table = word_table(_TABLES, "spellings").mapping("words")
    return {_snowball(british): _snowball(american) for british, american in table.items()}


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """Stemmed words that carry meaning: no stopwords, negations, numbers or short words,
    but for an acronym ("US", "EU", "IT", in a word alone or a text not all in capitals). A
    demonym counts as its place ("French", "French-born" -> france). Memoised: a claim's
    checks read the same passages many times."""
    found = tokens(text)
    acronyms = _acronyms(found, text)
    words = {t.lower() for t in acronyms}
    for t in found:
        if t not in acronyms and _carries_meaning(t):
            words.update(_token_words(t))
    return frozenset(words)


def _acronyms(found: list[str], text: str) -> set[str]:
    """The tokens ``found`` of ``text`` that are acronyms; none in a text of several words
    all in capitals (shouted, not spelled out)."""
    if len(found) > 1 and not any(ch.islower() for ch in text):
        return set()
    return {t for t in found if _acronym(t)}


def _acronym(token: str) -> bool:
    """Whether a token is a short acronym that would otherwise read as a stopword or a short
    word ("US" is not "us"): two or three capitals, not a negation ("NO"), a time of day
    ("AM") or a reply ("OK")."""
    low = token.lower()
    return (
        2 <= len(token) <= 3
        and token.isupper()
        and token.isalpha()
        and low not in NEGATIONS
        and low not in _NOT_ACRONYMS
    )


_NOT_ACRONYMS = word_table(_TABLES, "stop_words").words("not_acronyms")


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
