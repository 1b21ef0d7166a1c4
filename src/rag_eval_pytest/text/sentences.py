"""Sentence splitting that survives abbreviations, decimals, initials and list items.

Used by the metrics (ground-truth sentences for context recall, context sentences for context
relevance) and by the local judge (claims). Rule-based and deterministic; no model.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Titles never end a sentence; other abbreviations do when a capital follows ("... etc. The").
_TITLES = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "gen",
        "col",
        "capt",
        "lt",
        "sgt",
        "rev",
        "hon",
    ]
)
_ABBREVIATIONS = _TITLES | frozenset(
    [
        "vs",
        "etc",
        "e.g",
        "i.e",
        "approx",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "est",
        "fig",
        "no",
        "nos",
        "vol",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
        "u.s",
        "u.k",
        "a.m",
        "p.m",
        "ca",
        "cf",
        "al",
    ]
)

# A candidate boundary: terminal punctuation, optional closing quotes/brackets, whitespace.
_BOUNDARY = re.compile(r"([.!?…]+[\"'”’)\]]*)(\s+)")
_GLUED = re.compile(r"([a-z]{2}[.!?])([A-Z][a-z])")
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
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d{1,3}[.)])\s)", text):
        block = _LIST_ITEM.sub("", block.strip())
        block = re.sub(r"\s*\n\s*", " ", block)
        # Sentences glued without a space ("...in the Middle East.Badr Hari was born"), as
        # scraped text often has them; "U.S.A" and "3.5" do not match.
        block = _GLUED.sub(r"\1 \2", block)
        if not block:
            continue
        start = 0
        for match in _BOUNDARY.finditer(block):
            end = match.end(1)
            piece = block[start:end]
            following = block[match.end() : match.end() + 1]
            word = _last_word(piece)
            if word is not None and (
                _is_title_or_initial(word) or (_is_abbreviation(word) and not following.isupper())
            ):
                continue
            # Tokenised text ("louisiana . todd phillips ...", as news corpora keep it) sets
            # the period apart: that ends a sentence whatever case follows.
            detached = bool(re.search(r"\s[.!?]+$", piece))
            if following and following.islower() and not detached:
                continue
            sentences.append(piece.strip())
            start = match.end()
        tail = block[start:].strip()
        if tail:
            sentences.append(tail)
    return tuple(s for s in sentences if any(ch.isalnum() for ch in s))
