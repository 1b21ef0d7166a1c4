"""Dates as a text writes them, as precise as written ("8 December 1984", "March 2020",
"2020-03-08", "15.03.2020", "1984", "every September").

Rule-based and deterministic, English only. The local judge's date check compares these
between a claim and its evidence (:mod:`.checks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from ...text.names import MONTH_NUMBERS, MONTHS
from .tables import table
from .units import AREAS, dimension_of, unit_of

if TYPE_CHECKING:
    from collections.abc import Callable

# The months' names as a date shows them, January first.
_MONTH_NAMES = [name.capitalize() for name in sorted(MONTH_NUMBERS, key=MONTH_NUMBERS.__getitem__)]

# ----------------------------------------------------------------------------- dates

_DAY_MONTH_YEAR = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z][a-z]+)\.?\s*,?\s+(\d{4})\b"
)
# "November 1, 1933", and as a tokenised text writes it, "November 1 , 1933".
_MONTH_DAY_YEAR = re.compile(r"\b([A-Za-z][a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s*,?\s+(\d{4})\b")
_MONTH_YEAR = re.compile(r"\b([A-Za-z][a-z]+)\.?,?\s+(\d{4})\b")
# A day of a month without its year ("15 March", "the 1st of May", "March 15").
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z][a-z]+)\b")
_MONTH_DAY = re.compile(r"\b([A-Za-z][a-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?\b(?![.,:]?\d)")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# A month named alone, capitalised, after a word that makes it a time ("every May", "in
# July", "from April to September"): "May I ...", "April Smith" and "the March" are none.
_MONTH_ALONE = re.compile(rf"\b({'|'.join(_MONTH_NAMES)})\b(?!\s*\d)(?!\s+[A-Z])")
_MONTH_BEFORE = frozenset(table("numbers").words("month_before"))
# "03/15/2025", "15/03/2025", "15.03.2025": the order of day and month is known when one of
# them is above 12 (or the dots, which only day-first writing uses); else only the year is.
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4})\b")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)s?\b")


@dataclass(frozen=True)
class Date:
    """A date as precise as it was written: year, optional month and day; a day of a month
    written without its year ("15 March") has none."""

    year: int | None
    month: int | None = None
    day: int | None = None

    def show(self) -> str:
        if self.month is None:
            return str(self.year)
        month = _MONTH_NAMES[self.month - 1]
        shown = f"{self.day} {month}" if self.day else month
        return shown if self.year is None else f"{shown} {self.year}"

    def compatible(self, other: Date) -> bool:
        """Whether the two can be the same date (one may be less precise than the other, or
        give no year)."""
        if not _same_or_unknown(self.year, other.year):
            return False
        if self.month is None or other.month is None:
            return True
        return self.month == other.month and _same_or_unknown(self.day, other.day)


def _same_or_unknown(one: int | None, other: int | None) -> bool:
    return one is None or other is None or one == other


def dates(text: str) -> list[Date]:
    """Dates of ``text``: "8 December 1984", "December 8, 1984", "March 2020",
    "2020-03-08", "03/15/2020" and "15.03.2020", months named alone after a word of time
    ("every September"), and bare years (1500-2099)."""
    return list(_dates(text)[0])


def date_spans(text: str) -> list[tuple[int, int]]:
    return _dates(text)[1]


@lru_cache(maxsize=4096)
def _dates(text: str) -> tuple[list[Date], list[tuple[int, int]]]:
    """The dates of ``text`` and their spans (a month's alone where the date gives no day nor
    year), each form of :data:`_DATE_FORMS` in turn; a date that starts inside one found
    before is part of it."""
    found: list[Date] = []
    spans: list[tuple[int, int]] = []
    for pattern, read in _DATE_FORMS:
        for m in pattern.finditer(text):
            date = read(m)
            if date is not None and not any(s <= m.start() < e for s, e in spans):
                found.append(date)
                spans.append(_span(date, m))
    return found, spans


def _span(date: Date, m: re.Match[str]) -> tuple[int, int]:
    """Where ``m`` writes ``date``: the whole match, or the month's name alone for a date of
    its month alone (the days of "September 2 and 3" are numbers still, to be read as the
    context's "2-3 September")."""
    if date.day or date.year:
        return m.span()
    return next(m.span(g) for g in range(1, len(m.groups()) + 1) if _month(m.group(g) or ""))


def _valid(month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


def _iso_date(m: re.Match[str]) -> Date | None:
    month, day = int(m.group(2)), int(m.group(3))
    return Date(int(m.group(1)), month, day) if _valid(month, day) else None


def _numeric_date(m: re.Match[str]) -> Date | None:
    """A date in digits: its day and month where their order is known, else its year."""
    first, second, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
    day_first = m.group(2) == "." or first > 12
    day, month = (first, second) if day_first else (second, first)
    if not _valid(month, day):
        return None
    known = day_first or second > 12
    return Date(year, month, day) if known else Date(year)


def _day_month_year(m: re.Match[str]) -> Date | None:
    month = _month(m.group(2))
    return Date(int(m.group(3)), month, int(m.group(1))) if month and _day(m.group(1)) else None


def _month_day_year(m: re.Match[str]) -> Date | None:
    month = _month(m.group(1))
    return Date(int(m.group(3)), month, int(m.group(2))) if month and _day(m.group(2)) else None


def _month(word: str) -> int | None:
    """The number of the month ``word`` names: capitalised, or in lower case in a text that
    writes it so ("on july 11"), but for a lower-case word that is also a verb ("may",
    "march", "mar")."""
    if word.islower() and word in _VERBS:
        return None
    return MONTHS.get(word.lower())


_VERBS = frozenset({"may", "march", "mar"})


def _day(digits: str) -> bool:
    return 1 <= int(digits) <= 31


def _month_year(m: re.Match[str]) -> Date | None:
    month = _month(m.group(1))
    return Date(int(m.group(2)), month) if month else None


def _day_month(m: re.Match[str]) -> Date | None:
    month = _month(m.group(2))
    return _day_of(month, m.group(1), m)


def _month_day(m: re.Match[str]) -> Date | None:
    month = _month(m.group(1))
    return _day_of(month, m.group(2), m)


def _day_of(month: int | None, day: str, m: re.Match[str]) -> Date | None:
    """A day of a month without its year, but one of several days ("2-3 September",
    "September 2 and 3"), which is read as their month alone."""
    several = _BEFORE_DAY.search(m.string, 0, m.start()) or _AFTER_DAY.match(m.string, m.end())
    if not month or not _day(day):
        return None
    return Date(None, month) if several else Date(None, month, int(day))


_JOINED = r"(?:[-\u2013]|to|and|&|,|or)"
_BEFORE_DAY = re.compile(rf"\d(?:st|nd|rd|th)?\s*{_JOINED}\s*$")
_AFTER_DAY = re.compile(rf"\s*{_JOINED}\s*\d")


def _month_alone(m: re.Match[str]) -> Date | None:
    """A month of no year, where the word before it makes it a time (:data:`_MONTH_BEFORE`)."""
    before = _WORD_BEFORE.search(m.string, max(0, m.start() - 20), m.start())
    timed = before is not None and before.group(1).lower() in _MONTH_BEFORE
    return Date(None, _month(m.group(1))) if timed else None


# The word right before a month, nothing but spaces between ("on 2-3 September" has none).
_WORD_BEFORE = re.compile(r"\b([^\W\d_]+)\s+$")


def _year(m: re.Match[str]) -> Date | None:
    """A year, but for a number followed by a unit it measures in ("2000 ml", "1500 km", "1990
    sq ft"), or by a plural it counts where no word of time or article comes before ("below
    2003 euros", "a score of 2000 points"; not "the 2016 elections", "in 2003 prices rose")."""
    after = _WORD.match(m.string, m.end())
    if after is not None and _measures(after.group(1), m.string[: m.start()]):
        return None
    if after is not None and _counts(after.group(1), m.string[: m.start()]):
        return None
    return Date(int(m.group(1)))


def _measures(word: str, before: str) -> bool:
    """Whether a number before ``word`` measures something in it: a unit of a dimension, or
    a word of area ("sq", "square") after no word of :data:`_YEAR_BEFORE` ("in 1990 square
    dancing ...")."""
    return bool(dimension_of(unit_of(word))) or (word in AREAS and not _after_time(before))


def _after_time(before: str) -> bool:
    """Whether the text ``before`` a number ends in a word of :data:`_YEAR_BEFORE`."""
    last = re.findall(r"[^\W\d_]+", before[-20:].lower())
    return bool(last) and last[-1] in _YEAR_BEFORE


def _counts(word: str, before: str) -> bool:
    """Whether a number before ``word`` counts it: a plural in lower case, after no word of
    :data:`_YEAR_BEFORE`."""
    plural = word.islower() and len(word) > 3 and unit_of(word) != word
    return plural and not _after_time(before)


_WORD = re.compile(r"\s+([^\W\d_]+)")
_YEAR_BEFORE = frozenset(table("numbers").words("year_before"))


# The forms of a date, most precise first: a date inside one found before is part of it.
_DATE_FORMS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Date | None]], ...] = (
    (_ISO, _iso_date),
    (_NUMERIC_DATE, _numeric_date),
    (_DAY_MONTH_YEAR, _day_month_year),
    (_MONTH_DAY_YEAR, _month_day_year),
    (_MONTH_YEAR, _month_year),
    (_DAY_MONTH, _day_month),
    (_MONTH_DAY, _month_day),
    (_MONTH_ALONE, _month_alone),
    (_YEAR, _year),
)
