"""The local judge's checks as one declared pipeline: each finding carries the name of the check
that made it, a check can be left out by its name, and a verdict's kind of evidence names the
check behind it. No model is loaded."""

from __future__ import annotations

from rag_eval_pytest.judges.local import trust
from rag_eval_pytest.judges.local.pipeline import CHECK_NAMES, Reading, run_checks

PASSAGE = "Items can be returned within 30 days of delivery."


def reading(claim: str, passage: str = PASSAGE) -> Reading:
    return Reading(claim, passage, passage, passage)


def test_the_checks_run_in_one_declared_order_under_their_names() -> None:
    assert CHECK_NAMES == (
        "numbers",
        "times",
        "days",
        "routes",
        "dates",
        "negation",
        "swaps",
        "holders",
        "agents",
        "items",
        "places",
        "known_for",
    )


def test_each_finding_names_the_check_that_made_it() -> None:
    [finding] = run_checks(reading("Items can be returned within 20 days of delivery."))
    assert (finding.check, finding.kind, finding.severity) == ("numbers", "numbers", "conflict")
    assert trust.conflict_basis(finding) == "contradicted: numbers"
    closed = "The store is closed on Sundays."
    found = run_checks(reading("The store is open on Sundays.", closed))
    assert [trust.conflict_basis(f) for f in found] == [
        "contradicted: days",
        "contradicted: opposite",
    ]


def test_a_check_left_out_finds_nothing() -> None:
    claim = "Items can be returned within 20 days of delivery."
    assert run_checks(reading(claim), skip=frozenset({"numbers"})) == []


def test_a_verdict_of_a_kind_not_trusted_is_doubted_and_some_kinds_never_decide() -> None:
    assert not trust.doubted(trust.SCORE_SUPPORTED, None)
    assert trust.doubted(trust.SCORE_SUPPORTED, frozenset({trust.HEDGED}))
    assert not trust.doubted(trust.HEDGED, frozenset({trust.HEDGED}))
    for kind in (trust.IN_BAND, trust.WORDING_ONLY, trust.COMPARISON, trust.BARE_NO):
        assert trust.doubted(kind, None)


def test_a_negated_comparison_is_no_conflict_with_one_of_the_things_compared() -> None:
    """A "No" to "Were Eatza Pizza and Your Pie founded in the same state?" states that they
    were not founded in the same state: true or false only by putting two facts together.
    The passage that states where one of them was founded neither negates it nor has its
    words in other places."""
    passage = (
        "Eatza Pizza was a buffet-style restaurant chain founded in Arizona in 1997. "
        "Your Pie is an American fast casual pizza concept, started in Athens, Georgia."
    )
    claim = "Eatza Pizza and Your Pie were not founded in the same state."
    assert run_checks(reading(claim, passage)) == []
    # A plain negation of what the passage states is still one.
    [found] = run_checks(reading("Eatza Pizza was not founded in Arizona.", passage))
    assert (found.check, found.kind) == ("negation", "negation")
    # "The same day" of one thing compares nothing: the denial is one.
    deposits = "Cheque deposits made before 4 pm on a business day are credited the same day."
    denied = "Cheque deposits made before 4 pm on a business day are not credited the same day."
    assert negations(denied, deposits) == ["negation"]


RETURNS = "Items can be returned within 30 days. Sale items cannot be returned."


def test_a_sentence_of_the_context_that_denies_the_claims_words_is_a_conflict() -> None:
    # The closest passage is the first sentence; the second denies what the claim says.
    claim = "Sale items can be returned within 30 days."
    found = run_checks(Reading(claim, RETURNS.split(". ")[0] + ".", RETURNS, RETURNS))
    assert [(f.check, f.kind) for f in found] == [("negation", "negation")]


def test_a_denial_with_a_word_or_a_number_of_its_own_is_no_conflict() -> None:
    dosage = "Adults take 2 tablets every 8 hours. Do not take more than 6 tablets in 24 hours."
    bought = "Items can be returned within 30 days. Items bought on sale cannot be returned."
    for claim, context in [
        ("Items can be returned within 30 days.", RETURNS),
        ("Sale items can be returned within 30 days.", bought),
        ("Take 2 tablets every 8 hours.", dosage),
    ]:
        first = context.split(". ")[0] + "."
        found = run_checks(Reading(claim, first, context, context))
        assert [f for f in found if f.check == "negation"] == [], claim


def negations(claim: str, context: str) -> list[str]:
    return [f.kind for f in run_checks(Reading(claim, context, context, context))]


def test_a_denial_put_aside_its_clause_is_a_conflict_with_the_claim_that_affirms_it() -> None:
    leave = "Leave is approved by your line manager, not HR."
    assert negations("Leave is approved by HR.", leave) == ["negation"]
    # The same denial, and a claim about something else HR does: no conflict.
    assert negations("Your line manager, not HR, approves leave.", leave) == []
    assert negations("HR answers questions about leave.", leave) == []


def test_a_fee_waived_where_the_context_charges_it_is_an_opposite() -> None:
    fee = "The booking fee of $5 is charged on every order."
    assert negations("The $5 booking fee is waived on every order.", fee)[0] == "opposite"


def test_a_claim_that_denies_the_contexts_amount_is_a_negation() -> None:
    # "not $7,500": the amount is what is denied, and "$7,500" is one amount, not "$7" and "500".
    loan = "The minimum loan amount is $7,500."
    assert negations("The minimum loan amount is not $7,500.", loan) == ["negation"]
    assert negations("The minimum loan amount is not $5,000.", loan) != []
    assert negations(loan, loan) == []


def test_a_clause_of_the_claim_that_denies_its_own_clause_is_a_negation() -> None:
    # The claim whole shares too few words with either clause; its first clause denies the
    # context's first.
    ward = "The pharmacy is on the 1st floor, next to the lifts."
    assert negations("The pharmacy is not on the 1st floor, next to the lifts.", ward) == [
        "negation"
    ]
    assert negations(ward, ward) == []


def test_a_denial_of_what_the_context_says_two_things_share_is_a_negation() -> None:
    # The clause says "both" too: the claim denies it, it does not compare two facts.
    lunch = "Lunch is provided on both days."
    assert negations("Lunch is not provided on both days.", lunch) == ["negation"]
    drop = "After-hours key drop is available at both locations."
    assert negations("After-hours key drop is not available at both locations.", drop) == [
        "negation"
    ]
    assert negations(lunch, lunch) == []


def test_not_only_denies_the_limit_the_context_states() -> None:
    phone = "Phone support is only available for Enterprise customers."
    assert negations("Phone support is not only available for Enterprise customers.", phone) == [
        "negation"
    ]
    # With its second half, or against a context with no limit, it is the idiom.
    fast = "The new router is fast and cheap."
    assert negations("The new router is not only fast but also cheap.", fast) == []


def test_a_denied_amount_is_a_claim_s_word_and_a_context_s_other_denial_is_no_alibi() -> None:
    # "not 8 km": the amount is what it denies, in a claim of one other content word.
    walk = "The walk is 8 km each way."
    assert negations("The walk is not 8 km each way.", walk) == ["negation"]
    # The context's "do not count toward the seat total" denies no 3 and no 100 seats.
    seats = (
        "Team workspaces can have between 3 and 100 seats. Guests are free and do not count"
        " toward the seat total."
    )
    assert negations("Team workspaces can not have between 3 and 100 seats.", seats) == ["negation"]
    # A clause of a denied amount is read alone.
    excess = "For escape of water claims, such as burst pipes, the excess is $1,000."
    assert negations(
        "For escape of water claims, such as burst pipes, the excess is not $1,000.", excess
    ) == ["negation"]


def test_a_claim_that_keeps_the_context_s_exception_and_denies_the_rest_is_a_negation() -> None:
    pool = "The pool is open daily except bank holidays."
    assert negations("The pool is not open daily except bank holidays.", pool) == ["negation"]
    # What the context excepts, turned round, is no negation.
    assert "negation" not in negations("The pool is closed on bank holidays.", pool)
    assert negations(pool, pool) == []


def test_a_denial_of_a_long_sentence_is_read_against_the_sentence_whole() -> None:
    # No one clause of the sentence holds enough of the claim; the sentence does.
    gervais = (
        "Ricky Dene Gervais (born 25 June 1961) is an English comedian, actor, writer,"
        " producer, director, singer, and musician."
    )
    denied = gervais.replace(" is an ", " is not an ")
    assert negations(denied, gervais) == ["negation"]
    # A negation reaches past words that say nothing ("made it out of") to what it denies.
    icu = "She has made it out of icu, opened her eyes and started a long rehabilitation."
    assert negations(icu.replace("has made", "has not made"), icu) == ["negation"]


def test_two_denials_are_read_alike_and_not_the_only_one_is_no_denial_of_another() -> None:
    bins = "Batteries must not be placed in any household bin."
    assert negations("Batteries shouldn't go in any of your household bins.", bins) == []
    aces = "Villegas hit an ace on a day which saw five hole-in-ones."
    assert "negation" not in negations("His ace was not the only one of the day.", aces)
    only = "Paris is the only city to host the games three times."
    assert negations("Paris is not the only city to host the games three times.", only) == [
        "negation"
    ]


def test_a_clause_beside_another_clause_s_denial_is_no_denial() -> None:
    copies = "There is no charge for electronic copies; paper copies cost $10."
    assert negations("Paper copies cost $10.", copies) == []
    safari = "Safari is supported on macOS only; Safari on iPadOS is not supported."
    assert negations("Safari is supported on macOS only.", safari) == []


def test_an_opposite_in_one_clause_of_a_long_claim_or_beside_a_like_denial_is_an_opposite() -> None:
    cover = (
        "Trip delay cover pays up to $150 per day, to a maximum of $450, if your flight is"
        " delayed by 6 hours or more."
    )
    assert negations(cover.replace("maximum", "minimum"), cover) == ["opposite"]
    # Both deny alike ("is not received"), and the payment is the other one.
    fee = "A late fee of $29 is charged if the minimum payment is not received by the due date."
    assert negations(fee.replace("minimum", "maximum"), fee) == ["opposite"]
    assert negations(cover, cover) == [] and negations(fee, fee) == []


def test_an_opposite_the_closest_sentence_puts_beside_the_claim_s_words_stands() -> None:
    # The claim's first clause is the other sentence's words; its closest sentence puts
    # "after" where the claim puts "before".
    parking = (
        "Cars parked before 6 pm on a weekday pay the day rate. Cars parked after 6 pm, at"
        " weekends or on holidays pay the flat evening rate."
    )
    claim = "Cars parked before 6 pm, at weekends or on holidays pay the flat evening rate."
    assert negations(claim, parking) == ["opposite"]
    assert negations(claim.replace("before", "after"), parking) == []
    # A sentence copied whole puts each of its words where it does, though a clause of it
    # puts the other beside the same words.
    bath = "If you take a cold bath, you shiver less later than after you take a hot bath."
    assert "opposite" not in negations(bath, bath)
    # Opposite words no two words around bind: "in the first half" is no "last eight".
    match = "They beat the last eight champions. Scores were level four times early on."
    assert "opposite" not in negations("Scores were level four times in the first half.", match)
