"""What a claim states beyond its passage's sentence: more widely, or as a fact where it
hedges."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local import trust
from rag_eval_pytest.judges.local.scope import beyond


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("Shipping is free on all orders.", "Shipping is free on orders over $50."),
        ("The Pro plan costs $20 per month.", "The Pro plan costs $20 per user per month."),
        ("All employees get 25 days of leave.", "Full-time employees get 25 days of leave."),
        (
            "Items can be returned for a refund.",
            "Items can be returned within 30 days for a refund.",
        ),
    ],
)
def test_a_claim_without_its_sentences_condition_is_stated_more_widely(
    claim: str, sentence: str
) -> None:
    assert beyond(claim, sentence) == trust.BROADENED


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("Shipping is free on orders over $50.", "Shipping is free on orders over $50."),
        ("You can change each setting here.", "Settings can be changed here."),
        ("There is a direct flight every day.", "The airline runs a daily direct flight."),
        ("Super Bowl XLVIII", "Smith was named MVP of Super Bowl XLVIII after they won."),
        (
            "The Pro plan includes phone support.",
            "The Pro plan includes phone support and costs $20 per month.",
        ),
    ],
)
def test_a_claim_that_keeps_its_sentences_conditions_is_not(claim: str, sentence: str) -> None:
    assert beyond(claim, sentence) == ""


def test_a_fact_its_sentence_hedges_is_of_its_own_kind() -> None:
    said = beyond(
        "Rings form from leftover material.", "They may have formed from leftover material."
    )
    assert said == trust.HEDGED
