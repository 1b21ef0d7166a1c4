"""Two numbers of a claim in each other's places: the claim copies a passage's words with two
of its numbers exchanged ("starts at $20,000 per month for up to $9 of cover" against "starts
at $9 per month for up to $20,000 of cover"; "a 1908-story office building completed in 47"
against "a 47-story office building completed in 1908").

Each number is bound to the words around it, whatever it counts: a year and a count, a price
and a cover, a version and another. The claim's words from two before the first number to
two after the second, with the two exchanged, are a context's words as written, and the
claim's own are no context's. Two numbers with only a joining word between them are left
alone ("between 5 and 8 kg", "Windows 10 and 11", "2–8 °C": one range or one list, read
alike either way round), and so are two with a month between or before them ("8 December
1984", "March 1, 2024": one date's day and year).

A number the contexts write, put where they write another and never it, is in the other's
place too ("Severity 3 (production down) within 30 minutes" against "Severity 1 (production
down) within 30 minutes; ...; Severity 3 within 1 business day"): the claim's two words before
it and two after it are a context's words around another number, and the contexts never
write it before the two after it, nor at a clause's end (where the clause may leave out the
words of the one before it).
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from ...text.names import MONTHS
from .quantities import CURRENCY_SIGNS, in_digits

AROUND = 2
"""The claim's words before the first number and after the second that must be a context's
words too."""
JOINING = frozenset({"and", "or", "nor", "to", "up", "till", "until", "through", "thru", "than"})
"""Words that join two numbers ("and", "up to", "GB to", "% and"); so does a unit's short
name, of two letters at most ("kg", "k", "m"): no words of their own bind them apart."""

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+|[^\w\s]")


def exchanged_numbers(claim: str, contexts: str) -> tuple[str, str] | None:
    """(the claim's number, the one the contexts write in its place) where the claim is a
    context's words with two numbers exchanged (see the module), else ``None``."""
    mine = _tokens(claim)
    numbered = [i for i, token in enumerate(mine) if token[0].isdigit()]
    pairs = itertools.combinations(numbered, 2)
    found = (p for p in pairs if _exchanged(mine, *p, _written_words(contexts)))
    pair = next(found, None)
    if pair is None:
        return None
    first, second = pair
    return _shown(mine, first, mine[first]), _shown(mine, first, mine[second])


def misplaced_number(claim: str, contexts: str) -> tuple[str, str] | None:
    """(the claim's number, the one the contexts write in its place) where the claim puts a
    number the contexts write where they write another and never it (see the module), else
    ``None``."""
    mine = tuple(in_digits(token) for token in _tokens(claim))  # "Level three" is "Level 3"
    theirs = _written_words(contexts)
    for i, token in enumerate(mine):
        if token[0].isdigit() and f" {token} " in theirs:
            other = _written_instead(mine, i, theirs)
            if other is not None:
                return _shown(mine, i, token), _shown(mine, i, other)
    return None


def _written_instead(mine: tuple[str, ...], i: int, theirs: str) -> str | None:
    """The number the contexts write between the words around ``mine[i]``, where they never
    write ``mine[i]`` before the words after it (what it counts: "30 days to send it back"
    is written, where "14 days to cancel" is too), nor at a clause's end, one word at most
    after it: "the 500 W model runs for 45 km on a charge" against "The 250 W model runs for
    60 km on a charge and the 500 W model runs for 45 km.", whose second clause leaves out
    "on a charge"."""
    end = len(mine) - 1 if mine[-1] in ".!?" else len(mine)  # where the claim stops, a context
    before, after = mine[max(0, i - AROUND) : i], mine[i + 1 : min(end, i + 1 + AROUND)]
    if not any(map(_own_word, (*before, *after))) or _written_after(mine[i], after, theirs):
        return None
    around = (" ".join(map(re.escape, before)), " ".join(map(re.escape, after)))
    written = re.finditer(rf" {around[0]} (\d+(?:[.,]\d+)*) {around[1]} ", theirs)
    return next((m.group(1) for m in written if m.group(1) != mine[i]), None)


def _written_after(number: str, after: tuple[str, ...], theirs: str) -> bool:
    """Whether the contexts write ``number`` before the words ``after``, or at a clause's end
    (one word at most after it: a clause that may leave out the words of the one before)."""
    at_an_end = re.search(rf" {re.escape(number)} (?:\S+ )?[.;,] ", theirs)
    return _written([number, *after], theirs) or at_an_end is not None


def _exchanged(mine: tuple[str, ...], i: int, j: int, theirs: str) -> bool:
    """Whether the words around ``mine[i]`` and ``mine[j]``, bound apart, are the contexts'
    words ``theirs`` with the two exchanged, and not as the claim writes them."""
    if mine[i] == mine[j] or not _bound_apart(mine, i, j):
        return False
    start, end = max(0, i - AROUND), min(len(mine), j + AROUND + 1)
    window = [*mine[start:end]]
    exchanged = [*window]
    exchanged[i - start], exchanged[j - start] = mine[j], mine[i]
    return _written(_words(exchanged), theirs) and not _written(_words(window), theirs)


def _bound_apart(mine: tuple[str, ...], i: int, j: int) -> bool:
    """Whether words of their own part the numbers ``mine[i]`` and ``mine[j]``, and no month
    comes between them or right before the first."""
    between = [t for t in mine[i + 1 : j] if t.isalpha()]
    before = mine[i - 1 : i]
    return not any(t in MONTHS for t in (*before, *between)) and any(map(_own_word, between))


def _own_word(word: str) -> bool:
    """Whether a word between two numbers is no joining word nor a unit's short name."""
    return word not in JOINING and len(word) > 2


def _shown(mine: tuple[str, ...], i: int, number: str) -> str:
    """``number`` written in the place of ``mine[i]``: with its currency sign before it or its
    "%" after it."""
    sign = mine[i - 1] if i and mine[i - 1] in CURRENCY_SIGNS else ""
    percent = "%" if mine[i + 1 : i + 2] == ("%",) else ""
    return f"{sign}{number}{percent}"


def _words(window: list[str]) -> list[str]:
    """The window without the punctuation at its ends (a claim's last full stop, where the
    context goes on with a ";")."""
    start = next(i for i, t in enumerate(window) if t.isalnum())
    end = max(i for i, t in enumerate(window) if t.isalnum())
    return window[start : end + 1]


def _written(words: list[str], theirs: str) -> bool:
    """Whether ``words`` are the contexts' words as written, in a row."""
    return f" {' '.join(words)} " in theirs


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text.lower()))


@lru_cache(maxsize=256)
def _written_words(contexts: str) -> str:
    """The contexts' words, in lower case, one space apart and around."""
    # Memoised: every claim of a case reads the same contexts.
    return f" {' '.join(_tokens(contexts))} "
