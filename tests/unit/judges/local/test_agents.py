"""The agents check: an act the claim gives to the doer of another act of its contexts."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.agents import check_agents

LEAVE = "Leave requests are approved by your team lead, then logged by HR."
EXPENSES = "Expense claims are checked by the finance team and signed off by a director."
CODE = "Pull requests are reviewed by a teammate and merged by the author."


@pytest.mark.parametrize(
    ("claim", "contexts", "message"),
    [
        (
            "Your team lead logs leave requests.",
            LEAVE,
            "the claim gives \u201clogs\u201d to \u201cYour team lead\u201d; "
            "the context gives it to \u201cHR\u201d",
        ),
        (
            "Leave requests are approved by HR.",
            LEAVE,
            "the claim gives \u201capproved\u201d to \u201cHR\u201d; "
            "the context gives it to \u201cyour team lead\u201d",
        ),
        (
            "A director checks expense claims.",
            EXPENSES,
            "the claim gives \u201cchecks\u201d to \u201cA director\u201d; "
            "the context gives it to \u201cthe finance team\u201d",
        ),
        # The doer named by the other act: the reviewer is who reviews.
        (
            "Pull requests are merged by the reviewer.",
            CODE,
            "the claim gives \u201cmerged\u201d to \u201cthe reviewer\u201d; "
            "the context gives it to \u201cthe author\u201d",
        ),
    ],
)
def test_an_act_given_to_the_doer_of_another_act_is_a_conflict(
    claim: str, contexts: str, message: str
) -> None:
    [finding] = check_agents(claim, contexts)
    assert (finding.kind, finding.severity, finding.message) == ("order", "conflict", message)


@pytest.mark.parametrize(
    ("claim", "contexts"),
    [
        ("Your team lead approves leave requests.", LEAVE),
        ("HR logs leave requests.", LEAVE),
        ("Expense claims are signed off by a director.", EXPENSES),
        # The noun "log", not the act; a doer the contexts never name; one act with a doer.
        ("Check the HR log for your request.", LEAVE),
        ("Leave requests are approved by the board.", LEAVE),
        ("Refunds are paid by card.", "Refunds are paid by bank transfer."),
    ],
)
def test_an_act_given_to_its_own_doer_or_to_a_stranger_is_none_of_its_findings(
    claim: str, contexts: str
) -> None:
    assert check_agents(claim, contexts) == []


SONG = (
    '"Harbour Lights" is a folk song written by Ellen Marsh in 1961, best known for the 1964'
    " recording by The Drifting Sails."
)


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        # The doer the contexts credit with a work of their own; "wrote" is the act of
        # "written".
        (
            "The Drifting Sails wrote the song.",
            "the claim gives \u201cwrote\u201d to \u201cThe Drifting Sails\u201d; "
            "the context gives it to \u201cEllen Marsh\u201d",
        ),
        (
            '"Harbour Lights" was written by The Drifting Sails.',
            "the claim gives \u201cwritten\u201d to \u201cThe Drifting Sails\u201d; "
            "the context gives it to \u201cEllen Marsh\u201d",
        ),
    ],
)
def test_an_act_given_to_the_name_credited_with_another_work_is_a_conflict(
    claim: str, message: str
) -> None:
    [finding] = check_agents(claim, SONG)
    assert (finding.kind, finding.message) == ("order", message)


@pytest.mark.parametrize(
    "claim",
    [
        "Ellen Marsh wrote the song.",
        "The Drifting Sails recorded the song in 1964.",
        "A local choir wrote the song.",
    ],
)
def test_the_acts_own_doer_another_act_or_a_stranger_is_no_conflict(claim: str) -> None:
    assert check_agents(claim, SONG) == []
