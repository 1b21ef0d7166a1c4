"""The holders check: a fact the claim gives one named thing that the contexts give another."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.holders import check_holders

PLANS = (
    "The Pro plan includes phone support and a dedicated manager. "
    "The Basic plan includes email support only."
)


@pytest.mark.parametrize(
    ("claim", "holder", "other"),
    [
        ("Phone support is included in the Basic plan.", "Basic", "Pro"),
        ("Both the Basic and the Pro plan include phone support.", "Basic", "Pro"),
    ],
)
def test_a_fact_of_another_named_thing_is_a_conflict(claim: str, holder: str, other: str) -> None:
    [finding] = check_holders(claim, PLANS)
    assert (finding.kind, finding.severity) == ("holder", "conflict")
    assert finding.message == f"gives {holder} what the context gives {other}"


@pytest.mark.parametrize(
    ("claim", "contexts"),
    [
        ("The Pro plan includes phone support.", PLANS),
        ("Both plans include support.", PLANS),
        # Its sentence names it by a pronoun: no other thing holds the fact.
        (
            "The Pro plan includes phone support.",
            "The Pro plan costs $20. It includes phone support.",
        ),
        # The other name in the fact's sentence is one the claim gives itself.
        (
            "Sharon Lee founded Acme in 1999.",
            "Acme makes tools. Sharon Lee founded the company in 1999.",
        ),
        # Its own sentence states nothing in the fact's place.
        (
            "Xinzheng hosts a music festival.",
            "Wenling hosts a music festival. Xinzheng is in Henan.",
        ),
    ],
)
def test_a_fact_no_other_thing_holds_is_no_conflict(claim: str, contexts: str) -> None:
    assert check_holders(claim, contexts) == []


OFFICES = "Our headquarters are in Lyon. We have a sales office in Paris."


def test_a_claim_with_another_name_in_its_sentences_place_is_a_conflict() -> None:
    [finding] = check_holders("Our headquarters are in Paris.", OFFICES)
    assert finding.message == "gives Paris what the context gives Lyon"
    assert check_holders("We have a sales office in Paris.", OFFICES) == []
    assert check_holders("Our headquarters are in Lyon.", OFFICES) == []
