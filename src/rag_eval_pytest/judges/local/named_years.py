"""A year in brackets after a name is that name's: "Little Shop of Horrors" (1982), "Smile"
(1986). A claim that gives a name the year its contexts give another name, where they give
it a year of its own, states another date ("God Bless You, Mr. Rosewater" (1982) against
"God Bless You, Mr. Rosewater" (1979), "Little Shop of Horrors" (1982)): a conflict of dates,
which a list of titles hides from the other rules (each year there is stated, and the words
around it are punctuation).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...text.words import tokens
from .checks import Finding

_NAME_WORDS = 2
"""The words before the bracket that name what the year is of, where no title in quotes
does."""
# A name, or a title in quotes, then a year in brackets: 'Mr. Rosewater" (1979)'.
_NAMED_YEAR = re.compile(
    r"([\"\u201c]?[^\W\d_][^()]{0,80}?)[\"'\u201d\u2019]?\s*\(\s*(1\d{3}|20\d{2})\s*\)"
)


def check_named_years(claim: str, contexts: str) -> list[Finding]:
    """A conflict where the claim gives a name another year in brackets than the contexts
    give it (see the module)."""
    theirs = _named_years(contexts)
    for name, year in _named_years(claim).items():
        given = theirs.get(name)
        if given is not None and given != year:
            return [Finding("dates", "conflict", _message(name, year, given))]
    return []


def _message(name: str, year: str, given: str) -> str:
    return f"claims {name} ({year}); the context says {name} ({given})"


def _name(before: str) -> str:
    """What a year in brackets is of: the title in quotes that ends ``before``, else its last
    words."""
    title = _OPEN_TITLE.search(before)
    words = tokens(title.group(1) or title.group(2)) if title is not None else []
    if words:
        return " ".join(words)
    return " ".join(tokens(before)[-_NAME_WORDS:])


# A title whose quote opens and is not closed before the bracket: '... including "Smile'.
_OPEN_TITLE = re.compile(r"^(?:[^\"]*\"[^\"]*\")*[^\"]*\"([^\"]+)$|\u201c([^\u201d]+)$")


@lru_cache(maxsize=1024)
def _named_years(text: str) -> dict[str, str]:
    """Each name of ``text`` (its last words) with the year in brackets after it; a name
    given two years has none."""
    found: dict[str, set[str]] = {}
    for match in _NAMED_YEAR.finditer(text):
        name = _name(match.group(1))
        if name:
            found.setdefault(name, set()).add(match.group(2))
    return {name: years.pop() for name, years in found.items() if len(years) == 1}
