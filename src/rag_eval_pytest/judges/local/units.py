"""Units: what a number counts, and amounts of one dimension in any of its units.

One table (``word_tables/units.toml``) gives each unit of a length, a volume, a mass, a
temperature and a length of time its size in its dimension's base unit (meters, liters,
kilograms, kelvins, seconds) and its system (metric or imperial, a clock's or a calendar's,
...), the names of units written short ("km"), the currencies, and the words that count in
groups and parts ("a dozen", "half a dozen"). :func:`measure` is the one conversion, and
:func:`same_measure` compares two amounts by it: "5 miles" and "8 km", "2 liters" and
"2000 ml", "two weeks" and "14 days", "100 degrees Celsius" and "212 degrees Fahrenheit" are
one amount.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tables import table

_UNITS = table("units")


@dataclass(frozen=True)
class _Unit:
    """A unit of a dimension: its size in the dimension's base unit, the base unit's amount
    at its zero (a temperature's), and its system."""

    dimension: str
    system: str
    size: float
    zero: float = 0.0


def _read_units() -> dict[str, _Unit]:
    """Every unit of the table's dimensions, by name."""
    zeros = _UNITS.numbers("zeros")
    return {
        unit: _Unit(dimension, system, size, zeros.get(unit, 0.0))
        for dimension, systems in _UNITS.groups("dimensions").items()
        for system in systems
        for unit, size in _UNITS.numbers(f"{dimension}.{system}").items()
    }


_MEASURED = _read_units()
_ROUNDING = _UNITS.numbers("rounding")
_ROUNDING_DEGREES = _UNITS.numbers("rounding_degrees")
ALIASES = _UNITS.mapping("aliases")
"""Units written short or in another form, as the unit they name ("km": "kilometer")."""
CURRENCIES = _UNITS.mapping("currencies")
"""Currencies by sign, code or name ("€", "eur": "euro")."""
CURRENCY_NAMES = frozenset(CURRENCIES.values())
"""The currencies as units are compared ("euro", "dollar")."""
COUNTS = _UNITS.numbers("counts")
"""Words that count in groups ("dozen": 12)."""
PARTS = _UNITS.numbers("parts")
SHARES = _UNITS.numbers("shares")
LABELS = _UNITS.words("labels")
"""Words that take a part of what follows an article ("half": 0.5)."""
ARTICLES = _UNITS.words("articles")
AREAS = _UNITS.words("areas")
"""Words after a number that make it an area with the unit after them ("1,990 sq ft")."""


def unit_of(word: str) -> str:
    """A unit word normalised for comparison: lowercase, singular ("days" -> "day"), written
    out ("km" -> "kilometer", "feet" -> "foot"), spelled one way ("metre" -> "meter"); a
    currency by its name ("€", "EUR" and "euros" -> "euro"); a possessive as its noun ("one
    month's notice" counts months)."""
    word = re.sub(r"['\u2019]s?$", "", word.lower())
    if word in CURRENCIES or word in ALIASES:
        return CURRENCIES.get(word) or ALIASES[word]
    word = _singular(word)
    if word.endswith("tre") and len(word) > 4:  # metre, litre, kilometre
        word = word[:-3] + "ter"
    return word


def _singular(word: str) -> str:
    """A plural unit word singular ("days" -> "day", "centuries" -> "century")."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


@dataclass(frozen=True)
class Measure:
    """An amount of a dimension in its base unit, and the system of the unit it was
    written in."""

    dimension: str
    system: str
    value: float


def dimension_of(unit: str) -> str | None:
    """The dimension a unit measures ("mile": "length"), ``None`` for another unit."""
    known = _MEASURED.get(unit)
    return known.dimension if known else None


def measures(unit: str) -> bool:
    """Whether a unit measures, a currency or a unit of a dimension ("euro", "kilometer"),
    rather than names what is counted ("night", "charge")."""
    return unit in CURRENCY_NAMES or dimension_of(unit) is not None


def measure(value: float, unit: str) -> Measure | None:
    """``value`` of ``unit`` in its dimension's base unit ("5 mile": 8046.72 meters, "212
    fahrenheit": 373.15 kelvins); ``None`` for a unit of no dimension (a currency, "points",
    none)."""
    known = _MEASURED.get(unit)
    if known is None:
        return None
    return Measure(known.dimension, known.system, known.zero + value * known.size)


def same_measure(value: float, unit: str, other: float, other_unit: str) -> bool | None:
    """Whether two amounts of one dimension in different units are one amount: exactly,
    within a system ("2 liters" and "2000 ml"); within the dimension's rounding across
    systems ("5 miles" and "8 km"). ``None`` when they are no amounts of one dimension in
    two units."""
    mine, theirs = measure(value, unit), measure(other, other_unit)
    if mine is None or theirs is None or unit == other_unit:
        return None
    if mine.dimension != theirs.dimension:
        return None
    apart = abs(mine.value - theirs.value)
    if mine.system == theirs.system:
        return apart <= 1e-9 * max(1.0, abs(mine.value), abs(theirs.value))
    return apart <= _allowed(mine, theirs)


def _allowed(mine: Measure, theirs: Measure) -> float:
    """How far apart two amounts of one dimension in two systems may be: a temperature's
    rounding in degrees (kelvins), another's as a share of the larger amount."""
    degrees = _ROUNDING_DEGREES.get(mine.dimension)
    if degrees is not None:
        return degrees
    return _ROUNDING.get(mine.dimension, 0.0) * max(abs(mine.value), abs(theirs.value))
