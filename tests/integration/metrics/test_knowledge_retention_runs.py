"""Knowledge retention through a real run: a conversation whose third answer contradicts what
the user said in the first turn fails, naming turn 3 in the failure and the reports; one that
remembers passes; an answer that asks again for a given fact fails. With the local judge (its
conflict checks, no model loaded) and with an LLM judge (the typed question)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import word_judge
from tests.helpers import read_report
from tests.word_judge import CONFTEST as WORD_JUDGE


def conversation(case_id: str, third_answer: str) -> dict[str, Any]:
    return {
        "id": case_id,
        "turns": [
            {
                "question": "My order number is 4417. Where is my parcel?",
                "answer": "Your parcel is on its way to you.",
            },
            {"question": "When will it arrive?", "answer": "It arrives tomorrow before noon."},
            {"question": "Can you check it again?", "answer": third_answer},
        ],
    }


CASES = [
    conversation("forgets", "Order 4471 was delivered yesterday."),
    conversation("remembers", "Order 4417 arrives tomorrow before noon."),
    conversation("asks", "Sure. What is your order number?"),
]
TEST = """
from rag_eval_pytest import assert_metric
def test_retains(rag_case):
    assert_metric(rag_case, "knowledge_retention")
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> None:
    write_dataset(CASES)
    pytester.makepyfile(test_chat=TEST)


@pytest.mark.parametrize("judge", ["local", "llm"])
def test_a_third_turn_that_contradicts_the_first_fails_naming_turn_3(
    pytester: pytest.Pytester, suite: None, judge: str
) -> None:
    args = ["--rag-dataset", "dataset.json", "-p", "no:randomly", "--rag-no-cache"]
    if judge == "local":
        args.append("--rag-judge=local")
    else:
        pytester.makeconftest(WORD_JUDGE)
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "E       rag_eval_pytest.RagAssertionError: forgets knowledge_retention 0.00 < 1.00 "
            "at turn 3",
            "E         turn 3 of 3: 0 of 1 fact the user gave kept; contradicts turn 1's "
            "\u201cMy order number is 4417.\u201d",
            "E         turn 3: ?contradicted? My order number is 4417. "
            "\u2014 said in turn 1; *4471*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "E       rag_eval_pytest.RagAssertionError: asks knowledge_retention 0.00 < 1.00 "
            "at turn 3",
            "*asks again for turn 1's \u201cMy order number is 4417.\u201d",
        ]
    )
    cases = {c["key"]: c for c in read_report(pytester)["cases"]}
    forgets = cases["forgets"]
    assert forgets["status"] == "failed"
    assert forgets["failure_cause"] == "forgotten_fact"
    retention = forgets["metrics"]["knowledge_retention"]
    assert (retention["score"], retention["details"]["turn"]) == (0.0, 3)
    assert retention["evidence"][0]["turn"] == 3
    # The first turn has nothing to retain: not judged, and left out of the score (never a
    # 1.0 that would lift a mean); turn 2 keeps the order number.
    assert retention["details"]["turns"] == {"1": None, "2": 1.0, "3": 0.0}
    first = forgets["turns"][0]["metrics"]["knowledge_retention"]
    assert first["status"] == "not_judged" and "no earlier turn" in first["reason"]
    assert cases["remembers"]["status"] == "passed"
    assert cases["remembers"]["metrics"]["knowledge_retention"]["score"] == 1.0
    assert cases["asks"]["metrics"]["knowledge_retention"]["evidence"][0]["verdict"] == (
        "asked again"
    )
    markdown = (pytester.path / "results" / "eval_report.md").read_text(encoding="utf-8")
    assert "#### Turn 3 (FAILED): Can you check it again?" in markdown


def chat(case_id: str, first: str, second_answer: str) -> dict[str, Any]:
    return {
        "id": case_id,
        "turns": [
            {"question": first, "answer": "Let me check that for you."},
            {"question": "Has it shipped yet?", "answer": second_answer},
        ],
    }


def test_an_identifier_plan_or_name_the_user_established_is_kept_or_the_turn_fails(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """The user gives an order number in a question, a plan, a name; an answer that puts
    another in its place fails with the local judge (an order "99999" after "12345" used to
    pass: a question established no fact), and one that keeps them passes."""
    write_dataset(
        [
            chat("order", "Where is my order 12345?", "Your order 99999 has shipped."),
            chat("order-kept", "Where is my order 12345?", "Your order 12345 has shipped."),
            chat(
                "plan",
                "I'm on the Pro plan. Is phone support included?",
                "Yes: on the Basic plan, phone support is included.",
            ),
            chat("name", "My name is Anna. Where is my parcel?", "Thanks, Maria! It has shipped."),
            chat(
                "name-kept", "My name is Anna. Where is my parcel?", "Thanks, Anna! It has shipped."
            ),
        ]
    )
    pytester.makepyfile(test_chat=TEST)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "-p", "no:randomly", "--rag-judge=local"
    )
    result.assert_outcomes(passed=2, failed=3)
    cases = {c["key"]: c for c in read_report(pytester)["cases"]}
    assert {k: c["status"] for k, c in cases.items()} == {
        "order": "failed",
        "order-kept": "passed",
        "plan": "failed",
        "name": "failed",
        "name-kept": "passed",
    }
    reasons = {
        k: cases[k]["metrics"]["knowledge_retention"]["evidence"][0]["reason"]
        for k in ("order", "plan", "name")
    }
    assert "claims 99999; the user said 12345" in reasons["order"]
    assert "claims the Basic plan; the user named Pro" in reasons["plan"]
    assert "calls the user Maria; the user said their name is Anna" in reasons["name"]


def failing_with_local_judge(
    pytester: pytest.Pytester, passed: int, failed: set[str]
) -> dict[str, str]:
    """Run the written dataset's conversations with the local judge, check that exactly the
    ``failed`` cases fail, and give the reason of each one's first retention verdict."""
    pytester.makepyfile(test_chat=TEST)
    result = pytester.runpytest(
        "--rag-dataset", "dataset.json", "-p", "no:randomly", "--rag-judge=local"
    )
    result.assert_outcomes(passed=passed, failed=len(failed))
    cases = {c["key"]: c for c in read_report(pytester)["cases"]}
    assert {k for k, c in cases.items() if c["status"] == "failed"} == failed
    return {k: cases[k]["metrics"]["knowledge_retention"]["evidence"][0]["reason"] for k in failed}


def test_a_route_a_day_a_time_an_address_or_a_denial_the_user_gave_is_kept_or_the_turn_fails(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """Each of these answers put something else in the place of what the user said and
    passed with the local judge: the route turned round, another day, another time of the
    same thing, the user's address written wrong, a negated allergy. The answers beside them
    keep the facts, or speak of other things (boarding, the clinic's hours, both plans), and
    pass."""
    flight = "I'm flying from Boston to Denver on Friday. Is my flight on time?"
    visit = "My appointment is on Tuesday at 3 pm. Can I bring my son?"
    email = "My email is anna@example.com. Can you resend the receipt?"
    allergy = "I'm allergic to penicillin. What can I take for my sore throat?"
    pro = "I'm on the Pro plan. How much is it?"
    write_dataset(
        [
            chat("route", flight, "Your flight from Denver to Boston on Friday is on time."),
            chat("day", flight, "Your Saturday flight to Denver is on time."),
            chat("route-kept", flight, "Your Friday flight from Boston lands in Denver at 3 pm."),
            chat("time", visit, "Your appointment is on Tuesday at 4 pm."),
            chat("time-kept", visit, "Your appointment on Tuesday at 3 pm is confirmed."),
            chat("other-time", visit, "The clinic opens at 8 am on Tuesday."),
            chat("address", email, "We sent the receipt to ana@example.com."),
            chat("address-kept", email, "You can also reach us at support@shop.com."),
            chat(
                "allergy",
                allergy,
                "Since you are not allergic to penicillin, amoxicillin is fine.",
            ),
            chat(
                "allergy-kept",
                allergy,
                "If you are not sure about an allergy, ask your pharmacist first.",
            ),
            chat("plans", pro, "The Pro plan costs $20 per month and the Basic plan $10."),
        ]
    )
    failing = {"route", "day", "time", "address", "allergy"}
    reasons = failing_with_local_judge(pytester, passed=6, failed=failing)
    assert "claims Saturday; the user said Friday" in reasons["day"]
    assert "4 pm" in reasons["time"] and "3 pm" in reasons["time"]
    address = "writes the address ana@example.com; the user gave anna@example.com"
    assert address in reasons["address"]


def test_a_count_a_size_a_colour_an_age_or_a_home_the_user_gave_told_otherwise_fails_the_turn(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """How many nights or how many times: "a 2-night stay" after "3 nights" (the only word
    the two share is the thing counted) and "one charge" after "charged twice" (a count of
    the thing against a count of times) passed with the local judge; so did "As a Quebec
    resident" after "I live in Ontario", "As your son is 14" after "My son is 8 years old",
    and "Your grey sofa" after "I ordered the blue sofa". The answers beside them keep the
    count, in words or as a count of things, the colour, speak of another province's
    residents, or of a length of time and not an age, and pass."""
    stay = "My booking at the lake hotel is for 3 nights. Is breakfast included?"
    charged = "I was charged $49.99 twice for my subscription. Can you fix it?"
    ontario = "I live in Ontario. Which sales tax do I pay on the upgrade?"
    jacket = "I ordered a size M blue jacket last week. Where is it?"
    sofa = "I ordered the blue sofa last week. When will it arrive?"
    son = "My son is 8 years old. Which fare does he pay?"
    car = "My car is 3 years old. Is the repair covered?"
    write_dataset(
        [
            chat("colour", sofa, "Your grey sofa will arrive on Monday."),
            chat("colour-kept", sofa, "Your blue sofa will arrive on Monday."),
            chat("age", son, "As your son is 14, he pays the adult fare."),
            chat("age-kept", car, "Your car is under warranty for 5 years, so it is covered."),
            chat("nights", stay, "Your 2-night stay includes breakfast."),
            chat("nights-kept", stay, "Your three-night stay includes breakfast."),
            chat("charges", charged, "I see one charge of $49.99 on your account."),
            chat("charges-kept", charged, "I see two charges of $49.99; I will refund one."),
            chat("size", jacket, "Your size L blue jacket has shipped."),
            chat("size-kept", jacket, "Your size M blue jacket has shipped."),
            chat("home", ontario, "As a Quebec resident, you pay QST on top of GST."),
            chat("home-kept", ontario, "Quebec residents pay QST; in Ontario you pay HST."),
        ]
    )
    failed = {"nights", "charges", "home", "size", "age", "colour"}
    reasons = failing_with_local_judge(pytester, passed=6, failed=failed)
    assert "2 night" in reasons["nights"] and "3 nights" in reasons["nights"]
    assert "claims one charge; the user said twice" in reasons["charges"]
    home = "places the user in Quebec; the user said they live in Ontario"
    assert home in reasons["home"]
    assert "claims size L; the user said size M" in reasons["size"]
    assert "claims 14; the user said 8 years" in reasons["age"]
    assert "claims grey sofa; the user said blue" in reasons["colour"]


CASCADE = "judge:\n  kind: cascade\n  then:\n    kind: tests.word_judge:word_judge\n    passes: 1\n"


def test_a_thing_the_answer_may_name_otherwise_is_left_to_an_llm_judge(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """ "your Honda Civic" after "My car is a Toyota Corolla" passed with the local judge,
    which cannot tell another car from the same one called otherwise. Now the turn is not
    judged and the run says it needs an LLM judge; a cascade asks its LLM judge about that
    turn alone. An answer that names the user's car passes, decided locally."""
    car = "My car is a 2019 Toyota Corolla. When is its next service?"
    write_dataset(
        [
            chat("other-car", car, "For your Honda Civic, the service is due now."),
            chat("same-car", car, "For your Toyota Corolla, the service is due in May."),
        ]
    )
    pytester.makepyfile(test_chat=TEST)
    args = ["--rag-dataset", "dataset.json", "-p", "no:randomly", "--rag-no-cache"]
    result = pytester.runpytest(*args, "--rag-judge=local")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*1 case needs an LLM judge to decide: knowledge_retention (1)*"])
    report = {c["key"]: c for c in read_report(pytester)["cases"]}
    assert report["other-car"]["metrics"]["knowledge_retention"]["status"] == "not_judged"
    other = report["other-car"]["turns"][1]["metrics"]["knowledge_retention"]
    assert (other["status"], other["unsure"], other["bounds"]) == ("not_judged", 1, [0, 1])
    [fact] = other["evidence"]
    assert fact["verdict"] == "unsure"
    assert "names Honda Civic; the user named Toyota Corolla" in fact["reason"]
    assert report["same-car"]["metrics"]["knowledge_retention"]["status"] == "passed"

    word_judge.calls.clear()
    pytester.makefile(".yaml", **{"eval-config": CASCADE})
    result = pytester.runpytest(*args)
    asked = [p for p in word_judge.calls if "Toyota Corolla" in p]
    assert len(asked) == 1 and "Honda Civic" in asked[0]  # the doubted turn alone
    turns = {
        c["key"]: c["turns"][1]["metrics"]["knowledge_retention"]
        for c in read_report(pytester)["cases"]
    }
    assert turns["other-car"]["status"] in ("passed", "failed")
    assert (turns["other-car"]["details"]["tiers"], turns["other-car"]["unsure"]) == ({"llm": 1}, 0)
    assert turns["same-car"]["details"]["tiers"] == {"local": 1}


def test_an_answer_that_offers_what_the_user_turned_down_is_left_to_an_llm_judge(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    """ "We will send you email updates weekly." after "I don't want email updates." passed
    with the local judge. Now the turn is not judged: the answer offers what the user turned
    down, which only reading both settles. An answer that keeps to the wish passes."""
    updates = "I don't want email updates. Where is my order?"
    write_dataset(
        [
            chat(
                "offered", updates, "Your order has shipped. We will send you email updates weekly."
            ),
            chat("kept", updates, "Your order has shipped. We won't send you email updates."),
        ]
    )
    pytester.makepyfile(test_chat=TEST)
    args = ["--rag-dataset", "dataset.json", "-p", "no:randomly", "--rag-no-cache"]
    result = pytester.runpytest(*args, "--rag-judge=local")
    result.assert_outcomes(passed=1, skipped=1)
    report = {c["key"]: c for c in read_report(pytester)["cases"]}
    [fact] = report["offered"]["turns"][1]["metrics"]["knowledge_retention"]["evidence"]
    assert fact["verdict"] == "unsure"
    assert "offers what the user turned down" in fact["reason"]
    assert report["kept"]["metrics"]["knowledge_retention"]["status"] == "passed"
