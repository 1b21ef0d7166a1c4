"""Facts whose meaning is their place, through the judge a user's run asks: two numbers that
count each other's things, opening and closing times swapped, am and pm, days of the week,
the two ends of a route, an item of a list. Each in its right form and its wrong form, with
the reason a user reads."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import stated
from .test_hard_cases import one, same

VOUCHER = ["Loyalty members get 100 points for a 5 euro voucher. Points expire after two years."]
STORE = ["The store opens at 9 am and closes at 6 pm, Monday to Saturday."]
CLINIC = ["The clinic opens at 8 am on weekdays. Late appointments run until 7 pm on Thursdays."]
SUPPORT = ["Phone support is available Monday to Friday. Chat support runs around the clock."]
FLIGHTS = ["The airline runs a daily direct flight from Paris to Berlin."]
JACKET = ["The jacket comes in black, navy and olive. It is made of recycled polyester."]


@pytest.mark.parametrize(
    ("wrong", "reason", "right", "contexts"),
    [
        (
            "You get 5 points for every 100 euro voucher.",
            "claims 5 points; the context says 100 points; "
            "claims 100 euro; the context says 5 euro",
            "A 5 euro voucher earns you 100 points.",
            VOUCHER,
        ),
        (
            "The store opens at 6 pm and closes at 9 am.",
            "claims \u201copens at 6 pm\u201d; the context says \u201copens at 9 am\u201d",
            "The store is open from 9 am to 6 pm.",
            STORE,
        ),
        (
            "The clinic opens at 8 pm on weekdays.",
            "claims \u201copens at 8 pm\u201d; the context says \u201copens at 8 am\u201d",
            "The clinic opens at 8 in the morning on weekdays.",
            CLINIC,
        ),
        (
            "Phone support is available Monday to Saturday.",
            "claims Monday to Saturday; the context says Monday to Friday",
            "Phone support is available Monday to Friday.",
            SUPPORT,
        ),
        (
            "There is a daily direct flight from Berlin to Paris.",
            "claims from Berlin to Paris; the context says from Paris to Berlin",
            "There is a direct flight from Paris to Berlin every day.",
            FLIGHTS,
        ),
        (
            "The jacket comes in black, navy and red.",
            "the claim says \u201cred\u201d where the context says \u201colive\u201d",
            "You can get it in black, navy or olive.",
            JACKET,
        ),
    ],
    ids=["numbers bound to units", "opening and closing", "am and pm", "days", "route", "list"],
)
def test_a_fact_in_another_place_is_contradicted_with_both_sides_named(
    local_judge: Any, wrong: str, reason: str, right: str, contexts: list[str]
) -> None:
    said = one(local_judge, wrong, contexts)
    assert said.verdict == "contradicted"
    # A conflict of a kind not measured right often enough is the judge's best guess: its
    # reason says so before the checks' message.
    assert stated(said).startswith(reason), said.reason
    kept = one(local_judge, right, contexts)
    assert kept.verdict == "supported", kept.reason


def test_swapped_numbers_fail_answer_correctness(local_judge: Any) -> None:
    wrong = same(local_judge, "For every 100 euros you get 5 points.", VOUCHER[0])
    assert wrong.wrong_or_extra_facts == ["For every 100 euros you get 5 points."]


def test_a_plural_day_is_no_name(local_judge: Any) -> None:
    pool = ["The pool is open every Sunday."]
    right = one(local_judge, "The pool is open on Sundays.", pool)
    assert right.verdict == "supported", right.reason
