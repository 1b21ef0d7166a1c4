"""An item a claim's list adds to the list its contexts give: a gap, never a claim supported
by the wording of the rest."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.items import check_items


@pytest.mark.parametrize(
    ("claim", "contexts", "added"),
    [
        (
            "The Trail jacket comes in black, navy, olive and red.",
            "The Trail jacket comes in black, navy and olive. It is waterproof.",
            "red",
        ),
        (
            "mums or chrysanths or daffodils.",
            "Chrysanthemums, sometimes called mums or chrysanths, are flowering plants.",
            "daffodils",
        ),
        ("We accept Visa, Mastercard and PayPal.", "We accept Visa and Mastercard.", "PayPal"),
    ],
)
def test_an_item_no_context_gives_beside_the_others_is_a_gap(
    claim: str, contexts: str, added: str
) -> None:
    [gap] = check_items(claim, contexts)
    assert (gap.kind, gap.severity) == ("items", "gap")
    assert gap.message.startswith(f"lists {added}, which the contexts do not give")


@pytest.mark.parametrize(
    ("claim", "contexts"),
    [
        # every item given, "UK" as "the United Kingdom"
        ("We ship to the UK, France and Spain.", "We ship to Spain, the United Kingdom, France."),
        # no item given: another list, which the other checks and the score read
        ("We accept Visa, Mastercard and PayPal.", "Payment is by card only."),
        # an amount is the number check's
        ("Sizes 8, 10 and 12 are in stock.", "Sizes 8 and 10 are in stock."),
        # two items are no list of three
        ("We accept Visa and PayPal.", "We accept Visa and Mastercard."),
    ],
)
def test_a_list_the_contexts_give_or_do_not_give_at_all_is_no_gap(
    claim: str, contexts: str
) -> None:
    assert check_items(claim, contexts) == []
