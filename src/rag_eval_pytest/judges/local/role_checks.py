"""Checks of facts bound to a role: which time opens and which closes, which days, which
way a route goes.

The number check sees "opens at 6 pm and closes at 9 am" state the two times of "opens at
9 am and closes at 6 pm", and similarity sees the same words in "from Berlin to Paris" as in
"from Paris to Berlin". These checks compare each time with the evidence's time of the same
role (the word before it, the words of its clause), the days a claim names with the days the
evidence names, and the two ends of a route with the evidence's. Each finding is a conflict
with both sides in its message ("claims “opens at 6 pm”; the context says “opens at 9 am”"),
or, for a time no context states, a gap.
"""

from __future__ import annotations

import re

from ...text.facts import content_words, negation_cues, quantities
from ...text.roles import SPAN_WORDS, Days, Time, routes, same_place, times, weekdays
from ...text.sentences import split_sentences
from .checks import Finding


def check_times(claim: str, evidence: str, contexts: str) -> list[Finding]:
    """Times of day of the claim that the evidence gives another time for, in the same role
    ("closes at 9 am" against "closes at 6 pm"), or in the other half of the day ("9 pm"
    against "9 am": am and pm compare exactly); a time no context states is a gap."""
    near = times(evidence)
    findings = []
    for said in times(claim):
        equal = [t for t in near if said.same(t)]
        rival = _rival(said, near, equal)
        if rival is not None:
            findings.append(
                Finding(
                    "numbers",
                    "conflict",
                    f"claims {_quoted(said)}; the context says {_quoted(rival)}",
                )
            )
        elif not equal and not _stated(said, contexts):
            findings.append(
                Finding("numbers", "gap", f"claims {said.text}; the contexts state no such time")
            )
    return findings


def _rival(said: Time, near: tuple[Time, ...], equal: list[Time]) -> Time | None:
    """The evidence's time in the claim's time's place when it is another time: the one of
    the same role and clause words, unless an equal time holds that place as well."""
    others = [t for t in near if t not in equal]
    if not others:
        return None
    if not equal:
        return max(others, key=lambda t: (_role_match(said, t), len(said.words & t.words)))

    def beats(other: Time, mine: Time) -> bool:
        role, mine_role = _role_match(said, other), _role_match(said, mine)
        words, mine_words = len(said.words & other.words), len(said.words & mine.words)
        return (words > mine_words and role >= mine_role) or (
            role == 1 and mine_role == -1 and words >= mine_words
        )

    better = [t for t in others if all(beats(t, mine) for mine in equal)]
    return max(
        better, key=lambda t: (_role_match(said, t), len(said.words & t.words)), default=None
    )


def _quoted(time: Time) -> str:
    """A time as a reason shows it: quoted with the word that gives its role ("“opens at 9
    am”"), bare without one ("9 am")."""
    bare = time.text[0].isdigit() or time.text in ("noon", "midnight")
    return time.text if bare else f"\u201c{time.text}\u201d"


def _role_match(a: Time, b: Time) -> int:
    """1 for the same role ("opens", "from"), -1 for the other one, 0 when either has none."""
    if not a.role or not b.role:
        return 0
    return 1 if a.role == b.role else -1


def _stated(said: Time, contexts: str) -> bool:
    """Whether a context gives the time, or its hour as a bare number ("opens at 9")."""
    return any(said.same(t) for t in times(contexts)) or any(
        q.value == said.hour and not q.unit for q in quantities(contexts)
    )


# A clause that says something does not happen on its days: "no deliveries on Sundays",
# "closed on Mondays", "except Sundays".
_CLOSING = re.compile(r"\b(closed|shut|except|excluding|unavailable)\b", re.IGNORECASE)
_DAY_WORDS = SPAN_WORDS | content_words(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays weekday weekdays weekend weekends daily every day days "
    "week"
)
_PRONOUN = re.compile(r"\b(it|its|they|their|we|our)\b", re.IGNORECASE)
_DAY_CLAUSE = re.compile(r"[,;:()]|\s[-–—]\s|\b(?:but|while|whereas)\b|(?<=[.!?])\s", re.I)


def check_days(claim: str, evidence: str) -> list[Finding]:
    """Days of the week the claim says something happens on that the evidence, which names
    the days it happens on, does not ("Tuesday to Saturday" against "Monday to Friday").
    Days in a negated or closing clause ("but not on Sundays", "closed on Mondays") are the
    days it does not happen, on either side; the evidence's days are those of its sentences
    about what the claim is about (a word in common besides the days)."""
    about = _about(claim, evidence)
    stated = [days for sentence in about for days in _affirmed(sentence)]
    # The days it does not happen on ("The museum is closed on Mondays") against a claim of
    # every day: "claims every day; the context says closed on Mondays".
    denied = [days for sentence in about for days in _affirmed(sentence, denied=True)]
    closed = frozenset().union(*(d.days for d in denied))
    for said in _affirmed(claim):
        if said.days & closed:
            says = " and ".join(dict.fromkeys(f"not on {d.text}" for d in denied))
            return [Finding("days", "conflict", f"claims {said.text}; the context says {says}")]
    if not stated:
        return []
    known = frozenset().union(*(d.days for d in stated))
    for said in _affirmed(claim):
        if not said.days <= known:
            says = " and ".join(dict.fromkeys(d.text for d in stated))
            return [Finding("days", "conflict", f"claims {said.text}; the context says {says}")]
    return _bound_days(claim, about)


def _bound_days(claim: str, about: list[str]) -> list[Finding]:
    """Days each of the claim's clauses gives its own thing that the evidence's clauses about
    that thing do not: "Deliveries arrive on Fridays and pickups happen on Mondays" against
    "Deliveries arrive on Mondays and pickups happen on Fridays", where the sentence names
    both days."""
    theirs = [c for sentence in about for c in _day_clauses(sentence) if _affirmed(c)]
    for clause in _day_clauses(claim):
        topic = content_words(clause) - _DAY_WORDS
        shared = [len(content_words(c) & topic) for c in theirs]
        # The clauses about the claim's thing: those sharing most of its words ("the flea
        # market opens", not "the farmers' market opens").
        bound = [c for c, n in zip(theirs, shared, strict=True) if n and n == max(shared)]
        if not bound:
            continue
        known = frozenset().union(*(d.days for c in bound for d in _affirmed(c)))
        for said in _affirmed(clause):
            if not said.days <= known:
                says = " and ".join(dict.fromkeys(d.text for c in bound for d in _affirmed(c)))
                message = f"claims {said.text} for {_topic_of(clause)}; the context says {says}"
                return [Finding("days", "conflict", message)]
    return []


_AND = re.compile(r"\band\b", re.IGNORECASE)


def _day_clauses(text: str) -> list[str]:
    """The clauses of ``text`` that name days, split at "and" too where each side has words
    of its own besides days ("Deliveries arrive on Mondays and pickups happen on Fridays",
    not "open Monday and Tuesday")."""
    clauses = []
    for clause in _DAY_CLAUSE.split(text):
        parts = _AND.split(clause or "")
        own = all(content_words(p) - _DAY_WORDS for p in parts)
        clauses.extend(parts if len(parts) > 1 and own else [clause or ""])
    return [c for c in clauses if weekdays(c)]


def _topic_of(clause: str) -> str:
    """The first word of a clause that is not a day's (the thing its days are bound to)."""
    words = [w for w in re.findall(r"[^\W\d_]+", clause) if content_words(w) - _DAY_WORDS]
    return words[0].lower() if words else "it"


def check_day_times(claim: str, context: str) -> list[Finding]:
    """Times the claim gives for days that the context, naming the same days, gives other
    times for: "open from 9 am to 8 pm every day" against "Monday to Saturday from 9 am to 8
    pm. On Sundays it opens from 11 am to 5 pm." The context's days and times are those of its
    sentences about the claim's thing (see :func:`check_days`), each sentence binding its times
    to its days; the claim's, each clause's."""
    stated = [
        (frozenset().union(*(d.days for d in named)), found)
        for sentence in _about(claim, context)
        if (named := _affirmed(sentence)) and (found := times(sentence))
    ]
    for clause in _DAY_CLAUSE.split(claim):
        said_days = frozenset().union(*(d.days for d in _affirmed(clause or "")))
        said = times(clause or "")
        if not said_days or not said:
            continue
        for their_days, found in stated:
            if their_days & said_days and not all(any(t.same(f) for f in found) for t in said):
                day = " and ".join(d.text for d in _affirmed(clause))
                ours, theirs = (" ".join(t.text for t in group) for group in (said, found))
                message = f"claims {ours} for {day}; the context says {theirs}"
                return [Finding("numbers", "conflict", message)]
    return []


def _about(claim: str, evidence: str) -> list[str]:
    """The sentences of ``evidence`` about what ``claim`` is about: a word in common besides
    the days and the words that place them, or "it" right after such a sentence ("The store is
    open Monday to Saturday. On Sundays it opens at 11 am.")."""
    topic = content_words(claim) - _DAY_WORDS
    about = []
    follows = False
    for sentence in split_sentences(evidence):
        follows = bool(content_words(sentence) & topic) or (
            follows and bool(_PRONOUN.search(sentence))
        )
        if follows:
            about.append(sentence)
    return about


def _affirmed(text: str, denied: bool = False) -> list[Days]:
    """The days of the clauses of ``text`` that say something happens (``denied``: that it
    does not, a negated or closing clause)."""
    return [
        days
        for clause in _DAY_CLAUSE.split(text)
        if clause and denied == bool(negation_cues(clause) or _CLOSING.search(clause))
        for days in weekdays(clause)
    ]


def check_routes(claim: str, evidence: str) -> list[Finding]:
    """A route of the claim whose ends the evidence has the other way round ("from Berlin to
    Paris" against "from Paris to Berlin"), unless the evidence also has it this way."""
    theirs = routes(evidence)
    for route in routes(claim):
        forward = [
            same_place(route.origin, r.origin) + same_place(route.destination, r.destination)
            for r in theirs
        ]
        backward = [
            same_place(route.origin, r.destination) + same_place(route.destination, r.origin)
            for r in theirs
        ]
        if any(f > 0 and f >= b for f, b in zip(forward, backward, strict=True)):
            continue
        for r, f, b in zip(theirs, forward, backward, strict=True):
            if (
                b > f
                and same_place(route.origin, r.destination)
                and same_place(route.destination, r.origin)
            ):
                message = f"claims {route.text}; the context says {r.text}"
                return [Finding("order", "conflict", message)]
    return []
