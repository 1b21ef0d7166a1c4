"""The items of a claim's list that no context gives, where the contexts give the others:
"The Trail jacket comes in black, navy, olive and red." against "The Trail jacket comes in
black, navy and olive." adds red to the list; "mums or chrysanths or daffodils" adds
daffodils. A gap, not a conflict: a list the contexts give in part may go on elsewhere, and
an item may be another's word for one of theirs; but never supported by the wording of the
rest alone (:mod:`.support`).
"""

from __future__ import annotations

import re

from ...text.words import STOPWORDS, content_words, stem, tokens
from .checks import Finding
from .facts import known_name

# Three items or more: "black, navy and red", "Visa, Mastercard, or PayPal", "mums or
# chrysanths or daffodils".
_LIST = re.compile(
    r"[\w'’-]+(?:,\s+[^,.;:!?]+?)+,?\s+(?:and|or)\s+[^,.;:!?]+"
    r"|[\w'’-]+\s+or\s+[^,.;:!?]+?\s+or\s+[^,.;:!?]+",
    re.IGNORECASE,
)
_PARTS = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
LAST_ITEM_WORDS = 3
"""The most words of a list's last item: the words after them are the rest of the claim
("and red for the same price")."""


def check_items(claim: str, contexts: str) -> list[Finding]:
    """A gap for each item of the claim's lists that no context gives, where the contexts
    give another item of the same list."""
    known = {stem(w) for w in content_words(contexts)}
    return [
        Finding("items", "gap", f"lists {item}, which the contexts do not give beside {given}")
        for listed in _LIST.finditer(claim)
        for item, given in _added(_items(listed.group()), known, contexts)
    ]


def _added(items: list[str], known: set[str], contexts: str) -> list[tuple[str, str]]:
    """(an item no context gives, the first item one does) for each such item of a list
    that the contexts give an item of, amounts aside."""
    given = [i for i in items if _given(i, known, contexts)]
    return [(i, given[0]) for i in _others(items, given)] if given else []


def _others(items: list[str], given: list[str]) -> list[str]:
    """The items not ``given``, amounts aside (the number check reads them)."""
    return [i for i in items if i not in given and not _numbered(i)]


def _items(listed: str) -> list[str]:
    """The items of a list: the last word before its first comma, each part between, and up
    to :data:`LAST_ITEM_WORDS` words of its last part (to a stop word after its first)."""
    parts = [p.strip() for p in _PARTS.split(listed) if p.strip()]
    if len(parts) < 3:
        return []
    first = tokens(parts[0])[-1:]
    return [" ".join(first), *parts[1:-1], _last_item(parts[-1])]


def _last_item(part: str) -> str:
    words = tokens(part)[:LAST_ITEM_WORDS]
    ends = next((i for i, w in enumerate(words) if i > 0 and w.lower() in STOPWORDS), len(words))
    return " ".join(words[:ends])


def _given(item: str, known: set[str], contexts: str) -> bool:
    """Whether the contexts give the item: one of its content words, or it as a name ("UK"
    beside "the United Kingdom")."""
    words = content_words(item)
    return not words or bool({stem(w) for w in words} & known) or known_name(item, contexts)


def _numbered(item: str) -> bool:
    """An item with a digit: an amount, which the number check reads."""
    return bool(re.search(r"\d", item))
