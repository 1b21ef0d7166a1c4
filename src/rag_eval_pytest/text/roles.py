"""Facts whose meaning is their place: times of day with their role, days of the week, the
two ends of a route.

"Opens at 9 am and closes at 6 pm" and "opens at 6 pm and closes at 9 am" hold the same
numbers; "from Paris to Berlin" and "from Berlin to Paris" the same names. What tells them
apart is which time opens and which closes, and which place comes first. Rule-based and
deterministic, English only, like :mod:`.facts`; the local judge compares these between a
claim and its evidence (``judges/local/checks.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .facts import content_words

# ----------------------------------------------------------------------------- times of day

# The word before a time that says which end of a span it is ("opens at 9 am", "until 6 pm").
_STARTS = frozenset(
    [
        *("open", "opens", "opening", "opened", "from", "start", "starts", "starting"),
        *("started", "begin", "begins", "beginning", "after", "earliest"),
    ]
)
_ENDS = frozenset(
    [
        *("close", "closes", "closing", "closed", "until", "till", "til", "to", "by", "end"),
        *("ends", "ending", "ended", "before", "latest", "through"),
    ]
)
ROLE_WORDS = frozenset(content_words(" ".join(_STARTS | _ENDS)))
# The words that place a time or a day in a span: its role words and the verbs of a span
# ("runs from 10 pm to 6 am", "lasts until noon", "available Monday to Friday").
SPAN_WORDS = ROLE_WORDS | content_words("run runs running last lasts lasting available")
_PART_OF_DAY = {"morning": "a", "afternoon": "p", "evening": "p", "night": "p"}
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
_DAY_PARTS = content_words("morning afternoon evening night noon midday midnight")
_CLAUSE = re.compile(r"[,;:()]|\s[-–—]\s|\b(?:and|but|while|whereas)\b(?!\s*\d)", re.IGNORECASE)


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

    def add(start: int, end: int, minutes: int, exact: bool, role: str = "") -> None:
        lead = ""
        if found and not role:  # "9am-5pm", "9 am to 6 pm": the second time ends the span
            joint = _JOINT.fullmatch(text, found[-1][0][1], start)
            if joint:
                role, lead = "end", f"{joint.group(1)} " if joint.group(1) else ""
        time = _time(text, start, minutes, exact, role, text[start:end], lead)
        found.append(((start, end), time))

    for m in _TIME.finditer(text):
        g = m.groups()
        if g[2] is not None:  # a time with its half of the day
            half = (g[4] or _PART_OF_DAY.get((g[5] or g[6] or "").lower(), "")).lower()
            second = _minutes(g[2], g[3], half)
            if second is None:
                continue
            first = _minutes(g[0], g[1], _first_half(int(g[0]), int(g[2]), half)) if g[0] else None
            if first is None:
                add(m.start(), m.end(), second, True)
            else:  # "1 to 4 am": the first hour shares the second's half of the day
                add(m.start(1), m.end(2 if g[1] else 1), first, True, "start")
                add(m.start(3), m.end(), second, True, "end")
        elif g[7] is not None:  # "9:00", "18:30"
            hour, minute = int(g[7]), int(g[8])
            if hour <= 23 and minute <= 59:
                add(m.start(), m.end(), hour * 60 + minute, hour == 0 or hour > 12)
        elif g[9] is not None:  # "9 o'clock"
            if 1 <= int(g[9]) <= 12:
                add(m.start(), m.end(), int(g[9]) * 60, False)
        else:
            add(m.start(), m.end(), 0 if g[10].lower() == "midnight" else 720, True)
    return tuple(found)


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
    breaks = [m for m in _CLAUSE.finditer(text) if m.end() <= start]
    clause_start = breaks[-1].end() if breaks else 0
    after = _CLAUSE.search(text, start + len(written))
    clause_end = after.start() if after else len(text)
    if not role:
        for word in reversed(list(re.finditer(r"[^\W\d_]+", text[clause_start:start]))[-4:]):
            low = word.group(0).lower()
            if low in _STARTS or low in _ENDS:
                role = "start" if low in _STARTS else "end"
                lead = text[clause_start + word.start() : start]
                break
    words = content_words(text[clause_start:clause_end]) - ROLE_WORDS - _DAY_PARTS
    shown = _shown(minutes) if exact else written.strip()
    return Time(minutes, exact, role, frozenset(words), f"{lead}{shown}")


# ----------------------------------------------------------------------------- weekdays

_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = {name: i for i, name in enumerate(_DAY_NAMES)} | {
    name + "s": i for i, name in enumerate(_DAY_NAMES)
}
_SHORT_DAY = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3}
_SHORT_DAY |= {"fri": 4, "sat": 5, "sun": 6}
_ANY_DAY = "|".join(sorted({*_DAY, *_SHORT_DAY}, key=len, reverse=True))
_WEEKDAYS = re.compile(
    rf"\b({_ANY_DAY})\.?\s*(?:-|–|—|to|through|thru|until|till)\s*({_ANY_DAY})\b\.?"
    r"|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
    r"|\b(weekdays?|weekends?|daily|every\s+day|(?:seven|7)\s+days\s+a\s+week)\b",
    re.IGNORECASE,
)
_SPANS = {"weekday": range(5), "weekend": range(5, 7)}


@dataclass(frozen=True)
class Days:
    """Days of the week as stated ("Monday to Friday", "Tuesdays", "weekends"), 0 is Monday."""

    days: frozenset[int]
    text: str


@lru_cache(maxsize=4096)
def weekdays(text: str) -> tuple[Days, ...]:
    """The days of the week ``text`` names, each span as written."""
    found = []
    for m in _WEEKDAYS.finditer(text):
        if m.group(1):
            first, last = (_DAY.get(g.lower(), _SHORT_DAY.get(g.lower())) for g in m.group(1, 2))
            assert first is not None
            assert last is not None
            span = frozenset((first + i) % 7 for i in range((last - first) % 7 + 1))
        elif m.group(3):
            span = frozenset([_DAY[m.group(3).lower()]])
        else:
            word = m.group(4).lower().rstrip("s")
            span = frozenset(_SPANS.get(word, range(7)))
        found.append(Days(span, m.group(0).strip().rstrip(".")))
    return tuple(found)


DAY_WORDS = frozenset((*_DAY_NAMES, "weekday", "weekend"))
"""The words :func:`day_words` gives (as :func:`~rag_eval_pytest.text.facts.content_words`
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
    found = []
    for m in _ROUTE.finditer(text):
        origin, destination = _end_words(m.group(1)), _end_words(m.group(2))
        if any(
            w.lower() in _DAY or w.lower() in _SHORT_DAY
            for w in (origin + " " + destination).split()
        ):
            continue  # "from Monday to Friday": days, checked as days
        route = Route(
            content_words(origin), content_words(destination), f"from {origin} to {destination}"
        )
        if route.origin and route.destination:
            found.append(route)
    return tuple(found)


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
