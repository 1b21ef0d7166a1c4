"""The places check: a claim that puts something in a country the contexts name only by the
word for its people or things, while they name another country ("Gülhane Park and Zografeion
Lyceum are located in Greece." against "a historical urban park ... of Istanbul, Turkey ...
one of the remaining open Greek schools in Istanbul").

"Greek schools" says whose schools they are, not where they stand: the contexts never place
anything in Greece, so the claim states what they leave out (a gap, not a conflict: the
contexts may say elsewhere, in other words, that it is so). Where a thing is from ("The
architect was from Italy." against "The Italian-born architect") is no such claim, and a
country that holds the other ("in Britain" beside "Scotland") stands against nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...text.words import PLACES
from .checks import Finding
from .facts import alias_words
from .tables import table

_WITHIN = table("places").groups("within")
# "in Greece", "in the Netherlands": a place the claim puts something in.
_IN = re.compile(r"\bin\s+(?:the\s+)?([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)")


def check_places(claim: str, contexts: str) -> list[Finding]:
    """A gap where the claim puts something in a country that the contexts name only by its
    people's word, and they name another country (see the module)."""
    for match in _IN.finditer(claim):
        finding = _unplaced(match.group(1), contexts)
        if finding is not None:
            return [finding]
    return []


def _unplaced(name: str, contexts: str) -> Finding | None:
    """The gap of a claim that puts something in ``name``, or ``None``."""
    place = _place(name)
    if place is None or _written(place, contexts):
        return None
    adjective = _adjective_written(place, contexts)
    other = _other_place(place, contexts)
    return _gap(name, adjective, other) if adjective and other else None


def _other_place(place: str, contexts: str) -> str:
    """A place the contexts name that neither holds ``place`` nor lies in it ("")."""
    return next((p for p in _places_written(contexts) if not _related(p, place)), "")


def _adjective_written(place: str, contexts: str) -> str:
    """The word for the place's people or language as the contexts write it ("")."""
    return next(filter(None, (_found(a, contexts) for a in _adjectives(place))), "")


def _gap(name: str, adjective: str, other: str) -> Finding:
    return Finding(
        "places",
        "gap",
        f"puts it in {name}; the contexts name {name} only in \u201c{adjective}\u201d, "
        f"and name {other.title()}",
    )


def _place(name: str) -> str | None:
    """The place of the table a name is (by one of its words: "Greece", "Turkey"), or
    ``None`` for any other name or a people's word ("Greek")."""
    for word in (name.lower(), name.split()[0].lower()):
        if PLACES.get(word) == word:
            return word
    return None


def _adjectives(place: str) -> list[str]:
    return [word for word, of in PLACES.items() if of == place and word != place]


def _written(place: str, contexts: str) -> bool:
    """Whether the contexts write the place's name or another of its names ("the United
    Kingdom" for Britain)."""
    return bool(_found(place, contexts)) or place in alias_words(contexts.lower())


def _found(word: str, text: str) -> str:
    """``word`` as ``text`` writes it, or "" where it does not."""
    match = re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)
    return match.group(0) if match else ""


@lru_cache(maxsize=256)
def _places_written(contexts: str) -> tuple[str, ...]:
    """The places of the table the contexts name, written as names ("Turkey"; not
    "Turkish")."""
    found = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+\b", contexts)}
    return tuple(sorted(w for w in found if PLACES.get(w) == w))


def _related(one: str, other: str) -> bool:
    """Whether one place holds the other, or they are one."""
    return one == other or one in _WITHIN.get(other, ()) or other in _WITHIN.get(one, ())
