"""The words next to an amount: "stores" before "64 GB" in "The phone stores 64 GB,
expandable to 128 GB", "draw" after "10-year" in "a 10-year draw period followed by a
20-year repayment period".

Within one clause nothing is left out, so the word next to an amount binds it: the numbers
check reads a claim's amount as moved to another's place when its neighbour is the other's
(:mod:`.checks`). Two amounts' neighbours, each a pair (before, after), are compared here.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from ...text.words import STOPWORDS, stem, token_matches
from .quantities import CURRENCY_SIGNS, Quantity, quantities

if TYPE_CHECKING:
    from collections.abc import Iterator

# What parts two words into two clauses or asides.
_PUNCTUATION = re.compile(r"[;:,.!?()]")


def neighbours(q: Quantity, text: str) -> tuple[str, str]:
    """(the stem of the content word right before the number ``q`` in ``text``, that of the
    one right after it and its unit), each ``""`` where punctuation, another number or
    nothing comes first."""
    found = list(token_matches(text))
    at = _token_of(q, text, found)
    if at is None:
        return "", ""
    after = at + max(0, len(q.text.split()) - len(found[at].group().split("-")))
    return _word_before(found, at), _word_after(found, after)


def _token_of(q: Quantity, text: str, found: list[re.Match[str]]) -> int | None:
    """Which token writes ``q``: of the tokens that write its number, the one of its place
    among the amounts written so ("the 60-day period ... within 60 days")."""
    writing = [i for i, m in enumerate(found) if _writes(m.group(), q)]
    return writing[min(_place(q, text), len(writing) - 1)] if writing else None


def _place(q: Quantity, text: str) -> int:
    """Which of the amounts of ``text`` whose number is written as ``q``'s it is (0 for the
    first, or where ``q`` is not one of them)."""
    alike = [s for s in quantities(text) if _writes(_number(s), q)]
    return next((k for k, s in enumerate(alike) if s is q), 0)


def _number(q: Quantity) -> str:
    """How the number of ``q`` is written, without the currency sign before it ("2,980,815"
    of "£2,980,815": the sign is no token)."""
    return q.text.split()[0].lstrip(CURRENCY_SIGNS)


def _writes(token: str, q: Quantity) -> bool:
    """Whether a token is the number of ``q`` as written ("20", "20-year" for "20 year";
    "85k" for "$85 k")."""
    first, token = _number(q), token.lstrip(CURRENCY_SIGNS)
    rest = token[len(first) :]
    return token.startswith(first) and (not rest or rest.startswith("-") or rest.isalpha())


def _word_before(found: list[re.Match[str]], at: int) -> str:
    """The neighbour before ``found[at]``, but a word a number just before it counts or is
    given per ("hour" in "$10 per hour and $40 a day": that number's word)."""
    i = _content_index(found, at, -1)
    return "" if i is None or _counted(found, i) else stem(found[i].group().lower())


def _word_after(found: list[re.Match[str]], at: int) -> str:
    """The neighbour after ``found[at]``."""
    i = _content_index(found, at, 1)
    return "" if i is None else stem(found[i].group().lower())


def _content_index(found: list[re.Match[str]], at: int, step: int) -> int | None:
    """Where the first content word from ``found[at]`` in the direction ``step`` is, in the
    same clause and before another number; ``None`` for none."""
    for i in _same_clause(found, at, step):
        word = found[i].group().lower()
        if _has_digit(word):
            return None  # another number's word, not this one's
        if word not in STOPWORDS and word.isalpha():
            return i
    return None


def _same_clause(found: list[re.Match[str]], at: int, step: int) -> Iterator[int]:
    """The places of the tokens from ``found[at]`` in the direction ``step`` until
    punctuation parts two of them."""
    i = at
    while 0 <= i + step < len(found) and not _parted(found[i], found[i + step]):
        i += step
        yield i


def _parted(one: re.Match[str], other: re.Match[str]) -> bool:
    """Whether punctuation comes between two tokens."""
    near, far = sorted((one, other), key=lambda m: m.start())
    return bool(_PUNCTUATION.search(near.string, near.end(), far.start()))


def _counted(found: list[re.Match[str]], at: int) -> bool:
    """Whether a number comes just before the word ``found[at]`` (two tokens at most), in
    its clause: "£2,980,815, Fabrikam spent" is no number's "spent"."""
    before = itertools.islice(_same_clause(found, at, -1), 2)
    return any(_has_digit(found[i].group()) for i in before)


def _has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


# ----------------------------------------------------------------------------- two amounts


def adds_a_neighbour(mine: tuple[str, str], theirs: tuple[str, str]) -> bool:
    """Whether the claim's amount has a word next to it that the other has not there."""
    return any(m and m != t for m, t in zip(mine, theirs, strict=True))


def neighboured_otherwise(mine: tuple[str, str], theirs: tuple[str, str]) -> bool:
    """Whether the context's equal amount has another word next to it than the claim's, and
    none of the claim's."""
    other = any(t and t != m for m, t in zip(mine, theirs, strict=True))
    return other and not shares_a_neighbour(mine, theirs)


def shares_a_neighbour(mine: tuple[str, str], theirs: tuple[str, str]) -> bool:
    """Whether two amounts have a neighbour in common on one side."""
    return any(m and m == t for m, t in zip(mine, theirs, strict=True))


def neighboured_alike(mine: tuple[str, str], theirs: tuple[str, str]) -> bool:
    """Whether two amounts share a neighbour on one side and differ on neither: "costs $40 a
    day" is not "costs $10 an hour"."""
    return shares_a_neighbour(mine, theirs) and not neighbours_differ(mine, theirs)


def neighbours_differ(mine: tuple[str, str], theirs: tuple[str, str]) -> bool:
    """Whether two amounts have other words next to them on one side."""
    return any(m and t and m != t for m, t in zip(mine, theirs, strict=True))
