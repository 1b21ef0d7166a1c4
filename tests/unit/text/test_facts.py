"""Words as the local judge compares them: stems that meet across inflections."""

from __future__ import annotations

import pytest

from rag_eval_pytest.text.facts import coverage, stem


@pytest.mark.parametrize(
    ("inflected", "base"),
    [
        ("submitted", "submit"),
        ("submitting", "submit"),
        ("planned", "plan"),
        ("shipped", "ship"),
        ("refunded", "refund"),
        ("called", "call"),
        ("passed", "pass"),
    ],
)
def test_an_inflection_that_doubles_a_consonant_meets_its_base(inflected: str, base: str) -> None:
    assert stem(inflected) == stem(base)


def test_a_claim_in_another_inflection_covers_the_context_s_words() -> None:
    assert coverage("You submit the timesheet.", "Timesheets are submitted weekly.") == 1.0
