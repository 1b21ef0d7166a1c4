"""Numbers as the local judge reads them, with what each counts."""

from __future__ import annotations

from rag_eval_pytest.judges.local.quantities import Quantity, quantities, without_asides


def test_a_number_word_joined_to_what_it_counts_is_a_number() -> None:
    assert quantities("a three-point advantage") == [Quantity(3.0, "point", "three point")]
    assert quantities("twenty-five days") == [Quantity(25.0, "day", "twenty-five days")]
    assert quantities("a one-off fee") == []


def test_a_part_and_a_count_in_words_are_their_numbers() -> None:
    assert quantities("half a dozen eggs") == [Quantity(6.0, "egg", "half a dozen eggs")]
    assert quantities("a dozen eggs") == [Quantity(12.0, "egg", "dozen eggs")]
    assert quantities("half an hour") == [Quantity(0.5, "hour", "half an hour")]
    assert quantities("15 per cent off") == [Quantity(15.0, "percent", "15 per cent")]
    assert quantities("two and a half hours") == [Quantity(2.5, "hour", "two and a half hours")]
    assert quantities("1 and a half liters") == [Quantity(1.5, "liter", "1 and a half liters")]
    assert quantities("two and a pen") == [Quantity(2.0, "", "two")]


def test_a_number_before_a_unit_is_no_year_and_a_degree_has_its_scale() -> None:
    assert quantities("add 2000 ml") == [Quantity(2000.0, "milliliter", "2000 ml")]
    assert quantities("in 2000 people came") == []  # a year: the date check's
    assert quantities("at 100 degrees Celsius") == [
        Quantity(100.0, "celsius", "100 degrees Celsius")
    ]
    assert quantities("costs \u00a325") == [Quantity(25.0, "pound", "\u00a325", money=True)]


def test_an_ordinal_in_words_orders_what_follows_it_as_its_digits_do() -> None:
    assert quantities("The office is on the second floor.") == [
        Quantity(2.0, "floor", "second floor")
    ]
    assert quantities("the 2nd floor") == [Quantity(2.0, "floor", "2nd floor")]
    assert quantities("your twenty-first order") == [Quantity(21.0, "order", "twenty-first order")]
    # What an ordinal orders is counted after it, or is a part of the whole.
    assert quantities("in the first ten years") == [Quantity(10.0, "year", "ten years")]
    assert quantities("in the second half") == []
    # Another one, an opening word, a date, a unit of time: no ordinal.
    for text in (
        "Buy a second screen.",
        "First, open Settings.",
        "Rent is due on the third of May.",
        "Wait a second.",
        "It is due on the first.",
    ):
        assert quantities(text) == [], text


def test_a_share_of_a_whole_is_a_percentage_but_an_ordinal_is_not() -> None:
    assert [(q.value, q.unit) for q in quantities("Half of the users chose it.")] == [
        (50, "percent")
    ]
    assert [q.value for q in quantities("A quarter of staff and two thirds of managers.")] == [
        25,
        2 * 33.333,
    ]
    assert quantities("Rent is due on the third of May.") == []
    # "half a dozen" and "half an hour" stay parts of what follows.
    assert [q.value for q in quantities("half a dozen eggs in half an hour")] == [6.0, 0.5]


def test_a_number_a_label_names_counts_that_label_and_punctuation_ends_a_unit() -> None:
    gates = quantities("Flights to Rome leave from Terminal 1; flights to Madrid from Terminal 2.")
    assert [(q.text, q.unit) for q in gates] == [
        ("Terminal 1", "#terminal"),
        ("Terminal 2", "#terminal"),
    ]
    # A number after another name is no label ("Cardiff Blues 23" is a score), and no unit
    # is read across a comma.
    assert [q.unit for q in quantities("Gloucester 33, Cardiff Blues 23")] == ["", ""]


def test_a_name_s_number_in_words_or_before_a_noun_is_its_label() -> None:
    read = [
        quantities(text)
        for text in (
            "The pharmacy is in Building Two.",
            "The Tier-two team handles refunds.",
            "The Tier-2 team handles refunds.",
            "Tier two customers pay quarterly.",
        )
    ]
    assert [[(q.value, q.unit) for q in found] for found in read] == [
        [(2.0, "#building")],
        [(2.0, "#tier")],
        [(2.0, "#tier")],
        [(2.0, "#tier")],
    ]
    # Not a name's: a number word after a label word in lower case counts what follows.
    assert [(q.value, q.unit) for q in quantities("We booked room two nights ago.")] == [
        (2.0, "night")
    ]


def test_a_range_s_start_counts_what_its_end_counts() -> None:
    for text, unit in [
        ("Wires take 1 to 5 business days.", "business"),
        ("Workspaces have between 3 and 100 seats.", "seat"),
        ("Delivery takes 2 or 3 weeks.", "week"),
    ]:
        assert {q.unit for q in quantities(text)} == {unit}, text
    # Not across a fraction's slash, nor to a label.
    assert [q.unit for q in quantities("Add 3/4 cup of milk.")] == ["", "cup"]
    assert [q.unit for q in quantities("Walk from Gate 1 to Gate 5.")] == ["#gate", "#gate"]


def test_an_amount_and_its_smaller_part_are_one_amount() -> None:
    [flight] = quantities("Flight time is 2 h 30 min.")
    assert (flight.value, flight.unit, flight.text) == (2.5, "hour", "2 h 30 min")
    [walk] = quantities("It takes 1 hour and 15 minutes.")
    assert (walk.value, walk.text) == (1.25, "1 hour and 15 minutes")
    # No part of it: a larger unit after, or more than one of the first unit.
    assert len(quantities("2 hours, then 3 days")) == 2
    assert len(quantities("1 hour 90 minutes")) == 2


def test_an_aside_that_converts_to_another_amount_is_kept() -> None:
    assert without_asides("The trail is 12 kilometres (7.5 miles) long.") == (
        "The trail is 12 kilometres long."
    )
    # 15 miles is not 12 kilometres: a fact of its own, for the number check to read.
    wrong = "The trail is 12 kilometres (15 miles) long."
    assert without_asides(wrong) == wrong
    # Another amount in the same unit is no restatement either ("9.6 miles" written "9.6 km").
    same_unit = "The quake struck at a depth of 15.5km (9.6 km)."
    assert without_asides(same_unit) == same_unit
    assert without_asides("The lake is 12 km (12 km) wide.") == "The lake is 12 km wide."
