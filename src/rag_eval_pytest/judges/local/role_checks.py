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
from typing import TYPE_CHECKING

from ...text.lexicon import any_of
from ...text.sentences import split_sentences
from ...text.words import content_words
from .checks import Finding, alone_holding
from .facts import negation_cues, without_names
from .quantities import quantities
from .roles import (
    DAY_WORDS,
    SPAN_WORDS,
    Days,
    Route,
    Time,
    routes,
    same_place,
    times,
    weekdays,
)
from .tables import table

if TYPE_CHECKING:
    from collections.abc import Sequence


def check_times(claim: str, evidence: str, contexts: str) -> list[Finding]:
    """Times of day of the claim that the evidence gives another time for, in the same role
    ("closes at 9 am" against "closes at 6 pm"), or in the other half of the day ("9 pm"
    against "9 am": am and pm compare exactly); a time no context states is a gap."""
    near = times(evidence)
    findings = [_time_finding(said, near, contexts) for said in times(claim)]
    found = [finding for finding in findings if finding is not None]
    return found or _closed_all_day(claim, evidence, near)


def _closed_all_day(claim: str, evidence: str, near: tuple[Time, ...]) -> list[Finding]:
    """A claim that says a thing is closed, at no time of day, where the evidence's sentence
    about it gives it hours ("The store is closed on Christmas Eve." against "On Christmas
    Eve the store closes at 2 pm."): it is open part of the day. An opposite, not a number:
    "closed for cleaning" may be part of the day too."""
    if not near or not _CLOSED.search(claim) or times(claim):
        return []
    hours = _hours_of(content_words(claim) - _CLOSING_WORDS, evidence)
    if hours is None:
        return []
    message = f"claims it is closed; the context gives its hours ({times(hours)[0].text})"
    return [Finding("opposite", "conflict", message)]


def _hours_of(topic: frozenset[str], evidence: str) -> str | None:
    """The evidence's first sentence that holds every word of ``topic`` and gives hours
    ("closes at 2 pm")."""
    return next(
        (
            s
            for s in split_sentences(evidence)
            if topic <= content_words(s) and times(s) and _HOURS.search(s)
        ),
        None,
    )


_CLOSED = re.compile(r"\b(?:is|are|will be|remains?|stays?)\s+closed\b", re.IGNORECASE)
_HOURS = re.compile(
    r"\b(?:clos(?:es|ing)|opens?|opening|open)\s+(?:at|until|till|from|between)\b", re.IGNORECASE
)
_CLOSING_WORDS = content_words("closed closes closing open opens")


def _time_finding(said: Time, near: tuple[Time, ...], contexts: str) -> Finding | None:
    """A conflict with the evidence's time in the claim's time's place, else a gap where no
    context states it."""
    equal = [t for t in near if said.same(t)]
    rival = _other_time(said, near, equal)
    if rival is not None:
        message = f"claims {_quoted(said)}; the context says {_quoted(rival)}"
        return Finding("numbers", "conflict", message)
    if not equal and not _stated(said, contexts):
        return Finding("numbers", "gap", f"claims {said.text}; the contexts state no such time")
    return None


def _rival(said: Time, near: tuple[Time, ...], equal: list[Time]) -> Time | None:
    """The evidence's time in the claim's time's place when it is another time: the one of
    the same role and clause words, unless an equal time holds that place as well."""
    better = [t for t in near if t not in equal and _beats_all(said, t, equal)]
    return max(
        better, key=lambda t: (_role_match(said, t), len(said.words & t.words)), default=None
    )


def _other_time(said: Time, near: tuple[Time, ...], equal: list[Time]) -> Time | None:
    """The evidence's time in the claim's time's place that says otherwise: another time
    (:func:`_rival`), or the same one at the other end of its span (:func:`_turned_round`)."""
    return _rival(said, near, equal) or _turned_round(said, equal)


def _turned_round(said: Time, equal: list[Time]) -> Time | None:
    """The evidence's equal time where each equal time has the other role, about the claim's
    thing: "before 3 pm" against "Check-in is after 3 pm", "closes at 9 pm" against "opens at
    9 pm"."""
    turned = [t for t in equal if _role_match(said, t) == -1 and said.words & t.words]
    return turned[0] if turned and len(turned) == len(equal) else None


def _beats_all(said: Time, other: Time, equal: list[Time]) -> bool:
    """Whether ``other`` holds the claim's time's place better than each equal time."""
    return all(_beats(said, other, mine) for mine in equal)


def _beats(said: Time, other: Time, mine: Time) -> bool:
    """Whether ``other`` holds the place of ``said`` better than ``mine``: more of its
    clause's words with a role as close, or its role where ``mine`` has the other one; never
    where ``mine`` has the claim's days and ``other`` others, always where ``other`` has
    them and ``mine`` others, with a role as close ("weekends from 8:00" holds "At weekends
    the pool opens at 8 am", not "weekdays from 6:30")."""
    role, mine_role = _role_match(said, other), _role_match(said, mine)
    by_days = _days_place(said, other, mine)
    if by_days is not None:
        return by_days and role >= mine_role
    return _beats_by_words(said, other, mine, role, mine_role)


def _beats_by_words(said: Time, other: Time, mine: Time, role: int, mine_role: int) -> bool:
    """More of the claim's clause words with a role as close, or its role where ``mine``
    has the other one."""
    words, mine_words = len(said.words & other.words), len(said.words & mine.words)
    return (words > mine_words and role >= mine_role) or (
        role == 1 and mine_role == -1 and words >= mine_words
    )


def _days_place(said: Time, other: Time, mine: Time) -> bool | None:
    """Whether the days of the times' clauses say ``other`` holds the place of ``said``
    (True: it has the claim's days and ``mine`` others) or not (False: the other way
    round); ``None`` where they do not tell."""
    days, mine_days, other_days = (t.words & DAY_WORDS for t in (said, mine, other))
    if _other_days(days, mine_days, other_days):
        return False
    return True if _other_days(days, other_days, mine_days) else None


def _other_days(days: frozenset[str], holding: frozenset[str], others: frozenset[str]) -> bool:
    """Whether ``holding`` has some of the claim's ``days`` and ``others`` only other days."""
    return bool(days & holding and others and not days & others)


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
_ROLES = table("roles")
_CLOSING = re.compile(rf"\b({any_of(_ROLES.phrases('closing'))})\b", re.IGNORECASE)
_DAY_WORDS = SPAN_WORDS | content_words(" ".join(_ROLES.phrases("day_words")))
_PRONOUN = re.compile(rf"\b({any_of(_ROLES.phrases('pronouns'))})\b", re.IGNORECASE)
_DAY_CLAUSE = re.compile(r"[,;:()]|\s[-–—]\s|\b(?:but|while|whereas)\b|(?<=[.!?])\s", re.I)


def check_days(claim: str, evidence: str) -> list[Finding]:
    """Days of the week the claim says something happens on that the evidence, which names
    the days it happens on, does not ("Tuesday to Saturday" against "Monday to Friday").
    Days in a negated or closing clause ("but not on Sundays", "closed on Mondays") are the
    days it does not happen, on either side; the evidence's days are those of its sentences
    about what the claim is about (a word in common besides the days). A name's days and
    denials ("Hey Monday", "Never Shout Never") are neither."""
    claim, evidence = without_names(claim, evidence), without_names(evidence, claim)
    about = _about(claim, evidence)
    stated = _days_of(about)
    denied = _days_of(about, denied=True)
    closing = _on_closed_days(claim, denied) or _closed_on_open_days(claim, stated, denied)
    if closing or not stated:
        return closing
    return _days_apart(claim, stated, about)


def _days_apart(claim: str, stated: list[Days], about: list[str]) -> list[Finding]:
    """The conflicts of the claim's days with the days the evidence states (see
    :func:`check_days`)."""
    found = _unknown_days(claim, stated) or _other_range_end(claim, stated)
    return found or _bound_days(claim, about) or _how_often(claim, about)


def _days_of(sentences: list[str], denied: bool = False) -> list[Days]:
    """The days of the sentences' clauses that say something happens (``denied``: that it
    does not)."""
    return [days for sentence in sentences for days in _affirmed(sentence, denied)]


def _union(named: Sequence[Days]) -> frozenset[int]:
    """Every day the spans name."""
    return frozenset().union(*(d.days for d in named))


def _listed(named: Sequence[Days]) -> str:
    """The spans as written, each once: "Monday to Friday and Sundays"."""
    return " and ".join(dict.fromkeys(d.text for d in named))


def _first_unknown(text: str, stated: Sequence[Days]) -> Days | None:
    """The first span of days ``text`` affirms that has a day ``stated`` does not name."""
    known = _union(stated)
    return next((said for said in _affirmed(text) if not said.days <= known), None)


def _on_closed_days(claim: str, denied: list[Days]) -> list[Finding]:
    """The days it does not happen on ("The museum is closed on Mondays") against a claim of
    every day: "claims every day; the context says closed on Mondays"."""
    closed = _union(denied)
    for said in _affirmed(claim):
        if said.days & closed:
            says = " and ".join(dict.fromkeys(f"not on {d.text}" for d in denied))
            return [Finding("days", "conflict", f"claims {said.text}; the context says {says}")]
    return []


def _closed_on_open_days(claim: str, stated: list[Days], denied: list[Days]) -> list[Finding]:
    """The days the claim says it does not happen on ("closed on Saturdays") that the
    evidence says it happens on and never denies ("open on Saturday mornings and closed on
    Sundays")."""
    open_days, closed = _union(stated), _union(denied)
    for said in _affirmed(claim, denied=True):
        if said.days & open_days and not said.days & closed:
            message = f"claims not on {said.text}; the context says {_listed(stated)}"
            return [Finding("days", "conflict", message)]
    return []


def _unknown_days(claim: str, stated: list[Days]) -> list[Finding]:
    """Days of the claim the evidence, which names the days it happens on, does not name."""
    said = _first_unknown(claim, stated)
    if said is None:
        return []
    message = f"claims {said.text}; the context says {_listed(stated)}"
    return [Finding("days", "conflict", message)]


def _other_range_end(claim: str, stated: list[Days]) -> list[Finding]:
    """A range of days of the claim that shares one end with a range the evidence states
    and not the other ("Tuesday to Friday" against "Monday to Friday": every day it names is
    one the evidence names, but it says the week starts on another day)."""
    theirs = [(s.ends, s) for s in stated if s.ends is not None]
    for said in _affirmed(claim):
        other = _range_apart(said, theirs)
        if other is not None:
            message = f"claims {said.text}; the context says {other.text}"
            return [Finding("days", "conflict", message)]
    return []


def _range_apart(said: Days, theirs: list[tuple[tuple[int, int], Days]]) -> Days | None:
    """The evidence's range (of ``theirs``, each with its ends) that shares one end with the
    claim's range ``said`` and not the other, where none is ``said`` itself."""
    mine = said.ends
    if mine is None or any(ends == mine for ends, _ in theirs):
        return None  # no range, or one the evidence states as well
    return next((s for ends, s in theirs if _one_end_apart(mine, ends)), None)


def _one_end_apart(mine: tuple[int, int], theirs: tuple[int, int]) -> bool:
    """Whether two ranges of days share one end and not the other."""
    return (mine[0] == theirs[0]) != (mine[1] == theirs[1])


def _bound_days(claim: str, about: list[str]) -> list[Finding]:
    """Days each of the claim's clauses gives its own thing that the evidence's clauses about
    that thing do not: "Deliveries arrive on Fridays and pickups happen on Mondays" against
    "Deliveries arrive on Mondays and pickups happen on Fridays", where the sentence names
    both days."""
    theirs = [c for sentence in about for c in _day_clauses(sentence) if _affirmed(c)]
    for clause in _day_clauses(claim):
        found = _unbound_days(clause, _clauses_about(clause, theirs))
        if found:
            return found
    return []


def _how_often(claim: str, about: list[str]) -> list[Finding]:
    """A day the claim gives every other week where the clause about its thing gives it
    every week, or the other way round ("Rubbish is collected every other Tuesday." against
    "Rubbish is collected every Tuesday; recycling every other Friday.")."""
    theirs = [c for sentence in about for c in _day_clauses(sentence)]
    for clause in _day_clauses(claim):
        other = _other_often(clause, _clauses_about(clause, theirs))
        if other is not None:
            message = f"claims {_often(clause)}; the context says {_often(other)}"
            return [Finding("days", "conflict", message)]
    return []


def _other_often(clause: str, bound: list[str]) -> str | None:
    """The first of the clauses about the claim's clause's thing that gives one of its days
    as often otherwise."""
    return next((b for b in bound if _as_often(clause, b)), None)


def _as_often(clause: str, bound: str) -> bool:
    """Whether the two clauses share a day and one gives it every other week, the other not
    (true: they differ)."""
    shared = _union(_affirmed(clause)) & _union(_affirmed(bound))
    return bool(shared) and _alternate(clause) != _alternate(bound)


_ALTERNATE = re.compile(
    r"\b(?:every other|every second|alternate|fortnightly|biweekly)\b", re.IGNORECASE
)


def _alternate(clause: str) -> bool:
    return bool(_ALTERNATE.search(clause))


def _often(clause: str) -> str:
    """How often a clause says its days come: "every other Tuesday", "every Tuesday"."""
    days = _listed(_affirmed(clause))
    return f"every other {days}" if _alternate(clause) else f"every {days}"


def _clauses_about(clause: str, theirs: list[str]) -> list[str]:
    """The clauses about the claim's clause's thing: the one later clause that alone holds
    one of its words or numbers (it leaves out what it shares with the first: "... and from
    8 am to 8 pm at weekends"), else those sharing most of its words ("the flea market opens",
    not "the farmers' market opens")."""
    topic = _topic_words(clause)
    alone = [i for i in alone_holding(topic, [_topic_words(c) for c in theirs]) if i > 0]
    if len(alone) == 1:
        return [theirs[alone[0]]]
    return _sharing_most(topic, theirs)


def _sharing_most(topic: frozenset[str], theirs: list[str]) -> list[str]:
    """The clauses that share most of the words ``topic`` (none where none shares one)."""
    shared = [len(content_words(c) & topic) for c in theirs]
    return [c for c, n in zip(theirs, shared, strict=True) if n and n == max(shared)]


def _topic_words(text: str) -> frozenset[str]:
    """The content words of ``text`` but the days', its numbers, and the end of a span its
    verb gives its days ("starts on Sunday ... and ends on Friday")."""
    return (content_words(text) - _DAY_WORDS) | frozenset(re.findall(r"\d+", text)) | _ends(text)


def _ends(text: str) -> frozenset[str]:
    """The ends of a span the verbs of ``text`` name: "<start>" for "opens", "starts",
    "begins", "<end>" for "closes", "ends"."""
    words = content_words(text)
    return frozenset(end for end, verbs in _SPAN_ENDS.items() if words & verbs)


_SPAN_ENDS = {
    "<start>": content_words("open start begin"),
    "<end>": content_words("close end"),
}


def _unbound_days(clause: str, bound: list[str]) -> list[Finding]:
    """Days the claim's clause gives that the clauses about its thing do not name."""
    if not bound:
        return []
    named = [d for c in bound for d in _affirmed(c)]
    said = _first_unknown(clause, named)
    if said is None:
        return []
    message = f"claims {said.text} for {_topic_of(clause)}; the context says {_listed(named)}"
    return [Finding("days", "conflict", message)]


_AND = re.compile(r"\band\b", re.IGNORECASE)


def _day_clauses(text: str) -> list[str]:
    """The clauses of ``text`` that name days, split at "and" too where each side has words
    of its own besides days ("Deliveries arrive on Mondays and pickups happen on Fridays",
    not "open Monday and Tuesday")."""
    return [
        part
        for clause in _DAY_CLAUSE.split(text)
        for part in _split_at_and(clause or "")
        if weekdays(part)
    ]


def _split_at_and(clause: str) -> list[str]:
    """The clause's sides of "and" where each has words or numbers of its own besides days
    ("open 24 hours on weekdays and from 8 am to 8 pm at weekends"), else the clause."""
    parts = _AND.split(clause)
    own = all(content_words(p) - _DAY_WORDS or re.search(r"\d", p) or _ends(p) for p in parts)
    return parts if len(parts) > 1 and own else [clause]


def _topic_of(clause: str) -> str:
    """The first word of a clause that is not a day's (the thing its days are bound to)."""
    words = [w for w in re.findall(r"[^\W\d_]+", clause) if content_words(w) - _DAY_WORDS]
    return words[0].lower() if words else "it"


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
    does not, a negated or closing clause; "open on Saturday mornings and closed on Sundays"
    is two)."""
    return [
        days
        for part in _clauses(text)
        if denied == bool(negation_cues(part) or _CLOSING.search(part))
        for days in weekdays(part)
    ]


def _clauses(text: str) -> list[str]:
    """The clauses of ``text``, split at "and" too where each side has words of its own."""
    return [
        part for clause in _DAY_CLAUSE.split(text) for part in _split_at_and(clause or "") if part
    ]


def check_routes(claim: str, evidence: str) -> list[Finding]:
    """A route of the claim whose ends the evidence has the other way round ("from Berlin to
    Paris" against "from Paris to Berlin"), unless the evidence also has it this way."""
    theirs = routes(evidence)
    for route in routes(claim):
        reversed_route = _reversed(route, theirs)
        if reversed_route is not None:
            message = f"claims {route.text}; the context says {reversed_route.text}"
            return [Finding("order", "conflict", message)]
    return []


def _reversed(route: Route, theirs: tuple[Route, ...]) -> Route | None:
    """The evidence's route that has the claim's route's ends the other way round, unless
    one of its routes goes this way."""
    forward, backward = _ends_matched(route, theirs)
    if _goes_this_way(forward, backward):
        return None
    rows = zip(theirs, forward, backward, strict=True)
    return next((r for r, f, b in rows if b > f and _ends_swapped(route, r)), None)


def _ends_matched(route: Route, theirs: tuple[Route, ...]) -> tuple[list[float], list[float]]:
    """How much each of the evidence's routes has the route's ends this way, and the other
    way round."""
    forward = [
        same_place(route.origin, r.origin) + same_place(route.destination, r.destination)
        for r in theirs
    ]
    backward = [
        same_place(route.origin, r.destination) + same_place(route.destination, r.origin)
        for r in theirs
    ]
    return forward, backward


def _goes_this_way(forward: list[float], backward: list[float]) -> bool:
    return any(f > 0 and f >= b for f, b in zip(forward, backward, strict=True))


def _ends_swapped(route: Route, theirs: Route) -> bool:
    """Whether each end of the route is the other end of ``theirs``."""
    return bool(
        same_place(route.origin, theirs.destination)
        and same_place(route.destination, theirs.origin)
    )
