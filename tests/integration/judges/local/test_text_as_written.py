"""A fact is read as its words whatever the source did to them: text taken from a PDF or a
web page (ligatures, words broken at a line's end, digits grouped by a thin space, invisible
characters, character references) and another notation than the context's (a currency sign,
a unit written short, "k" after an amount, a digit ordinal). A correct answer is supported, a
changed fact is contradicted, and a number in digits that no context states is never
supported by the rest of its wording. The whole local judge, with its model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.judges.local.judge import statements_of
from rag_eval_pytest.metrics.base import Sample, Services
from rag_eval_pytest.metrics.registry import get_metric

EXTRACTED = [
    pytest.param(
        "Refunds are issued with-\nin 30 days of pur-\nchase by the finance depart-\nment.",
        "Refunds are issued within 30 days of purchase by the finance department.",
        "Refunds are issued within 60 days of purchase by the finance department.",
        id="words broken at a line's end",
    ),
    pytest.param(
        "The cancellation fee is 1\u202f000 euros for group bookings.",
        "The cancellation fee for group bookings is 1,000 euros.",
        "The cancellation fee for group bookings is 2,000 euros.",
        id="digits grouped by a thin space",
    ),
    pytest.param(
        "The \ufb01nal \ufb01ling deadline for the \ufb02exible plan is 30 June.",
        "The final filing deadline for the flexible plan is 30 June.",
        "The final filing deadline for the flexible plan is 13 June.",
        id="ligatures",
    ),
    pytest.param(
        "Our inter\u00adnational ship\u200bping takes \uff17 business days.",
        "International shipping takes 7 business days.",
        "International shipping takes 3 business days.",
        id="soft hyphens, zero-width spaces and full-width digits",
    ),
]

NOTATIONS = [
    pytest.param(
        "The company raised $1.5 million in seed funding.",
        "The company raised $1,500,000 in seed funding.",
        "The company raised $15 million in seed funding.",
        id="millions",
    ),
    pytest.param(
        "The annual fee is \u20ac25 for members.",
        "The annual fee for members is 25 euros.",
        "The annual fee for members is 35 euros.",
        id="a currency sign and its name",
    ),
    pytest.param(
        "The starting salary is $65k per year.",
        "The starting salary is $65,000 per year.",
        "The starting salary is $56,000 per year.",
        id="thousands as k",
    ),
    pytest.param(
        "The trail is 5 km long and takes about 2 hrs.",
        "The trail is 5 kilometres long and takes about 2 hours.",
        "The trail is 8 kilometres long and takes about 2 hours.",
        id="units written short",
    ),
    pytest.param(
        "Payments are due on the 1st of each month.",
        "Payments are due on the 1st of each month.",
        "Payments are due on the 15th of each month.",
        id="ordinals",
    ),
    pytest.param(
        "<p>Refunds are available within 30&nbsp;days of purchase.</p>",
        "Refunds are available within 30 days of purchase.",
        "Refunds are available within 60 days of purchase.",
        id="a character reference",
    ),
]

WORDINGS = [
    pytest.param(
        "Each user may create up to 5 projects.",
        "Each user can create no more than 5 projects.",
        "Each user can create no more than 10 projects.",
        id="a bound is no negation",
    ),
    pytest.param(
        "Store the vaccine at 2-8\u00b0C.",
        "The vaccine should be stored between 2 and 8 degrees Celsius.",
        "The vaccine should be stored between 2 and 25 degrees Celsius.",
        id="degrees",
    ),
    pytest.param(
        "Take 500 mg twice daily with food.",
        "Take 500 mg two times daily with food.",
        "Take 250 mg two times daily with food.",
        id="twice",
    ),
    pytest.param(
        "The colour options are red, blue and grey.",
        "The color options are red, blue and gray.",
        "The color options are red, blue and green.",
        id="British and American spelling, a list",
    ),
    pytest.param(
        "Registration closes on 03/15/2025.",
        "Registration closes on March 15, 2025.",
        "Registration closes on March 16, 2025.",
        id="a date in digits",
    ),
]


@pytest.mark.parametrize(("context", "right", "wrong"), EXTRACTED + NOTATIONS + WORDINGS)
def test_a_fact_is_judged_on_its_words_however_the_source_wrote_them(
    local_judge: Any, context: str, right: str, wrong: str
) -> None:
    supported, contradicted = asyncio.run(local_judge.support([right, wrong], [context]))
    assert supported.verdict == "supported", supported.reason
    assert contradicted.verdict == "contradicted", contradicted.reason


# The right form says the context's fact in other words: its support score alone may not
# decide it, but nothing decides it wrong.
PARAPHRASED = [
    pytest.param(
        "Refunds are not available for digital goods.",
        "Digital goods are non-refundable.",
        "Digital goods are refundable.",
        id="non- negates",
    ),
]


@pytest.mark.parametrize(("context", "right", "wrong"), PARAPHRASED)
def test_a_fact_in_other_words_is_never_decided_wrong_and_its_opposite_is_contradicted(
    local_judge: Any, context: str, right: str, wrong: str
) -> None:
    supported, contradicted = asyncio.run(local_judge.support([right, wrong], [context]))
    assert supported.verdict == "supported" or supported.unsure, supported.reason
    assert contradicted.verdict == "contradicted", contradicted.reason


# A name can hold a word that denies ("Never Shout Never", "Not Fade Away") or a day ("Hey
# Monday"): written as the context names it, it denies nothing and gives no day.
NAMED = [
    pytest.param(
        "The last sets were played by The Cab, Never Shout Never and Hey Monday.",
        "Which band played one of the last sets, with The Cab and Never Shout Never?",
        "Hey Monday",
        "Hey Monday did not play one of the last sets.",
        id="a band named with a day, after one named with a denial",
    ),
    pytest.param(
        "The label reissued Not Fade Away on vinyl in 2019.",
        "",
        "Not Fade Away was reissued on vinyl in 2019.",
        "The label did not reissue Not Fade Away on vinyl in 2019.",
        id="a title opening the claim with a denial",
    ),
]


@pytest.mark.parametrize(("context", "question", "right", "wrong"), NAMED)
def test_a_name_with_a_word_that_denies_denies_nothing(
    local_judge: Any, context: str, question: str, right: str, wrong: str
) -> None:
    [supported] = asyncio.run(local_judge.support([right], [context], question))
    [contradicted] = asyncio.run(local_judge.support([wrong], [context], question))
    assert supported.verdict == "supported", supported.reason
    assert contradicted.verdict == "contradicted", contradicted.reason


@pytest.mark.parametrize(
    ("context", "claim"),
    [
        ("Call us at +44 20 7946 0958 for bookings.", "For bookings, call +44 20 7946 0959."),
    ],
)
def test_a_number_no_context_states_is_not_supported_by_its_wording(
    local_judge: Any, context: str, claim: str
) -> None:
    [verdict] = asyncio.run(local_judge.support([claim], [context]))
    assert verdict.verdict == "not mentioned", verdict.reason
    assert verdict.unsure  # the wording matches: an LLM judge decides
    assert "the contexts state no such number" in verdict.reason


def test_a_length_of_time_no_context_states_is_not_supported(local_judge: Any) -> None:
    claim = "The support line is available 12 hours a day."
    [verdict] = asyncio.run(local_judge.support([claim], ["Our support line is available 24/7."]))
    assert verdict.verdict == "not mentioned", verdict.reason
    assert "the contexts state no such number" in verdict.reason


def test_a_table_row_is_read_on_its_own(local_judge: Any) -> None:
    table = "| Plan | Price |\n|---|---|\n| Basic | $10/month |\n| Pro | $25/month |"
    [verdict] = asyncio.run(local_judge.support(["The Pro plan costs $25 per month."], [table]))
    # Read as text, the table's "Price" stood where the claim says "costs": contradicted.
    assert verdict.verdict != "contradicted", verdict.reason
    fees = "| Membership | Annual fee |\n|---|---|\n| Single | $40 |\n| Family | $95 |"
    claims = [f"The family membership has an annual fee of {fee}." for fee in ("$95", "$40")]
    right, wrong = asyncio.run(local_judge.support(claims, [fees]))
    assert right.verdict == "supported", right.reason
    # Read with the next row, the family's row held the single membership's $40: supported.
    # Read on its own, the row says "Single": never decided supported (at most unsure).
    assert wrong.verdict != "supported" or wrong.unsure, wrong.reason
    assert wrong.score < right.score


def test_a_claim_of_every_day_contradicts_a_day_the_context_closes(local_judge: Any) -> None:
    context = "The museum is closed on Mondays. It opens at 10 am on all other days."
    claim = "The museum opens at 10 am every day."
    [verdict] = asyncio.run(local_judge.support([claim], [context]))
    assert verdict.verdict == "contradicted", verdict.reason
    assert "not on Mondays" in verdict.reason


def test_times_are_read_for_the_days_they_are_given_for(local_judge: Any) -> None:
    context = (
        "The store is open Monday to Saturday from 9 am to 8 pm. "
        "On Sundays it opens from 11 am to 5 pm."
    )
    right = (
        "The store is open from 9 am to 8 pm Monday through Saturday, "
        "and from 11 am to 5 pm on Sundays."
    )
    wrong = "The store is open from 9 am to 8 pm every day, including Sundays."
    supported, contradicted = asyncio.run(local_judge.support([right, wrong], [context]))
    # "it" in the second sentence is the store: its Sundays were not read as the store's.
    assert supported.verdict == "supported", supported.reason
    assert contradicted.verdict == "contradicted", contradicted.reason
    assert "claims every day for store" in contradicted.reason


def test_a_word_outside_a_list_is_no_replaced_item(local_judge: Any) -> None:
    context = "The Premium plan includes 100 GB of storage, priority support and up to 10 users."
    claim = "Premium comes with 100 GB storage, priority support, and supports up to 10 users."
    [verdict] = asyncio.run(local_judge.support([claim], [context]))
    assert verdict.verdict != "contradicted", verdict.reason


def test_context_relevance_judges_a_tables_rows(local_judge: Any) -> None:
    table = "| Method | Fee |\n|---|---|\n| Visa | none |\n| PayPal | 2% |"
    sample = Sample(
        case_key="c1",
        question="Which payment methods do you accept?",
        ground_truth="",
        answer="",
        contexts=[Context(text=table)],
        sources=[],
        expected_contexts=None,
    )
    services = Services(judge=local_judge, embed=local_judge.embed)
    result = asyncio.run(measure(get_metric("context_relevance"), sample, services))
    assert [e.text for e in result.evidence] == [
        "Method: Visa; Fee: none.",
        "Method: PayPal; Fee: 2%.",
    ]


def test_a_yes_or_no_before_a_statement_is_no_part_of_it(local_judge: Any) -> None:
    question = "Is parking free?"
    claims = statements_of("No, guest parking costs $10 per night.", question)
    assert claims == ["Guest parking costs $10 per night."]
    [verdict] = asyncio.run(
        local_judge.support(claims, ["Guest parking costs $10 per night."], question)
    )
    # With its "No," the claim negated what the context states: contradicted.
    assert verdict.verdict == "supported", verdict.reason
    # A question comparing two things keeps the answer's "No": it is the comparison.
    both = "Are George Avakian and Bobby Managoff both record producers?"
    assert statements_of("No, Avakian is a producer and Managoff a wrestler.", both)[0].startswith(
        "No,"
    )
