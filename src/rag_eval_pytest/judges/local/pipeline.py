"""The checks of a claim, in one declared order, each under its name.

Each check reads a claim against its evidence (:class:`Reading`: the closest passage, its
context, all the contexts) and returns :class:`~.checks.Finding` objects; the pipeline
stamps each finding with the name of the check that made it, which is what the support
decision and the measured precision of each kind of evidence (:mod:`.trust`) read. A check
is found by its name in :data:`CHECKS`; ``skip`` leaves some out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...text.sentences import split_sentences
from ...text.words import content_words, tokens
from .agents import check_agents
from .checks import (
    Finding,
    check_dates,
    check_negation,
    check_numbers,
    check_swaps,
    opposite_terms,
    placed_opposites,
    words_swapped,
)
from .facts import coverage, negation_cues, said_words
from .holders import check_holders
from .items import check_items
from .known_for import check_known_for
from .named_years import check_named_years
from .places import check_places
from .quantities import quantities
from .role_checks import check_days, check_routes, check_times

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass(frozen=True)
class Reading:
    """What a check reads: the claim, the passage closest to it, that passage's whole
    context, every context joined, the closest passage with a date (the rival of a date the
    closest one lacks), and a short claim read with its question (``framed``)."""

    claim: str
    passage: str
    context: str
    contexts: str
    dated: str = ""
    framed: str = ""


@dataclass(frozen=True)
class Check:
    """One check: its name (``judge.local.checks``) and what it runs."""

    name: str
    run: Callable[[Reading], list[Finding]]


def _dates(r: Reading) -> list[Finding]:
    """The dates no context date can be, else a name's year another name's (a title's in a
    list of titles with years)."""
    found = check_dates(r.claim, r.passage, r.contexts, r.dated)
    return found or check_named_years(r.claim, r.contexts)


def _swaps(reading: Reading) -> list[Finding]:
    if negates_a_comparison(reading.claim):  # the two things compared, in either order
        return []
    sentence = closest_sentence(reading.claim, reading.passage)
    clause = best_sentence(reading.claim, reading.passage)
    if LISTED.search(reading.claim):  # "black, navy and red": the list's commas part no clauses
        clause = sentence
    found = check_swaps(reading.claim, clause, reading.context, reading.contexts, reading.framed)
    # Two words in each other's places across the sentence's clauses ("closed to cars but
    # open to cyclists"), which the clause alone does not hold.
    swapped = None if found else words_swapped(reading.claim, sentence)
    return found or ([swapped] if swapped else [])


CHECKS: tuple[Check, ...] = (
    Check("numbers", lambda r: check_numbers(r.claim, r.passage, r.contexts)),
    Check("times", lambda r: check_times(r.claim, r.passage, r.contexts)),
    Check("days", lambda r: check_days(r.claim, r.passage)),
    Check("routes", lambda r: check_routes(r.claim, r.passage)),
    Check("dates", _dates),
    Check("negation", lambda r: negation(r.claim, r.passage, r.context)),
    Check("swaps", _swaps),
    Check("holders", lambda r: check_holders(r.claim, r.contexts)),
    Check("agents", lambda r: check_agents(r.claim, r.contexts)),
    Check("items", lambda r: check_items(r.claim, r.contexts)),
    Check("places", lambda r: check_places(r.claim, r.contexts)),
    Check("known_for", lambda r: check_known_for(r.claim, r.contexts)),
)
CHECK_NAMES = tuple(check.name for check in CHECKS)


def run_checks(reading: Reading, skip: frozenset[str] = frozenset()) -> list[Finding]:
    """Every finding of the checks not in ``skip``, in their declared order, each with its
    check's name."""
    return [
        replace(finding, check=check.name)
        for check in CHECKS
        if check.name not in skip
        for finding in check.run(reading)
    ]


CLAUSE = re.compile(
    r"\s*(?:(?<!\d)[,:]|[,:](?!\d)|[;\u2013\u2014]|\s-\s|\bbut\b|\bwhile\b|\bwhereas\b)\s*"
)
# Three or more items: "black, navy and olive", "Visa, Mastercard, or PayPal".
LISTED = re.compile(
    r"\b[^\W\d_][\w-]*,\s+(?:[^\W\d_][\w-]*\s+)?[^\W\d_][\w-]*,?\s+(?:and|or)\s+[^\W\d_]"
)


def closest_sentence(claim: str, passage: str) -> str:
    """The sentence of a window that shares most of the claim's words."""
    parts = split_sentences(passage) or [passage]
    return max(parts, key=lambda s: _shared(claim, s))


def best_sentence(claim: str, passage: str) -> str:
    """The clause of the passage that shares most of the claim's words: negation is read
    there, not across a window ("The stones cause no symptoms as they form, but ... causing
    pain" does not negate "it causes pain")."""
    sentence = closest_sentence(claim, passage)
    clauses = [c for c in CLAUSE.split(sentence) if c and len(c.split()) >= 3] or [sentence]
    return max(clauses, key=lambda c: _shared(claim, c))


def _shared(claim: str, text: str) -> tuple[float, int]:
    """How much of the claim ``text`` holds: the share of its content words, then, on a tie,
    how many of its words of any kind ("We deliver to P.O. boxes." shares "deliver" with
    "Express shipping ... delivers in 1-2 business days." and "boxes" with "We do not ship to
    P.O. boxes.", which also holds "We", "to", "P" and "O")."""
    mine = {t.lower() for t in tokens(claim)}
    return coverage(claim, text), len(mine & {t.lower() for t in tokens(text)})


def negation(claim: str, passage: str, context: str = "") -> list[Finding]:
    """A negation conflict of the claim with the passage's clause that shares most of its words;
    for a claim of several clauses, kept only when a clause of the claim that can be read alone
    conflicts with its own closest clause too, or the conflict is an opposite the closest
    sentence puts between the claim's words around it (:func:`_stands`). A claim copied from a
    passage whose second clause holds the "not" ("... 89 percent, not even close to completion")
    is read against that clause, not against the first one. Without one, a sentence of the
    passage's ``context`` that denies the claim's words (:func:`_denied_whole`), or a denial put
    aside the passage's clause (:func:`_denied_aside`). None where the passage denies what the
    claim denies (:func:`_denies_alike`)."""
    clause = best_sentence(claim, passage)
    if _compares_apart(claim, closest_sentence(claim, passage)) or _denies_alike_only(
        claim, clause, passage
    ):
        return []
    found = _closest_denied(claim, clause, passage)
    if not found:
        return _clause_denied(claim, passage) or _denied_elsewhere(claim, passage, context)
    return found if _stands(found, claim, passage) else []


def _stands(found: list[Finding], claim: str, passage: str) -> bool:
    """Whether the negation conflict ``found`` of the claim with its closest clause stands:
    an opposite anchored in its closest sentence (:func:`_opposed`), or one its clauses keep
    (:func:`_kept_by_its_clauses`)."""
    return _opposed(found, claim, passage) or _kept_by_its_clauses(claim, passage)


def _opposed(found: list[Finding], claim: str, passage: str) -> bool:
    """Whether the findings are an opposite word's that the claim's closest sentence puts
    between the claim's words around it, where it never puts the claim's word
    (:func:`.checks.placed_opposites`; "take a cold shower ... after you take a hot shower"
    copied whole puts "cold" where its sentence does): it stands,
    whatever clause of the passage the claim's own clause is closest to ("Deposits made
    before 4 p.m., on weekends ... are credited the next business day." against "Deposits
    made after 4 p.m., on weekends ..." beside "Deposits made before 4 p.m. on a business
    day are credited the same day.")."""
    sentence = closest_sentence(claim, passage)
    return all(f.kind == "opposite" for f in found) and bool(placed_opposites(claim, sentence))


def _closest_denied(claim: str, clause: str, passage: str) -> list[Finding]:
    """The negation conflict of the claim with its closest clause, else with its closest
    sentence whole (:func:`_sentence_denied`)."""
    found = check_negation(claim, clause, coverage(claim, clause), passage)
    return found or _sentence_denied(claim, clause, passage)


def _sentence_denied(claim: str, clause: str, passage: str) -> list[Finding]:
    """The negation conflict of a claim of several clauses that denies, with its closest
    sentence whole, which does not, whose every clause the claim holds and no one clause of
    which holds enough of the claim
    ("Ricky Dene Gervais (born 25 June 1961) is not an English comedian, actor, writer,
    producer, director, singer, and musician.")."""
    sentence = closest_sentence(claim, passage)
    if sentence == clause or not _denies_alone(claim, sentence):
        return []
    return check_negation(claim, sentence, coverage(claim, sentence), passage)


def _denies_alone(claim: str, sentence: str) -> bool:
    """Whether the claim denies and the sentence does not, or the claim holds the opposite of
    a word of the sentence ("..., to a minimum of $600, if ..." against "..., to a maximum of
    $600, if ..."): a claim of one clause of a sentence another clause of which denies
    something ("Paper copies cost $10." beside "There is no charge for electronic copies")
    is no denial of it."""
    turned = bool(negation_cues(claim, sentence)) and not negation_cues(sentence, claim)
    return turned or bool(opposite_terms(claim, sentence))


def _clause_denied(claim: str, passage: str) -> list[Finding]:
    """The negation conflict of a clause of the claim that can be read alone with its own
    closest clause, where the claim whole shares too few words with any one clause ("The
    pharmacy is not on the 1st floor, next to the lifts." against "The pharmacy is on the
    1st floor, next to the lifts.")."""
    pieces = CLAUSE.split(claim)
    parts = _read_alone(pieces)
    if not _read_apart(pieces, parts):
        return []
    return next((found for part in parts if (found := _negation_of(part, passage))), [])


def _negation_of(part: str, passage: str) -> list[Finding]:
    """The negation conflict of a clause of the claim with its own closest clause."""
    own = best_sentence(part, passage)
    return check_negation(part, own, coverage(part, own), passage)


def _denied_elsewhere(claim: str, passage: str, context: str) -> list[Finding]:
    """A negation conflict the claim's closest clause does not hold: a sentence that denies
    the claim's words whole, or a denial put aside the clause."""
    return _denied_whole(claim, context or passage) or _denied_aside(claim, passage)


def _denies_alike_only(claim: str, clause: str, passage: str) -> bool:
    """Whether the passage denies what the claim denies (:func:`_denies_alike`) and the
    claim's closest clause holds no opposite of a word of the claim ("if the maximum payment
    is not received" against "if the minimum payment is not received": the denial is alike,
    the payment is not)."""
    return _denies_alike(claim, passage) and not opposite_terms(claim, clause)


def _denies_alike(claim: str, passage: str) -> bool:
    """Whether the passage denies what the claim denies ("Your line manager, not HR, approves
    leave." against "Leave is approved by your line manager, not HR.")."""
    mine = _denied_words(claim)
    return bool(mine) and mine <= _denied_words(passage)


def _denied_words(text: str) -> frozenset[str]:
    """The content words and numbers a "not" denies, to the next punctuation ("not HR, ...":
    HR; "not have between 3 and 100 seats": 3, 100, seats)."""
    return frozenset().union(*(said_words(m.group(1)) for m in _NOT.finditer(text)))


_NOT = re.compile(r"\bnot\s+([^,.;:!?]+)", re.IGNORECASE)


def _denied_aside(claim: str, passage: str) -> list[Finding]:
    """A negation conflict with a denial the passage puts aside its clause ("Leave is
    approved by your line manager, not HR." against "Leave is approved by HR."): the claim,
    which denies nothing, holds the denied words, and the clause before the denial holds its
    other words ("HR answers questions about leave" says something else)."""
    if negation_cues(claim, passage):
        return []
    mine = content_words(claim)
    for aside in _ASIDE.finditer(passage):
        denied = content_words(aside.group("denied"))
        before = content_words(passage[: aside.start()].split(".")[-1])
        if denied and denied <= mine and mine - denied <= before:
            said = f"\u201cnot {aside.group('denied')}\u201d"
            return [
                Finding(
                    "negation", "conflict", f"the claim affirms what the context negates ({said})"
                )
            ]
    return []


# A denial put aside a clause: ", not HR", ", but not on Sundays".
_ASIDE = re.compile(r",\s*(?:but\s+)?not\s+(?P<denied>[^,.;:!?]+)", re.IGNORECASE)


def _kept_by_its_clauses(claim: str, passage: str) -> bool:
    """Whether a claim's negation conflict stands: a claim of one clause, or of several
    where one that can be read alone conflicts with its own closest clause too."""
    pieces = CLAUSE.split(claim)
    parts = _read_alone(pieces)
    return not _read_apart(pieces, parts) or any(_negated(part, passage) for part in parts)


def _denied_whole(claim: str, context: str) -> list[Finding]:
    """A negation conflict with a sentence of the context that the claim's words hold whole
    and that denies them, where the claim does not ("Sale items cannot be returned." against
    "Sale items can be returned within 30 days.", which the sentence before it, "Items can be
    returned within 30 days.", holds closer). A sentence with a word or a number of its own
    ("Items bought on sale cannot be returned.") says something else."""
    if negation_cues(claim, context):
        return []
    for sentence in split_sentences(context):
        if _held_whole(sentence, claim) and negation_cues(sentence, claim):
            return check_negation(claim, sentence, 1.0, context)
    return []


def _held_whole(sentence: str, claim: str) -> bool:
    """Whether the claim holds every word of a sentence of two content words or more, and
    every number ("Do not take more than 6 tablets in 24 hours" has numbers of its own
    beside "Take two tablets every eight hours")."""
    theirs = content_words(sentence)
    numbers = {q.value for q in quantities(claim)}
    own = [q for q in quantities(sentence) if q.value not in numbers]
    return len(theirs) >= 2 and theirs <= content_words(claim) and not own


# "the same", "both": what two things share.
_SHARED = re.compile(r"\b(?:same|both)\b", re.IGNORECASE)
# What names two things before "same": "Eatza Pizza and Your Pie ... the same state", "they",
# "the two"; not "Deposits ... are not credited the same day", one thing on one day.
_TWO_THINGS = re.compile(r"\b(?:and|both|they|two|either|neither)\b", re.IGNORECASE)


def negates_a_comparison(claim: str) -> bool:
    """Whether the claim negates what two things share ("Eatza Pizza and Your Pie were not
    founded in the same state", "they are not both vegan"): true or false only by putting
    two facts together, so a passage that states one of them ("Eatza Pizza was founded in
    Arizona") does not contradict it. "The same" compares only after words that name two
    things ("Deposits are not credited the same day." compares nothing)."""
    shared = _SHARED.search(claim)
    if not negation_cues(claim) or shared is None:
        return False
    return shared.group(0).lower() == "both" or bool(_TWO_THINGS.search(claim, 0, shared.start()))


def _compares_apart(claim: str, sentence: str) -> bool:
    """Whether the claim negates what two things share (:func:`negates_a_comparison`) that
    its closest sentence does not say they share: "Eatza Pizza and Your Pie were not founded
    in the same state" against a sentence of each, not "Lunch is not provided on both days."
    against "Lunch is provided on both days.", which denies the sentence."""
    if not negates_a_comparison(claim):
        return False
    shared = {m.group(0).lower() for m in _SHARED.finditer(claim)}
    return not shared & {m.group(0).lower() for m in _SHARED.finditer(sentence)}


def _read_alone(pieces: list[str]) -> list[str]:
    """The clauses that can be read alone: two content words or numbers or more ("the
    excess is not $1,000")."""
    return [c for c in pieces if len(said_words(c)) >= 2]


def _read_apart(pieces: list[str], parts: list[str]) -> bool:
    """Whether a claim is read by its clauses: two that can be read alone, and no "not" in
    one too short to read alone ("..., but not on Sundays"), which stays the claim's."""
    return len(parts) >= 2 and not any(negation_cues(c) for c in pieces if c not in parts)


def _negated(part: str, passage: str) -> bool:
    """Whether a clause of the claim conflicts with its own closest clause of the passage."""
    return bool(_negation_of(part, passage))
