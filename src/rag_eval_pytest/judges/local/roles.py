"""Facts whose meaning is their place: times of day with their role, days of the week, the
two ends of a route.

"Opens at 9 am and closes at 6 pm" and "opens at 6 pm and closes at 9 am" hold the same
numbers; "from Paris to Berlin" and "from Berlin to Paris" the same names. What tells them
apart is which time opens and which closes, and which place comes first. Rule-based and
deterministic, English only, like :mod:`.facts`; the local judge compares these between a
claim and its evidence (:mod:`.role_checks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ...text.lexicon import any_of
from ...text.names import DAYS, SHORT_DAYS
from ...text.words import content_words
from .tables import table

# ----------------------------------------------------------------------------- times of day

_ROLES = table("roles")
# The word before a time that says which end of a span it is ("opens at 9 am", "until 6 pm").
_STARTS = _ROLES.words("starts")
_ENDS = _ROLES.words("ends")
ROLE_WORDS = frozenset(content_words(" ".join(_STARTS | _ENDS)))
# The words that place a time or a day in a span: its role words and the verbs of a span
# ("runs from 10 pm to 6 am", "lasts until noon", "available Monday to Friday").
SPAN_WORDS = ROLE_WORDS | content_words(" ".join(_ROLES.phrases("span_verbs")))
_PART_OF_DAY = _ROLES.mapping("parts_of_day")
_HOUR = r"(\d{1,2})(?:[:.](\d{2}))?"
_MERIDIEM = (
    r"(?:([ap])\.?\s?m\b\.?|(?:o'clock\s+)?(?:in\s+the\s+(morning|afternoon|evening)|at\s+(night)))"
)
# "9 am", "9:30 p.m.", "8 in the morning"; "1 to 4 am" and "between 1 and 4 am" give the
# first hour the second one's half of the day.
_TIME = re.compile(
    rf"\b(?:{_HOUR}\s*(?:-|–|—|to|and|until|till)\s*)?{_HOUR}\s*{_MERIDIEM}"
    r"|\b(\d{1,2}):(\d{2})\b(?!\s*(?:[ap]\.?\s?m\b))"
    r"|\b(\d{1,2})\s+o'clock\b"
    r"|\b(noon|midday|midnight)\b",
    re.IGNORECASE,
)
_JOINT = re.compile(r"\s*(?:[-–—]|(to|until|till)\s)\s*", re.IGNORECASE)
# What joins the end of a span to its start after "between" ("between 8:00 and 11:00").
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_DAY_PARTS = content_words(" ".join(_ROLES.phrases("day_parts")))
_CLAUSE = re.compile(
    r"[,;()]|(?<!\d):|:(?!\d)|\s[-–—]\s|\b(?:and|but|while|whereas)\b(?!\s*\d)", re.IGNORECASE
)


@dataclass(frozen=True)
class Time:
    """A time of day as stated: ``minutes`` after midnight; ``exact`` when the text says which
    half of the day (am/pm, a 24-hour clock, noon), else it compares modulo twelve hours
    ("9:00"); ``role`` "start", "end" or "" by the word before it; ``words`` the content
    words of its clause but the role words ("check-out" in "check-out is by 11 am");
    ``text`` as written, from its role word ("closes at 6 pm")."""

    minutes: int
    exact: bool
    role: str
    words: frozenset[str]
    text: str

    def same(self, other: Time) -> bool:
        if self.exact and other.exact:
            return self.minutes == other.minutes
        return self.minutes % 720 == other.minutes % 720

    @property
    def hour(self) -> int:
        """The hour on a twelve-hour clock (for a bare "at 9" elsewhere)."""
        return (self.minutes // 60) % 12 or 12


@lru_cache(maxsize=4096)
def times(text: str) -> tuple[Time, ...]:
    """The times of day of ``text`` in order, each with its role and clause."""
    return tuple(time for _, time in _read_times(text))


def time_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Where the times of ``text`` are written (numbers there are no counts)."""
    return tuple(span for span, _ in _read_times(text))


@lru_cache(maxsize=4096)
def _read_times(text: str) -> tuple[tuple[tuple[int, int], Time], ...]:
    found: list[tuple[tuple[int, int], Time]] = []
    for m in _TIME.finditer(text):
        for stated in _stated(m):
            found.append(_placed(text, found, stated))
    return tuple(found)


@dataclass(frozen=True)
class _Stated:
    """A time as a match of :data:`_TIME` states it: where it is written, its minutes after
    midnight, whether its half of the day is said, and the role a range gives it."""

    start: int
    end: int
    minutes: int
    exact: bool
    role: str = ""


def _placed(
    text: str, found: list[tuple[tuple[int, int], Time]], stated: _Stated
) -> tuple[tuple[int, int], Time]:
    """The time ``stated``, where it is written; it ends the span when it follows the time
    before it across a joint ("9am-5pm", "9 am to 6 pm")."""
    role, lead = stated.role, ""
    if found and not role:
        role, lead = _span_end(text, found[-1], stated) or (role, lead)
    written = text[stated.start : stated.end]
    time = _time(text, stated.start, stated.minutes, stated.exact, role, written, lead)
    if role == "end" and found:  # a span's end is of its start's clause too ("10 am to 4 pm")
        time = replace(time, words=time.words | found[-1][1].words)
    return (stated.start, stated.end), time


def _span_end(
    text: str, before: tuple[tuple[int, int], Time], stated: _Stated
) -> tuple[str, str] | None:
    """("end", the joint's word) where the time ``stated`` follows the time ``before``
    across a joint ("9am-5pm", "9 am to 6 pm"), or across "and" after "between" (a start:
    "between 8:00 and 11:00"); ``None`` otherwise."""
    after = before[0][1]
    joint = _JOINT.fullmatch(text, after, stated.start)
    if joint:
        return "end", f"{joint.group(1)} " if joint.group(1) else ""
    between = before[1].role == "start" and _AND.fullmatch(text, after, stated.start)
    return ("end", "") if between else None


def _stated(m: re.Match[str]) -> list[_Stated]:
    """The times one match of :data:`_TIME` states (none when it is no time of day)."""
    g = m.groups()
    if g[2] is not None:  # a time with its half of the day
        return _with_half(m)
    if g[7] is not None:  # "9:00", "18:30"
        return _on_the_clock(m)
    if g[9] is not None:  # "9 o'clock"
        return [_Stated(m.start(), m.end(), int(g[9]) * 60, False)] if 1 <= int(g[9]) <= 12 else []
    return [_Stated(m.start(), m.end(), 0 if g[10].lower() == "midnight" else 720, True)]


def _with_half(m: re.Match[str]) -> list[_Stated]:
    """ "9 am", "8 in the morning"; "1 to 4 am": the first hour shares the second's half of
    the day, and the two are the span's start and end."""
    g = m.groups()
    half = _half(g)
    second = _minutes(g[2], g[3], half)
    if second is None:
        return []
    first = _minutes(g[0], g[1], _first_half(int(g[0]), int(g[2]), half)) if g[0] else None
    if first is None:
        return [_Stated(m.start(), m.end(), second, True)]
    return [
        _Stated(m.start(1), m.end(2 if g[1] else 1), first, True, "start"),
        _Stated(m.start(3), m.end(), second, True, "end"),
    ]


def _half(g: tuple[str | Any, ...]) -> str:
    """The half of the day a time says: "a" or "p" (from am/pm or the part of the day)."""
    return str(g[4] or _PART_OF_DAY.get((g[5] or g[6] or "").lower(), "")).lower()


def _on_the_clock(m: re.Match[str]) -> list[_Stated]:
    """A time on a 24-hour clock; its half of the day is said from 13:00 and at 0:00."""
    hour, minute = int(m.group(8)), int(m.group(9))
    if hour > 23 or minute > 59:
        return []
    return [_Stated(m.start(), m.end(), hour * 60 + minute, hour == 0 or hour > 12)]


def _first_half(first: int, second: int, half: str) -> str:
    """The half of the day of the first hour of "11 to 2 pm" (am) or "1 to 4 am" (am)."""
    if second == 12:  # "10 to 12 pm": noon ends a morning
        return "a" if half == "p" else "p"
    return half if first <= second or first == 12 else ("a" if half == "p" else "p")


def _minutes(hour: str | None, minute: str | None, half: str) -> int | None:
    if hour is None:
        return None
    h, mm = int(hour), int(minute or 0)
    if not 1 <= h <= 12 or mm > 59:
        return None
    return (h % 12 + (12 if half == "p" else 0)) * 60 + mm


def _shown(minutes: int) -> str:
    """A time of day as a reader writes it ("9 am", "6:30 pm", "noon", "midnight")."""
    if minutes in (0, 720):
        return "midnight" if minutes == 0 else "noon"
    hour, minute = divmod(minutes, 60)
    clock = f"{hour % 12 or 12}" + (f":{minute:02d}" if minute else "")
    return f"{clock} {'pm' if hour >= 12 else 'am'}"


def _time(
    text: str, start: int, minutes: int, exact: bool, role: str, written: str, lead: str
) -> Time:
    """The time at ``start`` with its role (from the words just before it, unless a range
    gave it one) and the content words of its clause."""
    clause_start, clause_end = _clause(text, start, start + len(written))
    if not role:
        role, lead = _role_before(text, clause_start, start) or (role, lead)
    words = content_words(text[clause_start:clause_end]) - ROLE_WORDS - _DAY_PARTS
    shown = _shown(minutes) if exact else written.strip()
    return Time(minutes, exact, role, frozenset(words), f"{lead}{shown}")


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the clause of the text from ``start`` to ``end`` starts and ends."""
    breaks = [m for m in _CLAUSE.finditer(text) if m.end() <= start]
    clause_start = breaks[-1].end() if breaks else 0
    after = _CLAUSE.search(text, end)
    return clause_start, after.start() if after else len(text)


def _role_before(text: str, clause_start: int, start: int) -> tuple[str, str] | None:
    """The role the nearest role word of the (up to four) words before ``start`` in its
    clause gives the time there, and the text from that word ("closes at ")."""
    for word in reversed(list(re.finditer(r"[^\W\d_]+", text[clause_start:start]))[-4:]):
        low = word.group(0).lower()
        if low in _STARTS or low in _ENDS:
            role = "start" if low in _STARTS else "end"
            return role, text[clause_start + word.start() : start]
    return None


# ----------------------------------------------------------------------------- weekdays

_DAY_NAMES = DAYS
_DAY = {name: i for i, name in enumerate(_DAY_NAMES)} | {
    name + "s": i for i, name in enumerate(_DAY_NAMES)
}
_SHORT_DAY = {short: _DAY_NAMES.index(day) for short, day in SHORT_DAYS.items()}
_ANY_DAY = "|".join(sorted({*_DAY, *_SHORT_DAY}, key=len, reverse=True))
_WEEKDAYS = re.compile(
    rf"\b({_ANY_DAY})\.?\s*(?:-|–|—|to|through|thru|until|till)\s*({_ANY_DAY})\b\.?"
    rf"|\b({any_of(_DAY_NAMES)})s?\b"
    r"|\b(weekdays?|weekends?|daily|every\s+day|(?:seven|7)\s+days\s+a\s+week)\b",
    re.IGNORECASE,
)
_SPANS = {
    span: frozenset(_DAY_NAMES.index(day) for day in days)
    for span, days in _ROLES.groups("day_spans").items()
}


@dataclass(frozen=True)
class Days:
    """Days of the week as stated ("Monday to Friday", "Tuesdays", "weekends"), 0 is Monday."""

    days: frozenset[int]
    text: str
    ends: tuple[int, int] | None = None
    """The first and the last day of a range ("Monday to Friday": 0, 4); ``None`` for days
    that are no range ("Tuesdays", "weekends")."""


@lru_cache(maxsize=4096)
def weekdays(text: str) -> tuple[Days, ...]:
    """The days of the week ``text`` names, each span as written."""
    return tuple(_days_at(m) for m in _WEEKDAYS.finditer(text))


def _days_at(m: re.Match[str]) -> Days:
    """The days one match of :data:`_WEEKDAYS` names: a range, a day, or a span's word."""
    text = m.group(0).strip().rstrip(".")
    if m.group(1):
        first, last = (_DAY.get(g.lower(), _SHORT_DAY.get(g.lower())) for g in m.group(1, 2))
        assert first is not None
        assert last is not None
        return Days(_day_range(first, last), text, (first, last))
    if m.group(3):
        return Days(frozenset([_DAY[m.group(3).lower()]]), text)
    return Days(frozenset(_SPANS.get(m.group(4).lower().rstrip("s"), range(7))), text)


def _day_range(first: int, last: int) -> frozenset[int]:
    """The days from ``first`` to ``last``, round the end of the week if need be."""
    return frozenset((first + i) % 7 for i in range((last - first) % 7 + 1))


DAY_WORDS = frozenset((*_DAY_NAMES, *_SPANS))
"""The words :func:`day_words` gives (as :func:`~rag_eval_pytest.text.words.content_words`
reads them)."""


@lru_cache(maxsize=4096)
def day_words(text: str) -> frozenset[str]:
    """The days of the week ``text`` states, as the words another text may name them with:
    "Monday to Wednesday" states Tuesday, "Monday to Friday" states weekdays."""
    days: set[int] = set()
    for span in weekdays(text):
        days |= span.days
    words = {_DAY_NAMES[d] for d in days}
    if days >= set(_SPANS["weekday"]):
        words.add("weekday")
    if days >= set(_SPANS["weekend"]):
        words.add("weekend")
    return frozenset(words)


# ----------------------------------------------------------------------------- routes

_ROUTE = re.compile(
    r"\bfrom\s+((?:[^\W\d_][\w'’-]*\s+){0,3}?[^\W\d_][\w'’-]*)\s+(?:to|into|towards?)\s+"
    r"((?:[^\W\d_][\w'’-]*)(?:\s+[^\W\d_][\w'’-]*){0,3})",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Route:
    """The two ends of a movement, "from the office network to the database servers", as
    content words."""

    origin: frozenset[str]
    destination: frozenset[str]
    text: str


@lru_cache(maxsize=4096)
def routes(text: str) -> tuple[Route, ...]:
    """The "from A to B" of ``text`` whose ends are words, not times or days."""
    found = (_route(m.group(1), m.group(2)) for m in _ROUTE.finditer(text))
    return tuple(route for route in found if route is not None)


def _route(origin_text: str, destination_text: str) -> Route | None:
    """The route between two ends matched, when both ends are words and none a day."""
    origin, destination = _end_words(origin_text), _end_words(destination_text)
    if _names_a_day(f"{origin} {destination}"):
        return None  # "from Monday to Friday": days, checked as days
    route = Route(
        content_words(origin), content_words(destination), f"from {origin} to {destination}"
    )
    return route if route.origin and route.destination else None


def _names_a_day(text: str) -> bool:
    return any(w.lower() in _DAY or w.lower() in _SHORT_DAY for w in text.split())


def _end_words(text: str) -> str:
    """One end of a route, up to the first word after its article that is no content word
    ("Berlin every morning" -> "Berlin", "your savings account" stays whole)."""
    kept: list[str] = []
    for word in text.split():
        if kept and not content_words(word) and any(content_words(k) for k in kept):
            break
        kept.append(word)
    return " ".join(kept)


def same_place(a: frozenset[str], b: frozenset[str]) -> float:
    """How much two ends of a route are the same place: the share of the smaller one's words
    the other has ("savings account" and "current account" share half)."""
    return len(a & b) / max(1, min(len(a), len(b)))
