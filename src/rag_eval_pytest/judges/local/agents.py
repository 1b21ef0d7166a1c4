"""The agents check: a claim that gives an act to another doer than its contexts do ("Your
team lead logs leave requests." against "Leave requests are approved by your team lead, then
logged by HR.").

The contexts name the doer of an act after "by" ("approved by your team lead", "logged by
HR", "signed off by a director"). A claim gives an act to a doer the same way ("are logged by
your team lead") or as the subject right before the act written as a verb ("Your team lead
logs ..."). It is in conflict when the contexts name a doer of that act, the claim's is none
of them, and the claim's is the doer of another act of the contexts, by its words or by that
act's name ("Pull requests are merged by the reviewer." against "reviewed by a teammate and
merged by the author"), or that the contexts credit with a work of their own ("The Kingsmen
wrote the song." against "written by Richard Berry ... the hit version by The Kingsmen"): the
two doers in each other's places. An act is read by its word's stem, or by the act a table
gives its form ("wrote", "written": write). A doer the contexts never name, or an act they give
no doer, is left to the other checks and the support model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ...text.words import content_words, stem, tokens
from .checks import Finding
from .tables import table

_DOER_WORDS = 3
"""The words after "by" (or before the act) read as its doer, a determiner aside."""
_WORDS = table("claims")
_DETERMINERS = _WORDS.words("determiners")
_ENDS = _WORDS.words("doer_ends")
_ACTS = {form: act for act, forms in _WORDS.groups("irregular_acts").items() for form in forms}
_PARTICIPLES = "|".join(sorted(_ACTS, key=len, reverse=True))
# An act in the passive, and what follows "by": "approved by your team lead".
_PASSIVE = re.compile(
    rf"\b([A-Za-z]+(?:ed|en)|{_PARTICIPLES})(?:\s+(?:off|out|up|over|on|in))?\s+by\s+"
    r"(?=([^,;.:!?]+))",
    re.IGNORECASE,
)
# A work credited to a name: "the hit version by The Kingsmen".
_CREDIT = re.compile(r"\b([a-z]+)\s+by\s+(?=((?:[Tt]he\s+)?[A-Z][^,;.:!?]*))")


@dataclass(frozen=True)
class _Deed:
    """An act (its stem, as written) and its doer (its content words, as written)."""

    act: str
    act_text: str
    doer: frozenset[str]
    doer_text: str


def check_agents(claim: str, contexts: str) -> list[Finding]:
    """A conflict where the claim gives an act of the contexts to the doer of another act of
    theirs (see the module)."""
    deeds = _deeds(contexts)
    credited = deeds + _credits(contexts)
    if len(_acts(credited)) < 2:  # no other act or work to swap a doer with
        return []
    found = [_conflict(m, deeds, credited) for m in _claimed(claim, _acts(deeds))]
    return [f for f in found if f is not None][:1]


def _acts(deeds: tuple[_Deed, ...]) -> set[str]:
    return {d.act for d in deeds}


def _conflict(mine: _Deed, deeds: tuple[_Deed, ...], credited: tuple[_Deed, ...]) -> Finding | None:
    """The conflict of the claim's deed with the contexts' deeds, if its doer is another
    act's or a work's (``credited``)."""
    theirs = [d for d in deeds if d.act == mine.act]
    others = [d for d in credited if d.act != mine.act]
    if not _swapped(mine, theirs, others):
        return None
    return Finding("order", "conflict", _message(mine, theirs))


def _message(mine: _Deed, theirs: list[_Deed]) -> str:
    said = " or ".join(f"\u201c{d.doer_text}\u201d" for d in theirs)
    return (
        f"the claim gives \u201c{mine.act_text}\u201d to \u201c{mine.doer_text}\u201d; "
        f"the context gives it to {said}"
    )


def _swapped(mine: _Deed, theirs: list[_Deed], others: list[_Deed]) -> bool:
    """Whether the claim's doer is none of the act's doers and the doer of another act, by
    its words or by that act's name ("the reviewer" of "reviewed by a teammate")."""
    if any(mine.doer & d.doer for d in theirs):
        return False
    named = {stem(word) for word in mine.doer}
    return any(mine.doer <= d.doer or d.act in named for d in others)


def _act(word: str) -> str:
    """The act a word names: its form's in the table, else its stem."""
    lowered = word.lower()
    return _ACTS.get(lowered) or stem(lowered)


@lru_cache(maxsize=1024)
def _deeds(text: str) -> tuple[_Deed, ...]:
    """Each "<act>ed by <doer>" of ``text``."""
    return _by(_PASSIVE, text)


@lru_cache(maxsize=1024)
def _credits(text: str) -> tuple[_Deed, ...]:
    """Each work "<noun> by <Name>" of ``text`` that is no act in the passive."""
    acts = {d.act_text for d in _deeds(text)}
    return tuple(d for d in _by(_CREDIT, text) if d.act_text not in acts)


def _by(pattern: re.Pattern[str], text: str) -> tuple[_Deed, ...]:
    """Each act or work ``pattern`` finds before "by", with the doer after it."""
    found = []
    for match in pattern.finditer(text):
        written = _doer_after(match.group(2).split())
        if written:
            act = match.group(1)
            found.append(_Deed(_act(act), act, content_words(written), written))
    return tuple(found)


def _doer_after(words: list[str]) -> str:
    """The few words after "by" that name a doer (a determiner kept), up to a word that
    ends it ("HR, then ...", "the team lead and ...")."""
    kept: list[str] = []
    for word in words:
        if word.lower() in _ENDS or len(kept) > _DOER_WORDS:
            break
        kept.append(word)
    return " ".join(kept) if content_words(" ".join(kept)) else ""


def _claimed(claim: str, acts: set[str]) -> list[_Deed]:
    """The claim's acts of the contexts with their doers: after "by", or right before the
    act written as a verb ("logs", "logged"; not the noun "log")."""
    passive = [d for d in _deeds(claim) if d.act in acts]
    return passive or _active(tokens(claim), acts)


def _active(words: list[str], acts: set[str]) -> list[_Deed]:
    """The first act of ``acts`` the words give as a verb, with the doer before it."""
    at, act = next(((i, _act(w)) for i, w in enumerate(words) if _as_verb(w, acts)), (0, ""))
    doer = _subject(words[:at]) if act else ""
    return [_Deed(act, words[at], content_words(doer), doer)] if doer else []


def _as_verb(word: str, acts: set[str]) -> bool:
    """Whether ``word`` is one of ``acts`` written as a verb: a form of it other than its
    stem ("logs", "logged"; not "log")."""
    act = _act(word)
    return act in acts and act != word.lower()


def _subject(before: list[str]) -> str:
    """The few words right before an act, back to a determiner (kept) or a word that ends a
    doer ("Your team lead" of "Each month, your team lead logs")."""
    kept: list[str] = []
    for word in reversed(before[-_DOER_WORDS:]):
        if word.lower() in _ENDS:
            break
        kept.insert(0, word)
        if word.lower() in _DETERMINERS:
            break
    return " ".join(kept) if content_words(" ".join(kept)) else ""
