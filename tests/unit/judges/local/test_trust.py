"""Which verdicts of the local judge decide alone: each names the kind of evidence it rests
on, and only the kinds measured right often enough on every benchmark set decide; a claim
stated as a fact where its passage hedges, and a replaced name in a long claim, are kinds of
their own that do not. No model is loaded: each text gets a fixed vector of its own."""

from __future__ import annotations

import numpy as np
import pytest

from rag_eval_pytest.judges.local import trust
from rag_eval_pytest.judges.local.pipeline import Reading, run_checks
from rag_eval_pytest.judges.local.relevance import RELEVANCE, SENTENCE_RELEVANCE
from rag_eval_pytest.judges.local.scope import hedged
from rag_eval_pytest.judges.local.support import (
    DEFAULT_CALIBRATION,
    ClaimSupport,
    Evidence,
    judge_claim,
)

from .fakes import unit_vector


def verdict_of(claim: str, sentence: str, copied: bool = True) -> ClaimSupport:
    """The shipped judge's verdict on a claim against one context of one sentence, the claim
    as close in meaning to it as a copy (``copied``) or not at all."""
    evidence = Evidence.build([sentence], [[sentence]], [np.vstack([unit_vector(sentence)])])
    vector = unit_vector(sentence if copied else claim)
    return judge_claim(claim, vector, evidence, DEFAULT_CALIBRATION)


@pytest.mark.parametrize(
    ("claim", "sentence", "hedges"),
    [
        ("Rings form from leftover material.", "Rings may form from leftover material.", True),
        ("The vase is Roman.", "The vase is possibly Roman.", True),
        ("The fort dates from 1200.", "The fort is thought to date from 1200.", True),
        ("The shop opened in 2001.", "The shop opened in May 2001.", False),  # the month
        ("Rings may form from leftover material.", "Rings might form from it.", False),
        ("Rings form from leftover material.", "Rings form from leftover material.", False),
    ],
)
def test_a_fact_the_passage_only_states_as_possible_is_hedged(
    claim: str, sentence: str, hedges: bool
) -> None:
    assert hedged(claim, sentence) is hedges


def test_a_claim_stated_as_a_fact_where_the_context_hedges_is_unsure() -> None:
    sentence = "The rings may have formed from leftover material of the planet."
    plain = verdict_of("The rings formed from leftover material of the planet.", sentence)
    assert (plain.verdict, plain.unsure, plain.basis) == ("supported", True, trust.HEDGED)
    assert plain.reason.startswith(f"unsure ({trust.HEDGED}: a kind of evidence")
    # The same claim with its hedge is supported above the band, and decided.
    same = verdict_of(sentence, sentence)
    assert (same.verdict, same.unsure, same.basis) == ("supported", False, trust.SCORE_SUPPORTED)


def test_a_replaced_name_in_a_long_claim_is_a_kind_that_does_not_decide_alone() -> None:
    passage = (
        "Dr Moura joined from St Mary's Hospital in London, where she led the cardiology "
        "team for ten years."
    )
    long = (
        "Dr Moura joined from St Mary's Hospital in Manchester, where she led the cardiology "
        "team for ten years."
    )
    [finding] = run_checks(Reading(long, passage, passage, passage))
    basis = trust.conflict_basis(finding)
    assert (finding.check, basis) == ("swaps", "contradicted: names")
    assert trust.doubted(basis, trust.CLAIM_KINDS)
    # In a short claim, whose every other word the passage holds, a replaced name decides.
    context = "The capital of Australia is Canberra."
    [short] = run_checks(Reading("The capital of Australia is Sydney.", context, context, context))
    assert (short.check, trust.conflict_basis(short)) == ("swaps", "contradicted: terms")
    assert not trust.doubted(trust.conflict_basis(short), trust.CLAIM_KINDS)


def test_only_the_measured_kinds_decide_alone() -> None:
    assert DEFAULT_CALIBRATION.trusted == trust.CLAIM_KINDS
    decide = {trust.SCORE_SUPPORTED, "contradicted: numbers", "contradicted: dates"}
    # A time of day the times check finds in conflict is a number in conflict.
    context = "The pharmacy opens at 9 am."
    [time] = run_checks(Reading("The pharmacy opens at 7 am.", context, context, context))
    assert (time.check, trust.conflict_basis(time)) == ("times", "contradicted: numbers")
    assert decide <= trust.CLAIM_KINDS
    unsure = {
        trust.HEDGED,
        trust.SCORE_NOT_MENTIONED,
        "contradicted: names",
        "contradicted: negation",
        "not mentioned: unstated numbers",
    }
    assert not unsure & trust.CLAIM_KINDS
    assert RELEVANCE.trusted == {trust.RESTATES_QUESTION}
    assert trust.FAR_BELOW not in RELEVANCE.trusted
    assert trust.DIRECT_ANSWER not in RELEVANCE.trusted
    assert SENTENCE_RELEVANCE.trusted == frozenset()
    # A kind that decides nothing stays unsure whatever a calibration trusts.
    assert trust.doubted(trust.IN_BAND, None)
    assert not trust.doubted(trust.HEDGED, None)


def test_a_paraphrase_is_supported_by_its_score_not_by_a_hand_rule() -> None:
    """No rule lifts a paraphrase to supported: the hand override that did ("every word in
    one passage, close in meaning": a restatement) was right on 8 of the 9 held-out rows
    whose forced verdict it set, under the 0.95 a hand override must reach. Its score says
    how sure the judge is, and the verdict is unsure where the score is in the band."""
    sentence = "Canberra is the capital city of Australia."
    paraphrase = verdict_of("Australia's capital is Canberra.", sentence)
    assert paraphrase.verdict == "supported", paraphrase.reason
    assert (paraphrase.basis, paraphrase.unsure) == (trust.IN_BAND, True)
    assert paraphrase.score == paraphrase.model_score
    copied = verdict_of("Refunds take two weeks.", "A refund takes two weeks to arrive.")
    assert (copied.basis, copied.unsure) == (trust.SCORE_SUPPORTED, False), copied.reason
