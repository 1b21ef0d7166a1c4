"""The holders check: a fact the claim gives one named thing that the contexts give another
("The Basic plan includes phone support" where the context says "The Pro plan includes phone
support" and "The Basic plan includes email support only"; "Both the Basic and the Pro plan
include phone support" too).

The fact is the claim's words besides the names it gives. It is another thing's when the
sentences that name this one state another fact in its place (half its words or more, not
all) and none states it, and every sentence that holds the fact whole names another thing: a
name the claim does not give, or one it lists beside this one as playing the same part ("the
Basic and the Pro plan"). A fact no single sentence holds whole, or one a sentence states of
something it does not name ("It includes phone support"), is left to the support model.

It is another thing's too when a sentence that does not name the claim's thing says the claim
with another name in its place, give or take one word and with the claim's numbers ("Our
headquarters are in Lyon." for "Our headquarters are in Paris.", where the contexts name Paris
elsewhere), and no sentence that names the claim's thing states the claim's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ...text.sentences import split_sentences
from ...text.words import content_words
from .checks import Finding, named_in
from .facts import known_name
from .quantities import quantities

MIN_FACT_WORDS = 2
"""A fact of fewer content words than this ("is from Ohio"), its amounts aside, is no fact
to bind."""
_AMOUNT = "#"  # what opens an amount among a fact's words

# What lists two names as playing the same part: "A and B", "A, B", "both the A and the B".
_LISTING = re.compile(r"^\W*(?:(?:and|or|as well as|nor)\W+)?(?:the\W+)?$", re.IGNORECASE)


def check_holders(claim: str, contexts: str) -> list[Finding]:
    """A conflict where a fact the claim gives one of its names the contexts give another
    thing (see the module)."""
    return list(_holders(claim, contexts))


@lru_cache(maxsize=4096)
def _holders(claim: str, contexts: str) -> tuple[Finding, ...]:
    # Memoised: it reads all the contexts, whichever passage the claim is checked against.
    found = named_in(claim)
    sentences = split_sentences(contexts) if found else []
    pair = _held_instead(claim, found, contexts, sentences) or _named_instead(
        claim, found, contexts, sentences
    )
    if pair is None:
        return ()
    name, rival = pair
    return (Finding("holder", "conflict", f"gives {name} what the context gives {rival}"),)


def _held_instead(
    claim: str, found: list[str], contexts: str, sentences: list[str]
) -> tuple[str, str] | None:
    """(the claim's name, the other thing) where every sentence that holds the claim's fact
    whole names another thing, while the name's own sentences state another fact in its
    place."""
    fact = _fact_of(claim, found, contexts) if found else frozenset()
    if _words_of_fact(fact) < MIN_FACT_WORDS:
        return None
    for name in found:
        rival = _holder_instead(name, fact, _Claim(claim, found), sentences)
        if rival:
            return name, rival
    return None


def _named_instead(
    claim: str, found: list[str], contexts: str, sentences: list[str]
) -> tuple[str, str] | None:
    """(the claim's name, the other name) where a sentence that does not name it says the
    claim with another name in its place ("Our headquarters are in Lyon." for "Our
    headquarters are in Paris.", "The night ferry leaves from Dover." for "The night ferry
    leaves from Calais."), the claim's name given elsewhere in the contexts."""
    for name in (n for n in found if known_name(n, contexts)):
        rival = _named_instead_of(name, claim, sentences)
        if rival:
            return name, rival
    return None


def _named_instead_of(name: str, claim: str, sentences: list[str]) -> str:
    """The other name a sentence that does not name ``name`` gives in its place, where no
    sentence that names it states the claim's words ("" when none)."""
    rest = content_words(claim) - content_words(name)
    own = [s for s in sentences if _names(s, name)]
    if not rest or any(rest <= content_words(s) for s in own):
        return ""
    return _first_rival(rest, _others(claim, sentences, own), name, claim)


def _first_rival(rest: frozenset[str], sentences: list[str], name: str, claim: str) -> str:
    """The first name one of ``sentences`` gives in the place of ``name`` ("" when none)."""
    for sentence in sentences:
        rival = _named_in_place(rest, sentence, name, claim)
        if rival:
            return rival
    return ""


def _others(claim: str, sentences: list[str], own: list[str]) -> list[str]:
    """The sentences not in ``own`` that state every number of the claim."""
    return [s for s in sentences if s not in own and _numbers_of(claim) <= _numbers_of(s)]


def _numbers_of(text: str) -> set[float]:
    """The values of the numbers of ``text``."""
    return {q.value for q in quantities(text)}


def _named_in_place(rest: frozenset[str], sentence: str, name: str, claim: str) -> str:
    """The name of ``sentence`` that stands where the claim has ``name``: the sentence's
    other words are the claim's (``rest``), give or take one ("" when none)."""
    for rival in _rivals(sentence, name, claim, []):
        theirs = content_words(sentence) - content_words(rival)
        if rest <= theirs and len(theirs - rest) <= 1:
            return rival
    return ""


def _fact_of(claim: str, found: list[str], contexts: str) -> frozenset[str]:
    """The claim's words besides every name it gives (the contexts' too: "Wenling and
    Xinzheng are both in China" opens with a name and states no fact of words)."""
    given = found + [n for n in named_in(contexts) if known_name(n, claim)]
    names = frozenset().union(*(content_words(n) for n in given))
    return _fact_words(claim) - names


def _words_of_fact(fact: frozenset[str]) -> int:
    """How many words a fact has, its amounts aside."""
    return sum(not word.startswith(_AMOUNT) for word in fact)


def _fact_words(text: str) -> frozenset[str]:
    """The content words of ``text`` and its amounts of a unit or a currency: "10 GB of
    storage" and "1 TB of storage" are two facts (a bare number, a year or a rank may be
    written another way)."""
    amounts = {f"{_AMOUNT}{q.value:g} {q.unit}" for q in quantities(text) if q.unit or q.money}
    return content_words(text) | amounts


@dataclass(frozen=True)
class _Claim:
    """A claim and the names it gives."""

    text: str
    names: list[str]


def _holder_instead(name: str, fact: frozenset[str], claim: _Claim, sentences: list[str]) -> str:
    """The thing the contexts give ``fact`` instead of ``name`` ("" when none)."""
    holding = _holding(fact, name, sentences)
    listed = [other for other in claim.names if _listed(claim.text, name, other)]
    rivals = [_rivals(s, name, claim.text, listed) for s in holding]
    return rivals[0][0] if rivals and all(rivals) else ""


def _holding(fact: frozenset[str], name: str, sentences: list[str]) -> list[str]:
    """The sentences that hold ``fact`` whole, where none names ``name`` and one that names
    it states another fact in its place (none otherwise)."""
    own = [s for s in sentences if _names(s, name)]
    if not _stated_otherwise(fact, own):
        return []
    return [s for s in sentences if fact <= _fact_words(s)]


def _stated_otherwise(fact: frozenset[str], own: list[str]) -> bool:
    """Whether a thing's own sentences ``own`` state another fact in the place of ``fact``,
    and none states ``fact`` itself."""
    read = [_fact_words(s) for s in own]
    return not any(fact <= words for words in read) and any(_in_its_place(fact, w) for w in read)


def _names(sentence: str, name: str) -> bool:
    """Whether ``sentence`` names ``name``, whole or by a part of it ("Marshall" for "Tom
    Marshall")."""
    return known_name(name, sentence) or any(known_name(n, name) for n in named_in(sentence))


def _in_its_place(fact: frozenset[str], words: frozenset[str]) -> bool:
    """Whether a sentence of ``words`` states another fact where ``fact`` would stand: it
    holds half of its words or more, not all ("The Basic plan includes email support only"
    beside "... plan includes phone support")."""
    shared = fact & words
    return len(shared) * 2 >= len(fact) and shared != fact


def _listed(claim: str, name: str, other: str) -> bool:
    """Whether the claim lists ``other`` beside ``name`` ("the Basic and the Pro plan")."""
    at, there = claim.find(name), claim.find(other)
    if other == name or min(at, there) < 0:
        return False
    first, second = (name, other) if at < there else (other, name)
    return bool(_LISTING.match(claim[claim.find(first) + len(first) : claim.find(second)]))


def _rivals(sentence: str, name: str, claim: str, listed: list[str]) -> list[str]:
    """The names of ``sentence`` that stand where ``name`` would: not the claim's (but the
    ones it lists beside ``name``), nor a part of ``name``."""
    return [
        n
        for n in named_in(sentence)
        if not known_name(n, name) and (n in listed or not known_name(n, claim))
    ]
