"""A year in brackets after a name is that name's: a claim that gives a name another name's
year, where the contexts give it one of its own, is a conflict of dates."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.named_years import check_named_years

DISCOGRAPHY = (
    'Her albums include "Salt and Cedar" (2004), "Night Ferry" (2008), "Low Tide" (2011)'
    ' and "Paper Lanterns" (2015).'
)


def test_a_name_given_another_names_year_is_a_conflict_of_dates() -> None:
    claim = 'Her albums include "Salt and Cedar" (2008), "Night Ferry" (2008) and "Low Tide".'
    [finding] = check_named_years(claim, DISCOGRAPHY)
    assert (finding.kind, finding.severity, finding.message) == (
        "dates",
        "conflict",
        "claims Salt and Cedar (2008); the context says Salt and Cedar (2004)",
    )


@pytest.mark.parametrize(
    "claim",
    [
        'Her albums include "Night Ferry" (2008) and "Paper Lanterns" (2015).',
        # A name the contexts give no year in brackets, and a year with no name before it.
        'Her first single was "Harbour" (2003).',
        "She toured Japan in (2009).",
    ],
)
def test_a_names_own_year_or_a_name_without_one_is_no_conflict(claim: str) -> None:
    assert check_named_years(claim, DISCOGRAPHY) == []
