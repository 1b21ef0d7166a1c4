"""Sentence splitting that survives abbreviations, decimals, initials and list items.

Used by the metrics (ground-truth sentences for context recall, context sentences for context
relevance) and by the local judge (claims). Rule-based and deterministic; no model.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lexicon import word_table

# Titles never end a sentence; other abbreviations do when a capital follows ("... etc. The").
_WORDS = word_table("rag_eval_pytest.text", "abbreviations")
_TITLES = _WORDS.words("titles")
_ABBREVIATIONS = _TITLES | _WORDS.words("abbreviations")

# A candidate boundary: terminal punctuation, optional closing quotes/brackets, whitespace.
_BOUNDARY = re.compile(r"([.!?…]+[\"'”’)\]]*)(\s+)")
_GLUED = re.compile(r"((?:[a-z]{2}|[a-z0-9]{2}[\"'”’)])[.!?][\"'”’)]?)([A-Z][a-z])")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")


def _last_word(text: str) -> str | None:
    match = re.search(r"(\S+)\.$", text)
    return None if match is None else match.group(1).lower().lstrip("(\"'“‘")


def _is_title_or_initial(word: str) -> bool:
    return word in _TITLES or (len(word) == 1 and word.isalpha())


def _is_abbreviation(word: str) -> bool:
    # Known abbreviations and dotted acronyms ("U.S.", "e.g.").
    return word in _ABBREVIATIONS or bool(re.fullmatch(r"(?:[a-z]\.)+[a-z]", word))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, in order; empty pieces dropped.

    Line breaks that start list items or separate paragraphs are boundaries; a period inside
    a number ("3.5"), after an abbreviation ("e.g.") or an initial ("J.") is not.
    """
    return list(_sentences(text))


@lru_cache(maxsize=4096)
def _sentences(text: str) -> tuple[str, ...]:
    # Memoised: the local judge splits the same contexts and passages for every claim.
    sentences = [s for block in _BLOCKS.split(text) for s in _block_sentences(_cleaned(block))]
    return tuple(s for s in sentences if any(ch.isalnum() for ch in s))


_BLOCKS = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d{1,3}[.)])\s)")
"""Where a paragraph or a list item starts."""


def _cleaned(block: str) -> str:
    """A paragraph or list item on one line, without its bullet."""
    block = _LIST_ITEM.sub("", block.strip())
    block = re.sub(r"\s*\n\s*", " ", block)
    # Sentences glued without a space ("...in the Middle East.Badr Hari was born", "... a
    # sequel to "Puss in Boots".Puss in Boots is"), as scraped text often has them; "U.S.A"
    # and "3.5" do not match.
    return _GLUED.sub(r"\1 \2", block)


def _block_sentences(block: str) -> list[str]:
    """The sentences of one paragraph or list item, at each boundary that ends one."""
    if not block:
        return []
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(block):
        piece = block[start : match.end(1)]
        if not _ends_sentence(piece, block[match.end() : match.end() + 1]):
            continue
        sentences.append(piece.strip())
        start = match.end()
    tail = block[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def _ends_sentence(piece: str, following: str) -> bool:
    """Whether the boundary after ``piece``, ``following`` its first character after the
    white space, ends a sentence: not after a title, an initial or an abbreviation, nor
    before a lower-case word."""
    if _abbreviated(piece, following):
        return False
    # Tokenised text ("louisiana . todd phillips ...", as news corpora keep it) sets
    # the period apart: that ends a sentence whatever case follows.
    detached = bool(re.search(r"\s[.!?]+$", piece))
    return not (following and following.islower() and not detached)


def _abbreviated(piece: str, following: str) -> bool:
    """Whether ``piece`` ends with a title or an initial ("Dr.", "J."), or an abbreviation
    that no capital follows ("e.g. the")."""
    word = _last_word(piece)
    return word is not None and (
        _is_title_or_initial(word) or (_is_abbreviation(word) and not following.isupper())
    )
