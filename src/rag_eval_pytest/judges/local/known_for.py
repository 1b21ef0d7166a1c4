"""The known-for check: what a thing is best known for is one thing. A claim that gives it
another ("Carl Orff is best known for his opera Der Mond." against "Carl Heinrich Maria Orff
... was a German composer, best known for his cantata "Carmina Burana" (1937).") states what
the contexts do not, though each of its words is theirs ("Der Mond is an opera in one act by
Carl Orff"): a gap, not a conflict (a thing may be best known for two things, and the
contexts may say so elsewhere in other words).

Read where a sentence of the contexts says the same of the claim's subject (a word of the
claim's before the phrase, a name's), with none of the claim's words after it.
"""

from __future__ import annotations

import re

from ...text.sentences import split_sentences
from ...text.words import content_words
from .checks import Finding
from .tables import table

_PHRASES = table("claims").phrases("known_for")
_Said = tuple[frozenset[str], frozenset[str], str]
"""A sentence's words before the phrase, its words after it, and what follows as written."""
_SAID = re.compile(rf"\b({'|'.join(map(re.escape, _PHRASES))})\s+([^,;.!?]+)", re.IGNORECASE)


def check_known_for(claim: str, contexts: str) -> list[Finding]:
    """A gap where the claim says its subject is best known for another thing than the
    contexts do (see the module)."""
    said = _SAID.search(claim)
    if said is None:
        return []
    subject = content_words(claim[: said.start()])
    theirs = [t for t in _known_for(said.group(1), contexts) if t[0] & subject]
    if not _another(content_words(said.group(2)), theirs):
        return []
    return [Finding("known_for", "gap", _message(said.group(1), said.group(2), theirs[0][2]))]


def _another(mine: frozenset[str], theirs: list[_Said]) -> bool:
    """Whether the claim's words after the phrase are none of what any of ``theirs`` (the
    sentences that say it of the claim's subject) says after it."""
    return bool(mine) and bool(theirs) and not any(mine & t[1] for t in theirs)


def _known_for(phrase: str, contexts: str) -> list[_Said]:
    """(the words before, the words after, what follows as written) of each sentence of the
    contexts that says ``phrase``."""
    found = []
    for sentence in split_sentences(contexts):
        match = _SAID.search(sentence)
        if match is not None and match.group(1).lower() == phrase.lower():
            before = content_words(sentence[: match.start()])
            found.append((before, content_words(match.group(2)), match.group(2).strip()))
    return found


def _message(phrase: str, mine: str, theirs: str) -> str:
    return (
        f"says {phrase.lower()} \u201c{mine.strip()}\u201d; "
        f"the context says {phrase.lower()} \u201c{theirs}\u201d"
    )
