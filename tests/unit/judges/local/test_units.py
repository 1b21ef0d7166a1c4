"""Units and quantities from one table: each unit's dimension, size and system, and the one
conversion that compares amounts written in different units."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.units import dimension_of, measure, same_measure, unit_of


@pytest.mark.parametrize(
    ("word", "unit", "dimension"),
    [
        ("km", "kilometer", "length"),
        ("kilometres", "kilometer", "length"),
        ("miles", "mile", "length"),
        ("feet", "foot", "length"),
        ("ml", "milliliter", "volume"),
        ("litres", "liter", "volume"),
        ("lbs", "pound", "mass"),
        ("Celsius", "celsius", "temperature"),
        ("Fahrenheit", "fahrenheit", "temperature"),
        ("fortnight", "fortnight", "duration"),
        ("months", "month", "duration"),
        ("month's", "month", "duration"),  # one month's notice
        ("points", "point", None),
        ("EUR", "euro", None),
    ],
)
def test_a_unit_word_is_its_unit_of_a_dimension(
    word: str, unit: str, dimension: str | None
) -> None:
    assert unit_of(word) == unit
    assert dimension_of(unit) == dimension


@pytest.mark.parametrize(
    ("amount", "other", "same"),
    [
        ((5, "mile"), (8, "kilometer"), True),  # across systems, rounded
        ((5, "mile"), (9, "kilometer"), False),
        ((2, "liter"), (2000, "milliliter"), True),  # within a system, exact
        ((2, "liter"), (1990, "milliliter"), False),
        ((50, "pound"), (23, "kilogram"), True),
        ((212, "fahrenheit"), (100, "celsius"), True),
        ((72, "fahrenheit"), (22, "celsius"), True),  # within a degree
        ((60, "fahrenheit"), (8, "celsius"), False),
        ((2, "week"), (14, "day"), True),
        ((2, "year"), (24, "month"), True),
        ((3, "month"), (90, "day"), True),  # a month is a twelfth of a year
        ((1, "month"), (4, "week"), False),
    ],
)
def test_amounts_in_two_units_of_one_dimension_are_compared_converted(
    amount: tuple[float, str], other: tuple[float, str], same: bool
) -> None:
    assert same_measure(*amount, *other) is same
    assert same_measure(*other, *amount) is same


def test_amounts_of_one_unit_or_of_no_common_dimension_are_not_converted() -> None:
    assert same_measure(5, "mile", 5, "mile") is None
    assert same_measure(5, "mile", 5, "hour") is None
    assert same_measure(5, "point", 5, "kilometer") is None
    assert measure(3, "point") is None
    found = measure(0, "celsius")
    assert found is not None and found.value == pytest.approx(273.15)
