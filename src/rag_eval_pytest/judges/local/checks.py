"""Deterministic checks that catch what embedding similarity misses.

Similarity says "these are about the same thing"; it cannot tell 20 days from 30 days, a
claim from its negation, or Paris from Lyon. Each check compares a claim with its best
evidence (the closest context passage) and with all the contexts, and returns
:class:`Finding` objects with a human-readable message ("claims 30 days; the context says 20
days"). A *conflict* (the contexts state something else) makes a claim contradicted whatever
its similarity; a *gap* (the contexts do not state it) lowers its support score.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, cast, get_args

from ...text.lexicon import any_of
from ...text.names import INSTRUCTIONS, MONTHS, names
from ...text.sentences import split_sentences
from ...text.words import PLACES, STOPWORDS, content_words, stem, tokens
from .dates import Date, dates
from .exchanges import exchanged_numbers, misplaced_number
from .facts import known_name, negated_words, negation_cues, said_words, words_of_name
from .neighbours import (
    adds_a_neighbour,
    neighboured_alike,
    neighboured_otherwise,
    neighbours,
)
from .quantities import (
    CURRENCY_SIGNS,
    NUMBER_STEMS,
    Quantity,
    is_ordinal,
    quantities,
    same_value,
)
from .roles import SPAN_WORDS, time_spans, times, weekdays
from .tables import table
from .units import dimension_of, same_measure, unit_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

_UNITS = table("units")
SWAP_WORDS = 8  # claims with more content words are not checked for a replaced term
ROLE_WORDS = 5  # nor, with more than these, for two terms in each other's place


Kind = Literal[
    "numbers",
    "dates",
    "negation",
    "opposite",
    "names",
    "terms",
    "replaced",
    "days",
    "order",
    "holder",
]
FINDING_KINDS: tuple[Kind, ...] = get_args(Kind)
"""Every kind of finding a check emits as a conflict, in one order (the support model's
features read a conflict of each)."""
GapKind = Literal["items", "places", "known_for"]
"""The kinds of finding that are only ever a gap: an item of a list no context gives
(:mod:`.items`), a country the contexts name only by its people's word (:mod:`.places`),
another thing a subject is best known for (:mod:`.known_for`)."""


@dataclass(frozen=True)
class Finding:
    """One problem of a claim. ``kind``: numbers (times of day too), dates, negation,
    opposite (a word where the context has its opposite), names (a name of a long claim
    replaced by another: a long claim is read for nothing else), terms (a name or a word of a
    short claim replaced by another), replaced (a word no context holds in the place of the
    passage's: another thing, or the same thing in other words), days (of the week) or order
    (the ends of a route, or the claim's words in each other's places), items (of a list,
    a gap only), places (a country, a gap only), known_for (a gap only); ``severity``:
    conflict (the contexts say otherwise) or gap (they do not say it)."""

    kind: Kind | GapKind
    severity: Literal["conflict", "gap"]
    message: str
    in_digits: bool = False
    """A number written in digits ("$1.5 million", "0958") or a length of time ("three
    weeks"): a fact the claim states, where a number in words is often a count the answer
    makes ("describes two films")."""
    word: str = ""
    """The claim's word a ``replaced`` finding is about, as written."""
    check: str = ""
    """The name of the check that found it (:data:`.pipeline.CHECKS`)."""


def conflicting(findings: Sequence[Finding]) -> bool:
    """Whether one of the findings is a conflict."""
    return any(f.severity == "conflict" for f in findings)


def check_numbers(claim: str, evidence: str, contexts: str) -> list[Finding]:
    """Numbers of the claim that its evidence contradicts or no context states.

    The evidence (the passage closest to the claim) counting the same thing with another
    number is a conflict, even when some other context happens to state the claim's number:
    "30 days of paid time off" against "20 days paid time off" stays wrong beside a refund
    policy of 30 days. A number is bound to what it counts: "5 points for every 100 euro
    voucher" against "100 points for a 5 euro voucher" has both numbers, each counting the
    other's thing, and is a conflict. A number no context states is a gap. Times of day are
    :func:`check_times`'s. Where none of this finds a conflict, a claim that copies a
    context's words with two numbers exchanged is one, whatever each number counts, and so
    is one that puts a number where the contexts write another (:mod:`.exchanges`)."""
    found = _numbers_read(claim, evidence, contexts)
    if conflicting(found):
        return found
    moved = exchanged_numbers(claim, contexts) or misplaced_number(claim, contexts)
    return found if moved is None else [_exchanged_conflict(*moved), *found]


def _numbers_read(claim: str, evidence: str, contexts: str) -> list[Finding]:
    """The findings on the claim's amounts, read against what states them (see
    :func:`check_numbers`)."""
    if compared_with(claim, evidence):
        return []  # the numbers are another thing's: this one's only by working them out
    clauses = _numbered_clauses(claim)
    if _repeats_a_number(clauses):
        return _each_clause(clauses, evidence, contexts)
    found = _amount_findings(claim, evidence, contexts) + _unstated_versions(claim, contexts)
    return found or _each_clause(clauses, evidence, contexts)


def _exchanged_conflict(mine: str, theirs: str) -> Finding:
    return Finding("numbers", "conflict", f"claims {mine}; the context says {theirs}", True)


def _numbered_clauses(claim: str) -> list[str]:
    """The claim's coordinated clauses where it has two or more and each has a number; none
    otherwise."""
    clauses = _coordinated(claim)
    return clauses if len(clauses) > 1 and all(quantities(c) for c in clauses) else []


def _each_clause(clauses: list[str], evidence: str, contexts: str) -> list[Finding]:
    """The findings on each of the claim's clauses of numbers read alone
    (:func:`_numbered_clauses`): a number the claim states twice is read in each of its clauses
    ("$500 on the Standard plan and $500 on the Plus plan"), and a claim whose whole finds
    nothing is read clause by clause ("The introductory price is $15 a month for six months,
    then $9 a month." against "... $9 a month for six months, then $15 a month.": read whole,
    ", then" gives each of its numbers to the later clause)."""
    return [f for clause in clauses for f in check_numbers(clause, evidence, contexts)]


def _repeats_a_number(clauses: list[str]) -> bool:
    """Whether two of the claim's clauses state one number as written."""
    written = [q.text for clause in clauses for q in set(quantities(clause))]
    return len(written) > len(set(written))


def _amount_findings(claim: str, evidence: str, contexts: str) -> list[Finding]:
    """The findings on each amount of the claim (:func:`_number_finding`)."""
    seen = _Numbers(claim, evidence, quantities(evidence), quantities(contexts), contexts)
    found = (_number_finding(q, seen) for q in _claimed_numbers(claim, _years(contexts)))
    return [finding for finding in found if finding is not None]


def _unstated_versions(claim: str, contexts: str) -> list[Finding]:
    """Gaps for the claim's numbers of three parts or more ("version 8.4.0", "10.0.2"), which
    no amount reads, that no context writes."""
    written = set(_VERSION.findall(contexts))
    return [
        Finding("numbers", "gap", f"claims {v}; the contexts state no such number", True)
        for v in dict.fromkeys(_VERSION.findall(claim))
        if v not in written
    ]


_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){2,}(?![\w.]*\d)", re.IGNORECASE)


def _years(contexts: str) -> set[int]:
    """The years the contexts' dates give."""
    return {d.year for d in dates(contexts) if d.year is not None}


def _claimed_numbers(claim: str, years: set[int]) -> list[Quantity]:
    """The claim's numbers but its times of day and a year a context dates ("(1494-1547):
    King of France" against "12 September 1494")."""
    return [
        q
        for q in quantities(claim, time_spans(claim))
        if not (re.fullmatch(r"\d{4}", q.text.split()[0]) and q.value in years)
    ]


@dataclass(frozen=True)
class _Numbers:
    """What a claim's number is read against: the claim, its evidence (the passage closest
    to it), the evidence's numbers and those of every context."""

    claim: str
    evidence: str
    near: list[Quantity]
    stated: list[Quantity]
    contexts: str = ""


def _number_finding(q: Quantity, seen: _Numbers) -> Finding | None:
    """The finding on one number of the claim: a conflict where the evidence counts its
    thing with another number (or gives it per another unit), a gap where no context states
    it, else none."""
    if _witnessed(q, seen):
        return None
    bounded = _bounded_finding(q, seen)
    if bounded is not None:
        return bounded or None
    rough = _approximate(q, seen.claim)
    # A rate first: "$10 per day" against "$10 per hour, up to $40 per day".
    return _rate_finding(q, seen, rough) or _value_finding(q, seen, rough)


def _witnessed(q: Quantity, seen: _Numbers) -> bool:
    """Whether one clause of the evidence says each clause of the claim that states its
    number: every word of it and every number of it, each with the same bound ("Bike rental
    costs 8 euros per hour or 30 euros per day." against itself: 8 euros is the hour's,
    whatever the day's clause says). No other clause can then bind the number otherwise; a
    number the claim states twice is read in both of its clauses ("$500 on the Standard plan
    and $500 on the Plus plan")."""
    theirs = [c for sentence in split_sentences(seen.evidence) for c in _coordinated(sentence)]
    mine = _clauses_of(q, seen.claim)
    return all(any(_says_whole(clause, their) for their in theirs) for clause in mine)


def _clauses_of(q: Quantity, claim: str) -> list[str]:
    """The coordinated clauses of the claim that state ``q`` (the claim where none does)."""
    stating = [c for c in _coordinated(claim) if any(s.text == q.text for s in quantities(c))]
    return stating or [claim]


def _says_whole(mine: str, theirs: str) -> bool:
    """Whether the clause ``theirs`` holds every word and every number of ``mine``, each
    number with no other words next to it (:func:`_as_itself`); a number in words is its
    number ("eight euros" is "8 euros")."""
    words = content_words(mine) - NUMBER_STEMS
    return words <= content_words(theirs) and _all_stated(quantities(mine), mine, theirs)


def _all_stated(numbers: list[Quantity], mine: str, theirs: str) -> bool:
    """Whether the clause ``theirs`` states each of ``numbers`` (of the claim's clause
    ``mine``) as itself: the same amount of the same thing, with the same bound before it and
    given per the same unit."""
    stated = quantities(theirs)
    return all(any(_as_itself(q, mine, s, theirs) for s in stated) for q in numbers)


def _as_itself(q: Quantity, mine: str, s: Quantity, theirs: str) -> bool:
    """Whether ``s`` of ``theirs`` states ``q`` of ``mine`` as itself (:func:`_all_stated`)."""
    same_thing = q.unit == s.unit or _converted(q, s) is not None
    said = (_side(q, mine), _rate(q, mine)) == (_side(s, theirs), _rate(s, theirs))
    apart = adds_a_neighbour(neighbours(q, mine), neighbours(s, theirs))
    return same_thing and said and not apart and _same_amount(q, s)


def _value_finding(q: Quantity, seen: _Numbers, rough: bool) -> Finding | None:
    """The finding on a number the claim gives as a value: a conflict with the number of
    its thing that its passage's words, sentence or clause bind to it, but a gap where the
    other number is no rival value of it (:func:`_no_rival_value`)."""
    found = _bound_finding(q, seen, rough) or _near_finding(q, seen, rough)
    if found is not None and found.severity == "conflict" and _no_rival_value(q, seen):
        return _number_gap(q)
    return found


def _bound_finding(q: Quantity, seen: _Numbers, rough: bool) -> Finding | None:
    """A conflict with the number of the claim's thing that its passage's words, sentence,
    clause or the word next to it bind to it."""
    return (
        _named_finding(q, seen, rough)
        or _sentence_finding(q, seen, rough)
        or _neighbour_finding(q, seen, rough)
    )


def _no_rival_value(q: Quantity, seen: _Numbers) -> bool:
    """Whether another number of the evidence is no rival value of the claim's, whatever it
    counts: the claim gives a number it works out (:func:`_worked_out`), the claim denies ("A
    3-day delay won't be reported" against "a payment one day late will not be reported":
    both may hold), or the evidence gives the claim's thing as a bound the claim's number lies
    within ("your $15,000 claim" against "claims over $10,000", "a 60-day trip" against
    "trips longer than 45 days"): the claim applies a rule to a case, which only reading both
    settles."""
    if negation_cues(seen.claim) or _worked_out(q, seen):
        return True
    stated = _of_unit(q, seen.near, seen.evidence)
    return any(_within(side, s, q) for s in stated for side in _sides(s, seen.evidence))


def _worked_out(q: Quantity, seen: _Numbers) -> bool:
    """Whether the claim's number is worked out from the evidence's: a total that two numbers
    or more of it add up to ("15 rooms in total" against "10 double rooms and 5 suites"), or
    one of them divided or multiplied by another the claim states too ("three instalments of
    £400" against "£1,200, which can be paid in 3 instalments"). The judge does not check
    that the sum or the product is of one thing."""
    theirs = [s.value for s in seen.near if not s.money or q.money]
    sums = _running_sums(theirs) if _TOTAL.search(seen.claim) else []
    worked = [*sums, *_products(q, seen), *_rate_times_count(q, seen)]
    return any(same_value(q.value, v) for v in worked)


def _rate_times_count(q: Quantity, seen: _Numbers) -> list[float]:
    """Where the claim gives its number per a unit it counts too ("$150 a month for 6
    months", "three instalments of £400"), the evidence's numbers divided by that count: the
    whole the rate is worked out from ("$900 over 6 months")."""
    counts = _counts_of(_per_unit(q, seen.claim), seen.claim)
    return [s.value / n for s in seen.near for n in counts]


def _counts_of(unit: str, claim: str) -> list[float]:
    """The claim's numbers of ``unit`` but 0 (none for no unit)."""
    return [c.value for c in quantities(claim) if unit and c.unit == unit and c.value]


def _per_unit(q: Quantity, claim: str) -> str:
    """The unit ``q`` is given per in the claim: "a month" after it, or "of" before it after a
    count ("three instalments of £400"); "" for none."""
    at = claim.find(q.text)
    after = _PER.match(claim, at + len(q.text)) if at >= 0 else None
    if after is not None:
        return unit_of(after.group(1))
    before = _COUNT_OF.search(claim[: max(at, 0)])
    return unit_of(before.group(1)) if before is not None else ""


_PER = re.compile(r"\s+(?:a|an|per|each|every)\s+([a-z]+)", re.IGNORECASE)
_COUNT_OF = re.compile(r"([a-z]+)\s+of\s+$", re.IGNORECASE)


def _products(q: Quantity, seen: _Numbers) -> list[float]:
    """The numbers the claim states beside ``q`` that the evidence states too, each divided
    and multiplied by each other one: the claim shows its working ("£1,200, payable in three
    instalments of £400")."""
    theirs = [s.value for s in seen.near]
    mine = {c.value for c in quantities(seen.claim)} - {q.value, 0.0, 1.0}
    shown = mine.intersection(theirs)  # the claim shows its working: both numbers
    return [worked for a in shown for worked in _by_each(a, shown - {a})]


def _by_each(value: float, factors: set[float]) -> list[float]:
    """``value`` divided and multiplied by each of ``factors``."""
    return [value / b for b in factors] + [value * b for b in factors]


def _running_sums(values: list[float]) -> list[float]:
    """The sums of two or more neighbouring values."""
    return [sum(values[a:b]) for a in range(len(values)) for b in range(a + 2, len(values) + 1)]


_TOTAL = re.compile(rf"\b(?:{any_of(table('numbers').phrases('totals'))})\b", re.IGNORECASE)


def ordered_words(text: str) -> list[str]:
    """The content words of ``text`` in order, a word said again each time."""
    return [w for t in tokens(text) for w in sorted(content_words(t))]


def compared_with(claim: str, sentence: str) -> bool:
    """Whether the claim is about a thing the sentence names only as what it compares
    another with ("The Rome team has 40 people." against "Our Madrid team has grown to 40
    people, twice the size of the Rome team."): its numbers are the other thing's, and the
    compared thing's only by working them out."""
    found = COMPARING.search(sentence)
    ordered = ordered_words(claim)
    if found is None or not ordered:
        return False
    before, after = sentence[: found.start()], sentence[found.end() :]
    return ordered[0] in content_words(after) and ordered[0] not in content_words(before)


COMPARING = re.compile(
    r"\b(?:twice|half|double|triple|\w+ times)\s+(?:the\s+\w+\s+of|as\s+\w+\s+as)\b",
    re.IGNORECASE,
)
"""A phrase that compares one thing with another by a factor ("twice the size of", "three
times as large as", "half the price of")."""


def _bounded_finding(q: Quantity, seen: _Numbers) -> Finding | Literal[False] | None:
    """For a number the claim gives as a bound ("more than half", "under 1.5 kg"), against
    the evidence's plain numbers of its thing: ``False`` (no finding) where one is within the
    bound, a conflict where none is; ``None`` (read it as a value) for a number given as no
    bound, or where the evidence states none plain ("Orders over 50 euros"), but a gap where
    it gives the same number only as a bound of the other side (:func:`_opposite_bound`)."""
    found = _claims_bound(q, seen)
    if found is None:
        return _opposite_bound(q, seen)
    side, words, plain = found
    stated = _stated_bound(q, (side, words), seen)
    if stated is not None:
        return stated
    if _any_within(side, q, plain):
        return False
    return _number_conflict(q, _closest_in_value(q, plain).text, f"{words} {q.text}")


def _closest_in_value(q: Quantity, amounts: list[Quantity]) -> Quantity:
    """The first of ``amounts`` closest in value to ``q`` (a range's end it reaches past:
    "over 32 kg" against "between 23 and 32 kg": 32 kg)."""
    return min(amounts, key=lambda s: abs(s.value - q.value))


def _stated_bound(
    q: Quantity, bound: tuple[str, str], seen: _Numbers
) -> Finding | Literal[False] | None:
    """The claim's bound read against the evidence's bounds of its thing on the same side,
    before its plain amounts ("Orders over $50 ship free." against "Orders over $50 ship free;
    smaller orders pay $4.99."; "below 199.9%" against "below 99.95%, ... a 10% credit"):
    ``False`` where one is the claim's, a gap where the claim's lies within one
    (a rule applied to a narrower case: "over $60" against "over $50"), a conflict where
    the claim's reaches past all of them ("over $40"); ``None`` where the evidence bounds
    none of its thing on that side."""
    theirs = _bounded_on(bound[0], q, seen)
    if any(same_value(s.value, q.value) for s, _ in theirs):
        return False
    if any(_within(bound[0], s, q) for s, _ in theirs):
        return _number_gap(q)
    if not theirs:
        return None
    return _number_conflict(q, f"{theirs[0][1]} {theirs[0][0].text}", f"{bound[1]} {q.text}")


def _bounded_on(side: str, q: Quantity, seen: _Numbers) -> list[tuple[Quantity, str]]:
    """The evidence's numbers of the claim's thing that it bounds on ``side``, each with the
    words of its bound."""
    stated = [(s, _bounds_of(s, seen.evidence)) for s in _of_unit(q, seen.near, seen.evidence)]
    return [(s, words) for s, bounds in stated for their, words in bounds if their == side]


def _opposite_bound(q: Quantity, seen: _Numbers) -> Finding | None:
    """A gap where the claim gives its number as a bound and the evidence gives the same
    number of its thing only as bounds that no amount within the claim's meets ("Expenses
    over $500" against "Expenses up to $500 are approved by your line manager"): the context
    says nothing of the claim's amounts, or says them otherwise."""
    bound = _bound(q, seen.claim)
    if bound is None:
        return None
    theirs = _equal_bounds(q, seen)  # none for a number without a unit
    if not theirs or not all(_apart(bound[0], side) for side, _ in theirs):
        return None
    message = f"claims {bound[1]} {q.text}; the context says {theirs[0][1]} {q.text}"
    return Finding("numbers", "gap", message, True)


def _equal_bounds(q: Quantity, seen: _Numbers) -> list[tuple[str, str]]:
    """The bounds the evidence puts before each writing of its numbers equal to ``q``, of
    its thing."""
    equal = [s for s in _of_unit(q, seen.near, seen.evidence) if same_value(s.value, q.value)]
    return [b for s in equal for b in _bounds_of(s, seen.evidence)]


def _bounds_of(q: Quantity, text: str) -> list[tuple[str, str]]:
    """(the side, the words) of each bound ``text`` puts before a writing of the number
    ``q``, ``("", "")`` where a writing of it has none."""
    return [
        _bound_before(text[: m.start()]) or ("", "") for m in re.finditer(re.escape(q.text), text)
    ]


def _apart(mine: str, theirs: str) -> bool:
    """Whether no amount lies on both sides of one number: above it and at most it, at
    least it and below it, above and below it."""
    return frozenset((mine, theirs)) in _APART


_APART = frozenset(
    frozenset(pair) for pair in (("above", "at_most"), ("at_least", "below"), ("above", "below"))
)


def _claims_bound(q: Quantity, seen: _Numbers) -> tuple[str, str, list[Quantity]] | None:
    """(the side, the words of the bound the claim gives its number, the evidence's plain
    numbers of its thing); ``None`` where there is no bound or no plain number to read it by."""
    bound = _bound(q, seen.claim) if q.unit else None
    plain = _plain_numbers(q, seen) if bound else []
    if bound is None or not plain:
        return None
    side = _side_of(bound, q, seen)
    return None if side is None else (side, bound[1], plain)


def _side_of(bound: tuple[str, str], q: Quantity, seen: _Numbers) -> str | None:
    """The side of the claim's bound: the most for "up to 6 devices", which only the same
    number states; ``None`` where the evidence writes that most as a bound too (read as a
    value: whose most it is, the clause says)."""
    if bound[1] not in _MAXIMUM:
        return bound[0]
    return None if _any_within(_MOST, q, _of_unit(q, seen.near, seen.evidence)) else _MOST


def _plain_numbers(q: Quantity, seen: _Numbers) -> list[Quantity]:
    """The evidence's numbers of the claim's number's thing that it gives as no bound."""
    return [s for s in _of_unit(q, seen.near, seen.evidence) if _bound(s, seen.evidence) is None]


def _any_within(side: str, claimed: Quantity, stated: list[Quantity]) -> bool:
    """Whether one of the stated amounts lies on the ``side`` of the claim's bound."""
    return any(_within(side, claimed, s) for s in stated)


def _bound(q: Quantity, text: str) -> tuple[str, str] | None:
    """(the side, the words) of the bound ``text`` puts right before the number ``q`` ("more
    than": above), ``None`` for none."""
    at = text.find(q.text)
    return _bound_before(text[:at] if at > 0 else "")


def _sides(q: Quantity, text: str) -> list[str]:
    """The side of each bound ``text`` puts before any of its writings of the number ``q``
    ("up to 45 days ... longer than 45 days ... the first 45 days": at most, above)."""
    return [side for side, _ in _bounds_of(q, text) if side]


def _bound_before(before: str) -> tuple[str, str] | None:
    """(the side, the words) of the bound that ends ``before``, ``None`` for none."""
    before = before.lower()
    ending = [
        (side, w)
        for side, words in _BOUNDS.items()
        for w in words
        if re.search(rf"\b{re.escape(w)}\s*$", before)
    ]
    # The longest: "never more than" is at most, not "more than"'s above.
    return max(ending, key=lambda found: len(found[1]), default=None)


def _within(side: str, claimed: Quantity, stated: Quantity) -> bool:
    """Whether the stated amount lies on the ``side`` of the claim's bound."""
    mine, theirs = _comparable(claimed, stated)
    return {
        "above": theirs > mine,
        "at_least": theirs >= mine,
        "below": theirs < mine,
        "at_most": theirs <= mine,
        _MOST: same_value(theirs, mine),
    }[side]


def _comparable(claimed: Quantity, stated: Quantity) -> tuple[float, float]:
    """The two amounts in one unit: their dimension's base unit, else as written."""
    a, b = claimed.measure(), stated.measure()
    if a is not None and b is not None and a.dimension == b.dimension:
        return a.value, b.value
    return claimed.value, stated.value


_BOUNDS = {
    side: table("numbers").phrases(side) for side in ("above", "at_least", "below", "at_most")
}
_MAXIMUM = frozenset(table("numbers").phrases("maximum"))
_MOST = "most"
"""The side of a claim's "up to 6 devices": the most, which the context's same number states."""


def _named_finding(q: Quantity, seen: _Numbers, rough: bool) -> Finding | None:
    """A conflict where the claim has words its passage lacks, and the sentences of the
    contexts that hold every word of the claim count its thing with another number ("The
    night ferry takes 40 minutes." against "The morning ferry takes 40 minutes. The night
    ferry stops at two islands and takes 90 minutes."; "The Business plan costs $15 per
    month." against the Standard plan's sentence and the Business plan's)."""
    words = content_words(seen.claim)
    if words <= content_words(seen.evidence):
        return None
    own = [s for s in split_sentences(seen.contexts) if words <= content_words(s)]
    rival = _own_rival(q, own, rough)
    return None if rival is None else _number_conflict(q, rival.text)


def _own_rival(q: Quantity, own: list[str], rough: bool) -> Quantity | None:
    """The number of the claim's unit the sentences ``own`` give, where none gives the
    claim's."""
    stated = [s for sentence in own for s in _of_unit(q, quantities(sentence), sentence)]
    if not stated or any(_same_amount(q, s, rough) for s in stated):
        return None
    return stated[0]


def _neighbour_finding(q: Quantity, seen: _Numbers, rough: bool) -> Finding | None:
    """A conflict where a clause of the evidence states the claim's amount and another of its
    unit, and the word the claim writes next to its amount is the other's neighbour, not its
    own ("The phone stores 128 GB." against "The phone stores 64 GB, expandable to 128 GB";
    "a 20-year draw period" against "a 10-year draw period followed by a 20-year repayment
    period"). Within one clause nothing is left out, so the neighbour binds. Where the
    evidence's sentence closest to the claim states the claim's amount nowhere, and no context
    states it with its neighbours, the one amount of a clause of it with its neighbours binds
    it as well ("recommended from age 12" against "recommended from age 6. Children under 12
    ..."). An amount's neighbours are words: "spent" is the neighbour of "£2,956,737"."""
    mine = neighbours(q, seen.claim)
    sentences = split_sentences(seen.evidence)
    closest = _closest_by_words(seen.claim, sentences)
    for sentence in sentences:
        nowhere = (
            sentence == closest
            and _states_nowhere(q, sentence, rough)
            and not _binds_elsewhere(q, mine, seen.contexts, rough)
        )
        for clause in _coordinated(sentence):
            rival = _neighbours_rival(q, mine, clause, rough, nowhere)
            if _unnamed(q, seen.claim, clause, rough, rival):
                named = _named_rival(q, mine, seen, cast("Quantity", rival), rough)
                return _number_conflict(q, named.text)
    return None


def _named_rival(
    q: Quantity, mine: tuple[str, str], seen: _Numbers, rival: Quantity, rough: bool
) -> Quantity:
    """The amount the finding names: of the passage's other amounts of the claim's thing with
    its neighbours, the one whose clause shares the most words with the claim ("the Harbour
    Trust ... raised $1,245,300" for "The Harbour Trust raised $1,312,050", not the rowing
    club's "raised $86,400"), else ``rival``."""
    words = content_words(seen.claim)
    clauses = [c for sentence in split_sentences(seen.evidence) for c in _coordinated(sentence)]
    alike = [
        (len(words & content_words(clause)), s)
        for clause in clauses
        for s in _others_alike(q, mine, clause, rough)
    ]
    return max(alike, key=lambda shared: shared[0], default=(0, rival))[1]


def _others_alike(q: Quantity, mine: tuple[str, str], clause: str, rough: bool) -> list[Quantity]:
    """The clause's other amounts of the claim's thing with the claim's amount's neighbours."""
    _, others = _equal_and_other(q, clause, rough)
    return [s for s in others if neighboured_alike(mine, neighbours(s, clause))]


def _binds_elsewhere(q: Quantity, mine: tuple[str, str], contexts: str, rough: bool) -> bool:
    """Whether the claim's amount is not bound by the closest passage alone: an amount of
    money ("the $480-per-semester student services fee" is no "$27,600 for out-of-state
    students"), or one a context states with its neighbours (:func:`_stated_alike`)."""
    return q.money or _stated_alike(q, mine, contexts, rough)


def _unnamed(q: Quantity, claim: str, clause: str, rough: bool, rival: Quantity | None) -> bool:
    """Whether there is a rival whose binding no name of the claim undoes."""
    return rival is not None and not _named_alike(q, claim, clause, rough)


def _named_alike(q: Quantity, claim: str, clause: str, rough: bool) -> bool:
    """Whether a name the claim writes before its amount (since the amount before it) is
    before the clause's equal amount too: "the Tories spent £2,980,815" says "the Tories'
    campaign expenditure was £2,980,815" in other words, whatever "spent" is next to."""
    names = _names_before(q, claim)
    equal = [s for s in quantities(clause) if _same_amount(q, s, rough)]
    return any(names & _names_before(s, clause, lowered=True) for s in equal)


def _names_before(q: Quantity, text: str, lowered: bool = False) -> set[str]:
    """The words of ``text`` between the amount before ``q`` (or its start) and ``q`` that
    are written with a capital (all of them, in lower case, with ``lowered``)."""
    at = text.find(q.text)
    start = max((text.find(s.text) + len(s.text) for s in quantities(text[:at])), default=0)
    words = re.findall(r"[^\W\d_][\w'’]*", text[start:at])
    named = words if lowered else [w for w in words if w[0].isupper()]
    return {w.lower().rstrip("'’s") for w in named} - STOPWORDS


def _states_nowhere(q: Quantity, sentence: str, rough: bool) -> bool:
    return not any(_same_amount(q, s, rough) for s in _of_its_thing(q, sentence))


def _stated_alike(q: Quantity, mine: tuple[str, str], contexts: str, rough: bool) -> bool:
    """Whether a context states the claim's amount with its neighbours ("The Green Party
    spent £534,249." for "the Green Party spent £534,249"): then no other amount of the
    passage binds it alone."""
    return any(
        _same_amount(q, s, rough) and neighboured_alike(mine, neighbours(s, sentence))
        for sentence in split_sentences(contexts)
        for s in _of_its_thing(q, sentence)
    )


def _neighbours_rival(
    q: Quantity, mine: tuple[str, str], clause: str, rough: bool, nowhere: bool
) -> Quantity | None:
    """The amount of ``clause`` that has a neighbour of the claim's amount (``mine``) on the
    same side and none other on the other side, where the clause's equal amount has neither
    or, where the evidence states the claim's amount ``nowhere``, where it is the one such
    amount; ``None`` where the clause states no other amount."""
    equal, others = _equal_and_other(q, clause, rough)
    if not (others and (equal or nowhere)) or _AMOUNTS_LISTED.search(clause):
        return None  # "at 80% and 100% of your allowance": the words are both amounts
    if not _all_neighboured_otherwise(mine, equal, clause):
        return None  # the claim's own words next to it
    return _first_neighboured_alike(mine, others, clause, alone=not equal)


def _first_neighboured_alike(
    mine: tuple[str, str], others: list[Quantity], clause: str, alone: bool = False
) -> Quantity | None:
    """The first of ``others`` with the claim's amount's neighbours (:func:`neighboured_alike`);
    with ``alone``, the only one, else none."""
    alike = [s for s in others if neighboured_alike(mine, neighbours(s, clause))]
    return alike[0] if alike and not (alone and len(alike) > 1) else None


def _equal_and_other(
    q: Quantity, clause: str, rough: bool
) -> tuple[list[Quantity], list[Quantity]]:
    """The clause's amounts of the claim's thing (bare numbers for a bare number): those
    equal to the claim's, and the others."""
    stated = _of_its_thing(q, clause)
    equal = [s for s in stated if _same_amount(q, s, rough)]
    return equal, [s for s in stated if s not in equal]


def _of_its_thing(q: Quantity, clause: str) -> list[Quantity]:
    """The clause's amounts of the claim's thing, or its bare numbers for a bare number."""
    found = quantities(clause)
    return _of_unit(q, found, clause) if q.unit else [s for s in found if not s.unit]


def _all_neighboured_otherwise(mine: tuple[str, str], equal: list[Quantity], clause: str) -> bool:
    """Whether each of the clause's amounts equal to the claim's has other words next to it
    (:func:`neighboured_otherwise`)."""
    return all(neighboured_otherwise(mine, neighbours(s, clause)) for s in equal)


# Two amounts side by side, one word at most after the first: "$10, $20 and $30", "at 80%
# and 100% of", "between $70k and $85k", "5 days or 10 days"; a comma before three digits
# is a number's own ("£2,956,737").
_AMOUNTS_LISTED = re.compile(
    rf"\d[\d.,%]*\s*(?:[A-Za-z]+\s*)?(?:,(?!\d{{3}}(?!\d))|\band\b|\bor\b|\bto\b|[-–])"
    rf"\s*[{CURRENCY_SIGNS}]?\d",
    re.IGNORECASE,
)


def _near_finding(q: Quantity, seen: _Numbers, rough: bool) -> Finding | None:
    """None where the evidence states the claim's number counting its thing, else the
    finding on a number it does not (:func:`_unequal_number`)."""
    equal = [s for s in seen.near if _same_amount(q, s, rough)]
    if any(_counts_same(q, s, seen.claim, seen.evidence) for s in equal):
        return None
    return _unequal_number(q, seen, equal, rough)


def _sentence_finding(q: Quantity, seen: _Numbers, rough: bool) -> Finding | None:
    """A conflict with the number of the claim's thing in the sentence (or the clause) the
    claim's number is bound to (:func:`_sentence_rival`)."""
    own = _sentence_rival(q, seen.claim, seen.evidence, rough)
    return None if own is None else _number_conflict(q, _as_written(own[0], q.unit, own[1]))


def _rate_finding(q: Quantity, seen: _Numbers, rough: bool) -> Finding | None:
    """A conflict where the claim's number is a rate ("$10 per day") that the evidence gives
    per another unit ("$10 per hour, up to $40 per day"): with the evidence's number per the
    claim's unit where it has one, else with its equal number per the other."""
    mine = _rate(q, seen.claim)
    said = _rate_said(q, mine, _rates(q, seen) if mine else [], rough)
    return _number_conflict(q, said, f"{q.text} per {mine}") if said else None


def _rates(q: Quantity, seen: _Numbers) -> list[tuple[Quantity, str]]:
    """The evidence's numbers of the claim's unit, each with what it is given per."""
    return [(s, _rate(s, seen.evidence)) for s in seen.near if s.unit == q.unit]


def _rate_said(q: Quantity, mine: str, theirs: list[tuple[Quantity, str]], rough: bool) -> str:
    """What the evidence says in place of the claim's rate ("$40 per day"; "" where it
    gives the claim's number per the claim's unit, or no rate)."""
    equal = {r for s, r in theirs if _same_amount(q, s, rough)}
    if _rate_held(mine, equal, {r for _, r in theirs}):
        return ""
    said = _per(theirs, {mine}) + _per(theirs, equal - {""})
    return said[0] if said else ""


def _rate_held(mine: str, equal: set[str], given: set[str]) -> bool:
    """Whether the evidence gives the claim's amount per the claim's rate ``mine`` (its
    equal amounts are given per ``equal``, its amounts per ``given``): as said, or read
    into it: per nothing where another amount is given per the claim's unit ("$9,450 per
    year for residents and $27,600 for others": $27,600 a year), or per another thing the
    claim names in its own words, where neither is a unit ("$15 per user" against "$15 per
    seat"; "$10 per hour" against "$10 per day" stays a conflict)."""
    elided = "" in equal and mine in given
    return mine in equal or elided or _other_words_for(mine, equal, given)


def _other_words_for(mine: str, equal: set[str], given: set[str]) -> bool:
    """Whether the claim's rate, no unit and per nothing the evidence gives, may name in
    other words the thing its equal amount is given per, no unit either."""
    countable = {r for r in equal if r and dimension_of(r) is None}
    return bool(countable) and dimension_of(mine) is None and mine not in given


def _per(theirs: list[tuple[Quantity, str]], rates: set[str]) -> list[str]:
    """The numbers given per one of ``rates``, as said ("$40 per day")."""
    return [f"{s.text} per {r}" for s, r in theirs if r in rates]


# What makes a number a rate: "$10 per hour", "$40 a day", "3 tablets each morning".
_RATE = re.compile(r"^\W*(?:per|an?|each|every)\s+([^\W\d_]+)", re.IGNORECASE)


def _rate(q: Quantity, text: str) -> str:
    """What the number ``q`` of ``text`` is given per ("hour" for "$10 per hour"), its unit
    as :func:`.units.unit_of` names it ("" for no rate)."""
    at = text.find(q.text)
    found = _RATE.match(text[at + len(q.text) :]) if at >= 0 else None
    return (unit_of(found.group(1)) or found.group(1).lower()) if found else ""


def _unequal_number(
    q: Quantity, seen: _Numbers, equal: list[Quantity], rough: bool
) -> Finding | None:
    """The finding on a number the evidence states counting nothing of the claim's: none
    where the contexts state it after all, else a conflict with the evidence's number of
    the claim's thing (or the contexts'), else a gap."""
    rivals, rival = _near_rivals(q, seen, equal)
    elsewhere = [s for s in seen.stated if _same_amount(q, s, rough)]
    if _stated_after_all(q, rival, bool(equal), rivals, elsewhere):
        return None
    return _number_said(q, rival, seen)


def _near_rivals(
    q: Quantity, seen: _Numbers, equal: list[Quantity]
) -> tuple[list[Quantity], Quantity | None]:
    """(the evidence's numbers of the claim's thing, the rival of the claim's number: the
    first of them closest to it ("over 32 kg" against "between 23 and 32 kg": 32 kg), else the
    claim's number counting another length of time)."""
    rivals = _of_unit(q, seen.near, seen.evidence)
    if rivals:
        return rivals, _closest_in_value(q, rivals)
    # "two weeks" against "two business days": the same number, another amount
    same_number = [s for s in seen.near if same_value(q.value, s.value)]
    return rivals, _other_length(q, [*equal, *same_number], seen.evidence)


def _stated_after_all(
    q: Quantity,
    rival: Quantity | None,
    equal: bool,
    rivals: list[Quantity],
    elsewhere: list[Quantity],
) -> bool:
    """Whether the contexts state the claim's number after all: without a rival, the
    evidence or another context gives it; with one, a passage that lists several amounts of
    the claim's unit binds none of them to the claim's thing when another context states the
    claim's ("UKIP spent £2,956,737, the Tories £2,980,815 ..., the Green Party £534,249"
    against two sentences of amounts); a range's ends are one fact, no list ("1 to 5
    business days")."""
    if rival is None:
        return equal or bool(elsewhere)
    return _a_list(rivals) and any(s.unit == q.unit for s in elsewhere)


def _a_list(amounts: list[Quantity]) -> bool:
    """Whether ``amounts`` are several of a list: two values or more but for a range's
    start."""
    return len({s.value for s in amounts if not s.opens_range}) > 1


def _number_said(q: Quantity, rival: Quantity | None, seen: _Numbers) -> Finding:
    """A conflict with the rival, else with a context's number of the claim's unit, else a
    gap."""
    rival = rival or next((s for s in seen.stated if q.unit and s.unit == q.unit), None)
    if rival is not None:
        return _number_conflict(q, _as_written(rival, q.unit, seen.evidence))
    return _number_gap(q)


def _number_conflict(q: Quantity, says: str, claims: str = "") -> Finding:
    message = f"claims {claims or q.text}; the context says {says}"
    return Finding("numbers", "conflict", message)


def _number_gap(q: Quantity) -> Finding:
    message = f"claims {q.text}; the contexts state no such number"
    fact = q.text[0] not in _SPELLED or _dimension(q) == "duration"  # not "two films"
    return Finding("numbers", "gap", message, fact)


def _sentence_rival(
    claimed: Quantity, claim: str, evidence: str, rough: bool
) -> tuple[Quantity, str] | None:
    """(the number, its sentence) that counts the claim's thing with another number in the
    evidence's sentence closest to the claim's clause around that number, when that sentence
    has no number equal to it: "within 5 days of delivery" against "Items can be returned
    within 30 days of delivery. Refunds are issued within 5 business days.", where the
    window holds 5 days in its other sentence."""
    sentence = _bound_sentence(claimed, claim, evidence)
    clause = _bound_clause(claimed, claim, sentence or _alone(evidence))
    if clause is not None:
        return _clause_rival(claimed, claim, clause, rough)
    rival = _rival_in(claimed, claim, sentence, rough) if sentence else None
    return (rival, sentence) if rival is not None and sentence else None


def _alone(evidence: str) -> str | None:
    """The evidence where it is one sentence."""
    return evidence if len(split_sentences(evidence)) == 1 else None


def _clause_rival(
    claimed: Quantity, claim: str, clause: str, rough: bool
) -> tuple[Quantity, str] | None:
    """(the number, its clause) that counts the claim's thing with another number in the
    clause the claim's number is bound to."""
    rival = _rival_in(claimed, claim, clause, rough) or _elided(claimed, clause, rough)
    return (rival, clause) if rival is not None else None


def _elided(claimed: Quantity, clause: str, rough: bool) -> Quantity | None:
    """A bare number of a clause whose unit the clause before it gives ("Gold members 20"
    after "Silver members get 8 classes a month"), where the clause states none equal to the
    claim's."""
    stated = quantities(clause)
    if any(_same_amount(claimed, s, rough) for s in stated):
        return None
    return next((s for s in stated if not s.unit and not s.money), None)


def _bound_clause(claimed: Quantity, claim: str, sentence: str | None) -> str | None:
    """The clause of a sentence of coordinated clauses, each with a number of the claim's
    thing and words of its own, that the claim's clause around its number is about (see
    :func:`_about`; "Students get a 10% discount and seniors a 20% discount": "Students get
    a 20% discount" is read against its first clause)."""
    read = sentence or ""
    if _after_then(claim, read):
        return None  # "6.2% after two years" is the later clause's, whatever its words
    counted = _alternatives(_counting_clauses(claimed, read), read)
    return _named_clause(claimed, claim, counted) or _about(_around(claimed, claim), counted)


def _around(claimed: Quantity, claim: str) -> list[str]:
    """The words of the claim's own clause around its number: "Labour's 26p" of "UKIP's was
    68p, Labour's 26p, ..." names Labour, not UKIP."""
    around = next((c for c in _CLAUSES.split(claim) if claimed.text in c), claim)
    return _sequence(around) + _hyphenated(around)


def _named_clause(claimed: Quantity, claim: str, clauses: list[str]) -> str | None:
    """The clause the claim's numbers name (:func:`_numbered`, :func:`_elided_own`)."""
    return _numbered(claimed, claim, clauses) or _elided_own(claimed, claim, clauses)


def _elided_own(claimed: Quantity, claim: str, clauses: list[str]) -> str | None:
    """The one clause of numbers alone ("and above £50,270 at 40%") that states the claim's
    number: it says nothing else, so the claim's words are its first clause's, elided."""
    own = [c for c in clauses[1:] if not _worded(c) and _holds_one_of([claimed], claim, c)]
    return own[0] if len(own) == 1 else None


def _numbered(claimed: Quantity, claim: str, clauses: list[str]) -> str | None:
    """The one clause that holds the claim's numbers that name it ("The 16-inch model weighs
    1.4 kg." against "The 14-inch model weighs 1.4 kg and the 16-inch model weighs 2.1 kg.";
    "Income above £50,270 is taxed at 20%." against "... and above £50,270 at 40%"): a claim
    whose numbers are of two units or more names its clause by its first one, and says the
    later ones of it. Each is read with the bound before it ("over $1,000" is not "up to
    $1,000")."""
    naming = _naming_numbers(claimed, claim)
    holding = [i for i, c in enumerate(clauses) if _holds_one_of(naming, claim, c)]
    return clauses[holding[0]] if len(holding) == 1 and len(clauses) > 1 else None


def _naming_numbers(claimed: Quantity, claim: str) -> list[Quantity]:
    """The claim's numbers that name the clause ``claimed`` is read in: those before it of
    other units, or itself where it is the first, names a thing ("the 500 W model") and a
    number of another unit follows."""
    stated = quantities(claim)
    at = _index_of(claimed, stated)
    if at > 0:
        return _of_other_units(claimed, stated[:at])
    naming = bool(_of_other_units(claimed, stated[1:])) and _names_a_thing(claimed, claim)
    return [claimed] if naming else []


def _index_of(claimed: Quantity, stated: list[Quantity]) -> int:
    """Where ``claimed`` is among ``stated`` (0 when not there)."""
    return next((i for i, q in enumerate(stated) if q.text == claimed.text), 0)


def _of_other_units(claimed: Quantity, stated: list[Quantity]) -> list[Quantity]:
    """The numbers of ``stated`` with a unit other than the claim's number's."""
    return [q for q in stated if q.unit and q.unit != claimed.unit]


def _names_a_thing(q: Quantity, claim: str) -> bool:
    """Whether the amount is said of the noun right after it ("the 16-inch model", "the 500
    W model"; not "6.2% for two years")."""
    last = q.text.split()[-1]
    found = _FOLLOWED.match(claim, claim.find(last) + len(last))
    return found is not None and bool(content_words(found.group(1)))


_FOLLOWED = re.compile(r"[\s-]*([A-Za-z][\w'-]*)")


def _holds_one_of(numbers: list[Quantity], claim: str, clause: str) -> bool:
    """Whether the clause states one of the claim's ``numbers``, in its unit and with the
    same bound before it."""
    return any(
        s.unit == q.unit and same_value(s.value, q.value) and _side(q, claim) == _side(s, clause)
        for q in numbers
        for s in quantities(clause)
    )


def _side(q: Quantity, text: str) -> str:
    """The side of the bound ``text`` puts before ``q`` ("" for none)."""
    bound = _bound(q, text)
    return bound[0] if bound else ""


def _alternatives(clauses: list[str], sentence: str) -> list[str]:
    """Clauses parted by "or" say the first one's words before its number each ("The battery
    lasts up to 10 hours of video playback or 15 hours of web browsing": the battery lasts 15
    hours of web browsing): each later clause is given them, so that only its own words bind
    a claim to it."""
    stated = quantities(clauses[0]) if len(clauses) > 1 and _OR.search(sentence) else []
    if not stated:
        return clauses
    prefix = clauses[0][: max(0, clauses[0].find(stated[0].text))]
    return [clauses[0], *(f"{prefix}{c}" for c in clauses[1:])]


_OR = re.compile(r"\bor\b", re.IGNORECASE)


def _after_then(claim: str, sentence: str) -> bool:
    """Whether the sentence goes on with ", then" and the claim says what comes later."""
    return bool(_THEN.search(sentence)) and bool(_LATER.search(claim))


_THEN = re.compile(r",\s+then\s+", re.IGNORECASE)
_LATER = re.compile(r"\b(?:after|then|later|afterwards|thereafter|from|once)\b", re.IGNORECASE)


def _hyphenated(text: str) -> list[str]:
    """The words of ``text`` that two or three of its words joined by hyphens make ("out of
    state" is "out-of-state"), as :func:`content_words` reads them."""
    words = tokens(text)
    joined = {"-".join(words[i : i + n]) for n in (2, 3) for i in range(len(words) - n + 1)}
    return sorted(content_words(" ".join(joined)))


def _about(words: list[str], clauses: list[str]) -> str | None:
    """The clause ``words`` are about: the one later clause that alone holds one of them,
    where it leaves out what it shares with the first ("... and 20 minutes from the beach",
    "... and Gold members 20"; :func:`_later_about`), else the first clause where only it
    holds one of them ("Shipping to the US takes 3 days and shipping to Canada takes 7
    days"), else the one clause that holds the first of them that is no number ("Students get a 20%
    discount"); ``None`` otherwise ("the Green Party spent ..." against "UKIP spent ..., the
    Tories ... and Labour ...")."""
    alone = alone_holding(frozenset(words), list(map(content_words, clauses)))
    later = [i for i in alone if i > 0]
    if later:
        return _later_about(words, [clauses[i] for i in later])
    if alone:
        return clauses[0]
    return _holding_first(words, clauses)


def _later_about(words: list[str], later: list[str]) -> str | None:
    """The one later clause that alone holds one of ``words``, where it leaves out what it
    shares with the first (:func:`_leaves_out`); ``None`` otherwise."""
    return later[0] if len(later) == 1 and _leaves_out(words, later[0]) else None


def _leaves_out(words: list[str], clause: str) -> bool:
    """Whether a later clause is one that leaves out what it shares with the first: of its
    own words, as many or more are the claim's ``words`` as not ("and Gold members 20"; not
    "and the 2016 film Train to Busan, as man in suit 2, ..." for a claim of the actor's birth,
    whose one word in it, "Kim", is another's name)."""
    own = content_words(clause)
    return len(own & set(words)) >= len(own - set(words))


def _holding_first(words: list[str], clauses: list[str]) -> str | None:
    """The one clause that holds the first of ``words`` that is no number (``None`` where
    none or several do)."""
    first = next((w for w in words if w not in NUMBER_STEMS), None)
    holding = [c for c in clauses if first in content_words(c)]
    return holding[0] if len(holding) == 1 else None


def alone_holding(words: frozenset[str], held: list[frozenset[str]]) -> list[int]:
    """Which clauses, whose words are ``held``, hold one of ``words`` that no other clause
    holds."""
    others = [frozenset().union(*held[:i], *held[i + 1 :]) for i in range(len(held))]
    return [i for i, (h, o) in enumerate(zip(held, others, strict=True)) if words & h - o]


def _counting_clauses(claimed: Quantity, sentence: str) -> list[str]:
    """The coordinated clauses of a sentence where each counts the claim's thing with words
    of its own, the first with the claim's unit, or a bare number for a claim's bare number
    ("Call reception on 100 and the night manager on 400"); none otherwise."""
    clauses = _coordinated(sentence)
    counting = len(clauses) >= 2 and (not claimed.unit or _of_unit_in(claimed, clauses[0]))
    return clauses if counting and all(_counts(claimed, c) for c in clauses) else []


def _coordinated(sentence: str, holds: Callable[[str], Sequence[object]] = quantities) -> list[str]:
    """The coordinated clauses of a sentence, each with a number (or what ``holds`` finds: a
    date): a part without one belongs to the clause before it ("... and 60 in black and
    white" is one clause; "between $70k and $85k" one range)."""
    ranged = _RANGE.sub(r"\1 to", sentence)
    clauses: list[str] = []
    for part in (p for p in _COORDINATED.split(ranged) if p.strip()):
        if clauses and _continues(clauses[-1], part, holds):
            clauses[-1] += f" and {part}"
        else:
            clauses.append(part)
    return clauses


def _continues(before: str, part: str, holds: Callable[[str], Sequence[object]]) -> bool:
    """Whether ``part`` belongs to the clause ``before`` it: it has no number (or what
    ``holds`` finds) of its own, or it lists a second amount of the same thing."""
    return not holds(part) or _listed_amounts(before, part)


def _listed_amounts(before: str, part: str) -> bool:
    """Whether ``part`` opens with an amount right after the one ``before`` ends with: two
    amounts of one thing ("alerts at 80% and 100% of your allowance"), not a clause of its
    own ("10% off for students and 20% off for seniors")."""
    return bool(_ENDS_WITH_AMOUNT.search(before) and _OPENS_WITH_AMOUNT.match(part))


_ENDS_WITH_AMOUNT = re.compile(r"\d[%\d.,]*\s*$")
_OPENS_WITH_AMOUNT = re.compile(r"\s*[$€£]?\d")


def _counts(claimed: Quantity, clause: str) -> bool:
    """Whether a clause has words of its own and states one number of the claim's thing, or
    a bare number (whose unit the first clause gives: "... 8 classes a month and Gold members
    20"); not a clause of two amounts, which binds neither to its words. Its times of day
    are no numbers of it ("the fourth Tuesday from 7:00 to 10:00")."""
    stated = quantities(clause, time_spans(clause))
    counting = [s for s in stated if not s.unit or _same_unit(claimed, s, clause)]
    # Another amount names the clause as words do ("and above £50,270 at 40%").
    return (_worded(clause) or len(stated) > len(counting)) and len(counting) == 1


def _of_unit_in(claimed: Quantity, clause: str) -> bool:
    """Whether a clause states a number of the claim's thing."""
    return bool(_of_unit(claimed, quantities(clause), clause))


def _worded(clause: str) -> bool:
    """Whether a clause has a word besides its numbers and their units (not "$20" of a
    list of prices)."""
    return bool(content_words(clause) - NUMBER_STEMS - _units_of(clause))


def _closest_by_words(text: str, sentences: list[str]) -> str:
    """The first of ``sentences`` that shares most content words with ``text``."""
    words = content_words(text)
    return max(sentences, key=lambda t: len(words & content_words(t)))


def _bound_sentence(claimed: Quantity, claim: str, evidence: str) -> str | None:
    """The evidence's sentence closest to the claim's clause around its number, where the
    evidence has several and that one shares two words of the clause besides the number's."""
    sentences = split_sentences(evidence)
    if len(sentences) < 2:
        return None
    clause = next((c for c in _CLAUSES.split(claim) if claimed.text in c), claim)
    closest = _closest_by_words(clause, sentences)
    shared = content_words(clause) & content_words(closest)
    if len(shared - content_words(claimed.text)) < 2:
        return None  # too few words in common to bind the number to that sentence
    return closest


def _rival_in(claimed: Quantity, claim: str, sentence: str, rough: bool) -> Quantity | None:
    """The sentence's number of the claim's thing, where it has none equal to the claim's
    counting the same thing."""
    theirs = quantities(sentence)
    equal = [s for s in theirs if _same_amount(claimed, s, rough)]
    if any(_counts_same(claimed, s, claim, sentence) for s in equal):
        return None
    return next(iter(_of_unit(claimed, theirs, sentence)), None)


def _of_unit(claimed: Quantity, stated: list[Quantity], text: str) -> list[Quantity]:
    """The numbers of ``text`` (``stated``) that count what the claim's number counts."""
    return [s for s in stated if _same_unit(claimed, s, text)]


_ORDINAL = re.compile(r"\d(?:st|nd|rd|th)\b")
# A comma between digits groups them ("£2,980,815"): it parts no clauses.
_CLAUSES = re.compile(r",(?!\d)|(?<!\d),|[;:()]|\band\b|\bbut\b|\bwhile\b", re.IGNORECASE)
# Where a sentence's coordinated clauses part: "..., and ...", "... and ...", "...; ...".
_COORDINATED = re.compile(r";|,?\s+(?:and|or|while|whereas)\s+|,\s+then\s+", re.IGNORECASE)
"""What parts the coordinated clauses of a sentence: "Students get 10% and seniors 20%",
"10 hours of video playback or 15 hours of web browsing", "4.5% for two years, then 6.2%
variable"."""
_RANGE = re.compile(r"\b(between\s+[^\s,;]+)\s+and\b", re.IGNORECASE)


def _other_length(claimed: Quantity, equal: list[Quantity], evidence: str) -> Quantity | None:
    """The claim's number in the evidence counting another amount of the claim's dimension:
    "two weeks" against "two business days", "5 miles" against "5 km" (its unit, or one of
    the three words after its number, of that dimension), where the evidence states no amount
    equal to the claim's."""
    dimension = _dimension(claimed)
    if dimension is None or _ORDINAL.search(claimed.text):
        return None  # "the 1st day" is no length
    lengths = _lengths(equal, evidence, dimension)
    if any(_one_amount(claimed, length) for _, length in lengths):
        return None
    return lengths[0][0] if lengths else None


def _lengths(
    equal: list[Quantity], evidence: str, dimension: str
) -> list[tuple[Quantity, Quantity]]:
    """(each number that counts an amount of ``dimension``, as that amount), but ordinals."""
    lengths = []
    for stated in equal:
        unit = None if stated.unit == "ordinal" else _length_unit(stated, evidence, dimension)
        if unit is not None:
            lengths.append((stated, replace(stated, unit=unit, money=False)))
    return lengths


def _length_unit(stated: Quantity, evidence: str, dimension: str) -> str | None:
    """The unit of ``dimension`` a number counts: its own, or one of the three words after it
    ("2 business days")."""
    if _dimension(stated) == dimension:
        return stated.unit
    at = evidence.find(stated.text)
    if at < 0:
        return None
    following = list(itertools.takewhile(_no_number, tokens(evidence[at + len(stated.text) :])))
    return next((unit_of(w) for w in following[:3] if dimension_of(unit_of(w)) == dimension), None)


def _dimension(q: Quantity) -> str | None:
    """The dimension the quantity measures (a length, a mass, a length of time, ...)."""
    found = q.measure()
    return found.dimension if found else None


def _converted(claimed: Quantity, stated: Quantity) -> bool | None:
    """Whether two amounts in two units of one dimension are one amount (:func:`.units.
    same_measure`: "5 miles" and "8 km"), ``None`` for amounts of no such pair of units."""
    if claimed.money or stated.money:
        return None
    return same_measure(claimed.value, claimed.unit, stated.value, stated.unit)


def _one_amount(claimed: Quantity, stated: Quantity) -> bool:
    """Whether two amounts are one: converted between two units of one dimension, else by
    value."""
    converted = _converted(claimed, stated)
    return same_value(claimed.value, stated.value) if converted is None else converted


_SPELLED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# A number the claim gives as an approximation ("about $25") may round the context's
# ("$24.99"): within this share of it.
ROUNDING = 0.05
_APPROXIMATE = re.compile(
    rf"\b(?:{any_of(table('numbers').phrases('approximately'))})\s*$", re.IGNORECASE
)


def _approximate(claimed: Quantity, claim: str) -> bool:
    """Whether the claim gives the number as an approximation ("about 30 days")."""
    at = claim.find(claimed.text)
    return at > 0 and bool(_APPROXIMATE.search(claim[:at]))


def _same_amount(claimed: Quantity, stated: Quantity, rough: bool = False) -> bool:
    """Whether two quantities are the same amount: in two units of one dimension, the same
    amount converted ("two weeks" and "14 days", "5 miles" and "8 km", "2 liters" and "2000
    ml": :mod:`.units`); else the same value, or, for an approximate claim or a share ("a
    third of" and "33%"), a value within :data:`ROUNDING` of the stated one."""
    converted = _converted(claimed, stated)
    if converted is not None:
        return converted
    if same_value(claimed.value, stated.value):
        return True
    rough = rough or claimed.rough or stated.rough
    return rough and abs(claimed.value - stated.value) <= ROUNDING * abs(stated.value)


def _counts_same(claimed: Quantity, stated: Quantity, claim: str, evidence: str) -> bool:
    """Whether an equal number of the evidence counts what the claim's counts: no unit on
    either side, the same unit or another of its dimension ("5 miles" and "8 km"), or either's
    unit among the three words after the other's number ("30 calendar days" and "30 days"),
    or both ordinals ("the 1st" and "the first day")."""
    if _one_kind(claimed, stated):
        return True
    return _same_unit(claimed, stated, evidence) or _same_unit(stated, claimed, claim)


def _one_kind(claimed: Quantity, stated: Quantity) -> bool:
    """Whether two numbers count one kind of thing whatever their words: one has no unit,
    their units are of one dimension, or both are ordinals."""
    if not claimed.unit or not stated.unit or _converted(claimed, stated) is not None:
        return True
    return is_ordinal(claimed) and is_ordinal(stated)


def _same_unit(claimed: Quantity, stated: Quantity, evidence: str) -> bool:
    """Whether two quantities count the same thing: the same unit word, or the claim's unit
    among the three words after the stated number, before any other number ("1,600 German
    scientists")."""
    if not claimed.unit:
        return False
    if stated.unit == claimed.unit:
        return True
    at = evidence.find(stated.text)
    if at < 0:
        return False
    following = list(itertools.takewhile(_no_number, tokens(evidence[at + len(stated.text) :])))
    return claimed.unit in {unit_of(word) for word in following[:3]}


def stated_amount_words(claim: str, contexts: str) -> frozenset[str]:
    """The words of the claim's amounts that a context states in other words, in the claim's
    unit or another of its dimension ("miles" in "5 miles" where a context says "8 km",
    "percent" in "15 percent" beside "15%"): the number check reads them, and a context that
    writes an amount another way lacks no word of the claim."""
    stated = quantities(contexts)
    found = [
        q.text
        for q in quantities(claim, time_spans(claim))
        if q.unit and any(_written_otherwise(q, s) for s in stated)
    ]
    return frozenset().union(*(content_words(text) for text in found)) - content_words(contexts)


def _written_otherwise(claimed: Quantity, stated: Quantity) -> bool:
    """Whether ``stated`` is the claim's amount in its unit or another of its dimension."""
    one_unit = stated.unit == claimed.unit or _converted(claimed, stated) is not None
    return one_unit and _same_amount(claimed, stated)


def _no_number(word: str) -> bool:
    """Whether a word is no number: the words after a number up to the next one are its."""
    return not (word[0].isdigit() or word[0] in CURRENCY_SIGNS)


def _as_written(stated: Quantity, unit: str, evidence: str) -> str:
    """The stated number up to the claim's unit word ("1,600 German scientists")."""
    if _in_unit(stated, unit):
        return stated.text
    at = evidence.find(stated.text)
    if at < 0:
        return stated.text
    for match in re.finditer(r"[^\W\d_]+", evidence[at + len(stated.text) :]):
        if _counts_as(unit_of(match.group(0)), unit):
            return evidence[at : at + len(stated.text) + match.end()]
    return stated.text


def _in_unit(stated: Quantity, unit: str) -> bool:
    """Whether the stated number is written in ``unit`` or another of its dimension."""
    return stated.unit == unit or (not stated.money and _counts_as(stated.unit, unit))


def _counts_as(found: str, unit: str) -> bool:
    """Whether a word's unit counts what ``unit`` does: the same unit, or units of one
    dimension ("two business days" for "2 weeks", "km" for "miles")."""
    return found == unit or (
        dimension_of(found) is not None and dimension_of(found) == dimension_of(unit)
    )


def check_dates(claim: str, evidence: str, contexts: str, dated: str = "") -> list[Finding]:
    """Dates of the claim that no context date can be: "claims 1985; the context says
    8 December 1984". The rival date is the evidence's, else that of ``dated`` (the closest
    passage that gives a date: "The treaty was signed in 1994" beside the passage about
    where it was signed)."""
    found = _undated(claim, dates(contexts), dates(evidence) or dates(dated), contexts)
    found = found or _clause_dates(claim, evidence) or _closest_dated(claim, contexts)
    return found or _year_span(claim, evidence)


# A span of years: "from 1991 to 1995", "between 1991 and 1995", "1991-1995".
_YEAR_SPAN = re.compile(
    r"\b(?:(?:from|between)\s+)?(1\d{3}|20\d{2})\s*(?:to|and|until|till|through|[-\u2013])\s*"
    r"(1\d{3}|20\d{2})\b",
    re.IGNORECASE,
)


def _year_span(claim: str, evidence: str) -> list[Finding]:
    """A conflict where the claim's span of years shares one end with a span of the
    evidence's and not the other ("from 1994 to 1995" against "from 1991 to 1995", the 1994
    of which another clause gives: "defeated for re-election in 1994")."""
    theirs = [m.groups() for m in _YEAR_SPAN.finditer(evidence)]
    for span in (m.groups() for m in _YEAR_SPAN.finditer(claim)):
        other = _other_span(span, theirs)
        if other is not None:
            message = f"claims {span[0]} to {span[1]}; the context says {other[0]} to {other[1]}"
            return [Finding("dates", "conflict", message)]
    return []


def _other_span(span: tuple[str, ...], theirs: list[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The evidence's span of years that shares one end with the claim's ``span`` and not
    the other; none where the evidence gives the claim's span."""
    if span in theirs:
        return None
    return next((t for t in theirs if (t[0] == span[0]) != (t[1] == span[1])), None)


def _undated(claim: str, stated: list[Date], near: list[Date], contexts: str) -> list[Finding]:
    """The findings on the claim's dates that none of ``stated`` can be, and the conflicts of
    those that ``stated`` gives in another year or, in their year, another month
    (:func:`_another_day`)."""
    found = []
    for d in dates(claim):
        if not any(d.compatible(s) for s in stated):
            found.append(_date_finding(d, near))
        elif (other := _another_day(d, stated, claim, contexts)) is not None:
            found.append(_date_finding(d, [other]))
    return found


def _another_day(claimed: Date, stated: list[Date], claim: str, contexts: str) -> Date | None:
    """The date the contexts give in the claim's date's place: another year of its day
    (:func:`_day_of_another_year`), or another day of its year (:func:`_another_month`)."""
    return _day_of_another_year(claimed, stated) or _another_month(claimed, stated, claim, contexts)


def _another_month(claimed: Date, stated: list[Date], claim: str, contexts: str) -> Date | None:
    """The date of the claim's precision and year that the dated sentence closest to the claim
    gives (:func:`_closest_dated_sentences`): its day and year in another month
    (:func:`_month_swapped`), or, where no date of ``stated`` that names a month can be the
    claim's, which is only within a year of theirs ("from June 20 to May 5, 1963"
    against "from April 20 to May 5, 1963" beside "the 1963 Pan American Games": 20 June may
    be in 1963, and the sentence says 20 April)."""
    if claimed.month is None:
        return None
    near = [d for t in _closest_dated_sentences(claim, contexts) for d in dates(t)]
    swapped = _month_swapped(claimed, near, stated)
    if swapped is not None or _in_a_month(claimed, stated):
        return swapped
    return _nearest_alike(claimed, near)


def _month_swapped(claimed: Date, near: list[Date], stated: list[Date]) -> Date | None:
    """The date of ``near`` with the claim's day and year and another month, where no date of
    ``stated`` with a day can be the claim's: a month another sentence names alone ("begins
    filming in May") does not state "17 May 2017" beside "released on 17 March 2017"."""
    if claimed.day is None or claimed.year is None or _on_a_day(claimed, stated):
        return None
    return next((d for d in near if (d.day, d.year) == (claimed.day, claimed.year)), None)


def _on_a_day(claimed: Date, stated: list[Date]) -> bool:
    """Whether a date of ``stated`` that names a day can be the claim's date."""
    return _in_a_month(claimed, [s for s in stated if s.day is not None])


def _in_a_month(claimed: Date, stated: list[Date]) -> bool:
    """Whether a date of ``stated`` that names a month can be the claim's date."""
    return any(s.month and claimed.compatible(s) for s in stated)


def _nearest_alike(claimed: Date, near: list[Date]) -> Date | None:
    """The date of ``near`` alike the claim's (:func:`_alike`): one of its day first, then one
    written with a year where the claim's is, or without one where it is not."""
    alike = sorted((n for n in near if _alike(claimed, n)), key=lambda n: _unlike(claimed, n))
    return alike[0] if alike else None


def _unlike(claimed: Date, other: Date) -> tuple[bool, bool]:
    """How far ``other`` is from the claim's date: another day, a year given otherwise."""
    return other.day != claimed.day, (other.year is None) != (claimed.year is None)


def _alike(claimed: Date, other: Date) -> bool:
    """Whether ``other`` dates a day of a month if the claim does, or a month if it does, in a
    year the claim's may be."""
    precise = other.month is not None and (other.day is None) == (claimed.day is None)
    return precise and claimed.compatible(Date(other.year))


def _day_of_another_year(claimed: Date, stated: list[Date]) -> Date | None:
    """The date of ``stated`` with the claim's day and month and another year, where none
    gives the claim's day with its own year or none ("born September 14, 2002" against "born
    September 14, 1999" beside "Ice Age (2002)": the year alone is another fact's)."""
    same_day = _same_day(claimed, stated)
    if not same_day or any(s.year in (None, claimed.year) for s in same_day):
        return None
    return same_day[0]


def _same_day(claimed: Date, stated: list[Date]) -> list[Date]:
    """The dates of ``stated`` with the claim's day and month, where it gives a day and a
    year."""
    if claimed.day is None or claimed.year is None:
        return []
    return [s for s in stated if (s.month, s.day) == (claimed.month, claimed.day)]


_CLOSE = 0.6
"""The least share of a claim's words the sentence closest to it holds to bind its date."""
_SHARED_WORDS = 3
"""... and the fewest of them."""


def _closest_dated(claim: str, contexts: str) -> list[Finding]:
    """A conflict where the claim's one date is not that of the dated sentence of the
    contexts closest to it, which holds most of its words, and no sentence as close gives
    it ("The Strain premiered on FX on July 26, 2014." against "... premiered on FX on July
    13, 2014." beside a list of 2014's episodes): a date stated elsewhere is another event's."""
    claimed = dates(claim)
    closest = _closest_dated_sentences(claim, contexts) if len(claimed) == 1 else []
    if not closest or any(_gives(claimed[0], t) for t in closest):
        return []
    return [_date_finding(claimed[0], dates(closest[0]))]


def _closest_dated_sentences(claim: str, contexts: str) -> list[str]:
    """The dated sentences of the contexts that share most of the claim's words, where they
    hold enough of them (:data:`_CLOSE`, :data:`_SHARED_WORDS`)."""
    words = frozenset(content_words(claim) - _MONTH_WORDS)
    shared = _dated_shares(words, contexts)
    share = max(shared.values(), default=0)
    if share < max(_SHARED_WORDS, _CLOSE * len(words)):
        return []
    return [t for t, n in shared.items() if n == share]


def _dated_shares(words: frozenset[str], contexts: str) -> dict[str, int]:
    """How many of ``words`` each dated sentence of the contexts holds."""
    dated = (t for t in split_sentences(contexts) if dates(t))
    return {t: len(words & content_words(t)) for t in dated}


def _gives(claimed: Date, sentence: str) -> bool:
    """Whether a sentence gives a date that can be the claim's."""
    return any(claimed.compatible(d) for d in dates(sentence))


def _clause_dates(claim: str, evidence: str) -> list[Finding]:
    """A conflict where a sentence of the evidence gives the claim's date to another clause
    than the one the claim is about ("The London office opened in 2015." against "Our London
    office opened in 2010 and our Paris office in 2015."; see :func:`_about`). The names of
    months are the dates' own words, not what a clause is about. A claim of several dates
    is read clause by clause (:func:`_each_clause_dates`)."""
    if len(dates(claim)) > 1:
        return _each_clause_dates(claim, evidence)
    return _one_date_clause(claim, evidence) if dates(claim) else []


def _one_date_clause(claim: str, evidence: str) -> list[Finding]:
    """The conflict of a claim of one date with the dates of the clause it is about."""
    words = [w for w in _sequence(claim) if w not in _MONTH_WORDS]
    for sentence in split_sentences(evidence):
        found = _unbound_date(claim, _about(words, _dated_clauses(sentence)))
        if found is not None:
            return [found]
    return []


def _each_clause_dates(claim: str, evidence: str) -> list[Finding]:
    """The conflicts of each clause of a claim of several dates that gives one ("The north
    bridge was built in 1932 and the south bridge in 1887." against "... in 1887 and the south
    bridge in 1932."), each read as a claim of its own."""
    parts = [p for p in _dated_clauses(claim) if len(dates(p)) == 1]
    return [f for part in parts for f in _clause_dates(part, evidence)] if len(parts) > 1 else []


_MONTH_WORDS = frozenset(content_words(" ".join(MONTHS)))


def _unbound_date(claim: str, clause: str | None) -> Finding | None:
    """A conflict with the dates of the clause the claim is about where none can be one of
    the claim's."""
    theirs = dates(clause) if clause else []
    wrong = [d for d in dates(claim) if not _any_compatible(d, theirs)] if theirs else []
    return _date_finding(wrong[0], theirs) if wrong else None


def _any_compatible(claimed: Date, theirs: list[Date]) -> bool:
    """Whether one of the dates ``theirs`` may be the claim's."""
    return any(claimed.compatible(t) for t in theirs)


def _dated_clauses(sentence: str) -> list[str]:
    """The coordinated clauses of a sentence, each with a date (none for one clause); a
    clause a comma opens before a word in lower case is one too, where it has a date of its
    own ("He reached the final in 1988, won the doubles title in 1984, and ...")."""
    parts = [p for c in _coordinated(sentence, dates) for p in _comma_clauses(c)]
    clauses = [c for c in parts if dates(c)]
    return clauses if len(clauses) > 1 else []


def _comma_clauses(clause: str) -> list[str]:
    """A clause parted where a comma comes before a word in lower case, each part with a
    date of its own ("June 1, 1926" is one date); a part without one stays with the part
    before it."""
    parts: list[str] = []
    for part in _COMMA_CLAUSE.split(clause):
        if parts and not dates(part):
            parts[-1] += f", {part}"
        else:
            parts.append(part)
    return parts


_COMMA_CLAUSE = re.compile(r",\s+(?=[a-z])")


def _date_finding(claimed: Date, near: list[Date]) -> Finding:
    """A conflict with the first date near the claim, else a gap."""
    if near:
        message = f"claims {claimed.show()}; the context says {near[0].show()}"
        return Finding("dates", "conflict", message)
    return Finding("dates", "gap", f"claims {claimed.show()}; the contexts give no such date", True)


def check_negation(claim: str, evidence: str, covered: float, around: str = "") -> list[Finding]:
    """A claim that negates what its evidence affirms, or the other way round. Only when the
    evidence covers the claim's words (``covered``): otherwise they are different statements
    and a "not" on one side means nothing. A name with a denying word in it ("Never Shout
    Never") denies nothing, where either text, or the passage ``around`` the evidence, writes
    it inside a sentence. A claim about what the evidence excepts is read against the
    exception (:func:`_against_exception`)."""
    mine = negation_cues(claim, f"{evidence}\n{around}")
    theirs = negation_cues(evidence, f"{claim}\n{around}")
    swapped = opposite_terms(claim, evidence)
    excepted = _excepted(claim, evidence, swapped)
    if excepted is not None:
        return _against_exception(excepted, bool(mine or swapped or theirs))
    put_in = _put_in_negation(claim, evidence, (mine, theirs), covered)
    if put_in:
        return put_in
    if not _one_side_negates(claim, mine, theirs, swapped, covered):
        return _both_deny(claim, evidence, covered, (mine, theirs))
    return _negation_finding(claim, evidence, mine, theirs, swapped)


def _both_deny(
    claim: str, evidence: str, covered: float, cues: tuple[list[str], list[str]]
) -> list[Finding]:
    """Where both sides deny something (``cues``: each side's), the claim denying more
    (:func:`_denied_more`); nothing otherwise."""
    mine, theirs = cues
    return _denied_more(claim, evidence, covered, mine[0]) if mine and theirs else []


def _denied_more(claim: str, evidence: str, covered: float, cue: str) -> list[Finding]:
    """Where both sides deny something, a conflict where the claim also denies words the
    evidence states without denying them ("The first player is not automatically suspended
    without pay." against "The first player is automatically suspended without pay."; "SLA
    credits are not applied to the next invoice and cannot be redeemed for cash." against
    "... are applied to the next invoice and cannot be redeemed for cash.")."""
    extra = _denied_words(claim) - _denied_words(evidence)
    if covered < _COVERED or not extra or not extra <= said_words(evidence):
        return []
    message = f"the claim says \u201c{cue}\u201d; the context states it without negation"
    return [Finding("negation", "conflict", message)]


_COVERED = 0.6
"""The least share of the claim's words its evidence holds for a negation to count."""


def _denied_words(text: str) -> frozenset[str]:
    """The words each clause of ``text`` denies (:func:`.facts.negated_words`): a denial does
    not reach past a comma ("Regrettably not, lockers cannot be rented" denies no locker),
    nor past its few words: two denials are read alike ("shouldn't go in any of your
    household bins" denies what "must not be placed in any household bin" does)."""
    parts = re.split(r"[,;:]", text)
    return frozenset().union(*(negated_words(part, further=False) for part in parts))


def _negation_finding(
    claim: str, evidence: str, mine: list[str], theirs: list[str], swapped: list[tuple[str, str]]
) -> list[Finding]:
    """The conflict of a claim one side of which negates the other: an opposite word, or a
    negation (:func:`_negated`)."""
    if swapped and bool(mine) == bool(theirs):  # neither denies, or both deny alike
        said, stated = swapped[0]
        message = f"the claim says \u201c{said}\u201d; the context says \u201c{stated}\u201d"
        return [Finding("opposite", "conflict", message)]
    return _negated(claim, evidence, mine, theirs, bool(swapped))


def _excepted(claim: str, evidence: str, swapped: list[tuple[str, str]]) -> str | None:
    """What the evidence excepts that the claim is about, where the claim's other words are
    the evidence's or the opposites of its words (``swapped``: :func:`opposite_terms`) ("The
    gym is closed on public holidays." against "The gym is open every day except public
    holidays."), else ``None``: a claim that excepts it too ("The gym is not open every day
    except public holidays.") is read as a whole."""
    if _EXCEPT.search(claim):
        return None
    opposed = content_words(" ".join(word for word, _ in swapped))
    mine, theirs = content_words(claim), content_words(evidence)
    for m in _EXCEPT.finditer(evidence):
        if _about_exception(content_words(m.group(1)), mine, theirs | opposed):
            return m.group(0)
    return None


def _about_exception(
    excepted: frozenset[str], mine: frozenset[str], theirs: frozenset[str]
) -> bool:
    """Whether a claim of the words ``mine`` is about what the evidence excepts: it holds the
    exception's words, and ``theirs`` (the evidence's words and the claim's opposite words)
    its other words."""
    return bool(excepted) and excepted <= mine and mine - excepted <= theirs


def _against_exception(excepted: str, turned: bool) -> list[Finding]:
    """A claim about what the evidence excepts agrees where it turns the evidence's fact
    round (an opposite word or a negation: "closed on public holidays"), and conflicts where
    it states that fact of it ("open on public holidays")."""
    if turned:
        return []
    message = f"the claim states it of what the context excepts (\u201c{excepted}\u201d)"
    return [Finding("negation", "conflict", message)]


_EXCEPT = re.compile(r"\b(?:except|excluding|other than|apart from)\s+([^,.;:!?]+)", re.I)


def _one_side_negates(
    claim: str, mine: list[str], theirs: list[str], swapped: list[tuple[str, str]], covered: float
) -> bool:
    """Whether one side negates (or states the opposite of) what the other states, of a
    claim of two content words or numbers or more ("The walk is not 8 km each way.") whose
    words the evidence covers."""
    size = len(said_words(claim))
    if swapped:  # "open" against "closed" negates; "not open" against "closed" does not
        # The opposite words count as covered, of the content words coverage counts ("to a
        # minimum of $600" against "to a maximum of $600": the amount is no content word).
        covered = min(1.0, covered + len(swapped) / max(1, len(content_words(claim))))
    negative = bool(mine) != bool(swapped)
    return negative != bool(theirs) and covered >= _COVERED and size >= 2


def _negated(
    claim: str, evidence: str, mine: list[str], theirs: list[str], swapped: bool
) -> list[Finding]:
    """The negation conflict, where the negated side's negation covers the other side's
    words."""
    # A negation negates the words after it: "Sale items are final sale and cannot be
    # returned" does not negate "They are final sale".
    negated, other = (claim, evidence) if mine else (evidence, claim)
    if not swapped and not negated_words(negated, other) & said_words(other):
        return []
    if mine:
        message = f"the claim says \u201c{mine[0]}\u201d; the context states it without negation"
    else:
        message = f"the claim affirms what the context negates (\u201c{theirs[0]}\u201d)"
    return [Finding("negation", "conflict", message)]


def _put_in_negation(
    claim: str, evidence: str, cues: tuple[list[str], list[str]], covered: float
) -> list[Finding]:
    """The negation conflict of a claim that is its evidence's words with a "not" put in, or
    the other way round (:func:`_not_put_in`), where the evidence covers the claim's words;
    none otherwise (``cues``: each side's negation cues)."""
    mine, theirs = cues
    if covered < _COVERED:
        return []
    if _not_put_in(claim, evidence):
        said = _own_cue(mine, theirs)
        message = f"the claim says {said}; the context states it without negation"
    elif _not_put_in(evidence, claim):
        message = f"the claim affirms what the context negates ({_own_cue(theirs, mine)})"
    else:
        return []
    return [Finding("negation", "conflict", message)]


def _own_cue(cues: list[str], others: list[str]) -> str:
    """The first of one side's negation cues the other lacks, quoted."""
    cue = next((c for c in cues if c not in others), "not")
    return f"\u201c{cue}\u201d"


def _not_put_in(negated: str, other: str) -> bool:
    """Whether ``negated`` is words of ``other`` as written with one "not" put in, of three
    words or more but the "not": it denies them, however short it is and though no word
    after the "not" says anything alone ("... but recurring payments will not still go
    through"; "The rest were not against it."; "Passengers can't get off at the last stop
    without a ticket check.", beside the context's own "without")."""
    written = _CONTRACTED.sub(" not", _CANNOT.sub("can not", negated.lower()))
    words = _NOT_WORDS.findall(written)
    kept = [w for w in words if w != "not"]
    if len(words) - len(kept) != 1 or len(kept) < 3:
        return False
    theirs = f" {' '.join(_NOT_WORDS.findall(other.lower()))} "
    # "The cost of the fuel itself is not." against "..., but the cost of the fuel itself is
    # not.": the other holds the "not" too.
    return f" {' '.join(kept)} " in theirs and f" {' '.join(words)} " not in theirs


_NOT_WORDS = re.compile(r"\w+")
# "cannot" and "can't" are "can not", "doesn't" is "does not" ("won't" stays "wo not").
_CANNOT = re.compile(r"\bcan(?:not|['\u2019]t)\b")
_CONTRACTED = re.compile(r"n['\u2019]t\b")


# An e-mail address, a web address or a file path ("/etc/app/config.yaml", "C:\\app\\x.ini").
_ADDRESS = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\bhttps?://[^\s)>\]]+|\bwww\.[^\s)>\]]+"
    r"|(?<![\w/])~?(?:/[\w.-]+){2,}/?|\b[A-Za-z]:\\[\w.\\ -]+",
    re.IGNORECASE,
)


def named_in(text: str) -> list[str]:
    """The names of ``text`` that have a word of their own, but a unit's ("degrees
    Fahrenheit": the number check reads it)."""
    return list(_names_in(text))


@lru_cache(maxsize=16384)
def _names_in(text: str) -> tuple[str, ...]:
    # Memoised: the checks read the names of the same sentences for every claim and name.
    return tuple(n for n in names(text) if words_of_name(n) and not _unit_name(n))


def _unit_name(name: str) -> bool:
    """Whether each word of a name names a unit of a dimension ("Celsius", "Fahrenheit")."""
    return all(dimension_of(unit_of(word)) for word in words_of_name(name))


def _name_words(found: list[str]) -> set[str]:
    """The content words of the names."""
    return {w for n in found for w in content_words(n)}


def missing_name_share(claim: str, contexts: str) -> float:
    """Share of the claim's names that have a word no context contains (0 when it names
    nothing): "Dunbar Castle" beside a context about Tantallon Castle counts as missing."""
    found = named_in(claim)
    if not found:
        return 0.0
    return len(unknown_names(claim, contexts)) / len(found)


def unknown_names(claim: str, contexts: str) -> list[str]:
    """The claim's names that have a word no context contains ("Lyon", "Garth Brooks")."""
    return [name for name in named_in(claim) if not known_name(name, contexts)]


# Words that state the opposite of each other: one in the claim where the evidence has the
# other is a negation ("The store is open on Sundays" against "closed on Sundays"). A word may
# have several opposites ("allowed": "prohibited", "forbidden").
_OPPOSITE: dict[str, frozenset[str]] = {}
for _a, _b in table("opposites").pairs("pairs"):
    _OPPOSITE[_a] = _OPPOSITE.get(_a, frozenset()) | {_b}
    _OPPOSITE[_b] = _OPPOSITE.get(_b, frozenset()) | {_a}


def opposite_terms(claim: str, evidence: str) -> list[tuple[str, str]]:
    """(claim's word, evidence's word) pairs of opposites, each word absent from the other
    text ("open", "closed"), or both texts using both where the claim puts its word in the
    evidence's other's place (:func:`placed_opposites`)."""
    apart = _opposites_apart(claim, evidence)
    return apart + [pair for pair in placed_opposites(claim, evidence) if pair not in apart]


def _opposites_apart(claim: str, evidence: str) -> list[tuple[str, str]]:
    """(claim's word, evidence's word) pairs of opposites, each word absent from the other
    text."""
    mine = {t.lower() for t in tokens(claim)}
    theirs = {t.lower() for t in tokens(evidence)}
    return [
        (word, other)
        for word in sorted(mine - theirs)
        for other in sorted(_OPPOSITE.get(word, frozenset()) & (theirs - mine))
    ]


_PLACING = 2
"""The words beside a word that place it: the two before it, or the two after it."""


def placed_opposites(claim: str, evidence: str) -> list[tuple[str, str]]:
    """(claim's word, evidence's word) pairs of opposites where the claim puts its word
    between words the evidence puts the other between, and the evidence never puts the
    claim's word beside the claim's words before it nor beside those after it: "a maximum fee
    of $0.25" against "a minimum fee of $0.25 and a maximum of $15"; "closes 90 minutes after
    international flights" against "... before international flights and 45 minutes after
    domestic flights". "The bakery closes at noon" against "the bakery opens at 7 am and
    closes at noon" puts "closes" where the evidence does."""
    said = [t.lower() for t in tokens(claim)]
    runs = _runs([t.lower() for t in tokens(evidence)])
    found: list[tuple[str, str]] = []
    for i, word in enumerate(said):
        found.extend((word, o) for o in _placed_other(said, i, runs) if (word, o) not in found)
    return found


def _runs(words: list[str]) -> set[tuple[str, ...]]:
    """Every run of two to :data:`_PLACING` + 1 words in a row."""
    return {tuple(words[i : i + n]) for n in range(2, _PLACING + 2) for i in range(len(words))}


def _placed_other(said: list[str], i: int, runs: set[tuple[str, ...]]) -> list[str]:
    """The opposites of ``said[i]`` the evidence (its ``runs``) puts between the claim's two
    words before it or its two after it, where it never puts ``said[i]`` beside either."""
    sides = _placings(tuple(said[max(0, i - _PLACING) : i]), tuple(said[i + 1 : i + 1 + _PLACING]))
    if _puts(said[i], sides, runs):
        return []
    full = [(b, a) for b, a in sides if len(b) + len(a) == _PLACING]
    return [o for o in sorted(_OPPOSITE.get(said[i], frozenset())) if _puts(o, full, runs)]


def _puts(
    word: str, sides: list[tuple[tuple[str, ...], tuple[str, ...]]], runs: set[tuple[str, ...]]
) -> bool:
    """Whether the evidence (its ``runs``) puts ``word`` between any of the ``sides``."""
    return any((*before, word, *after) in runs for before, after in sides)


def _placings(
    before: tuple[str, ...], after: tuple[str, ...]
) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The words before a word, then those after it, each with nothing on the other side;
    none where there are none."""
    return [(b, a) for b, a in ((before, ()), ((), after)) if b or a]


def _sequence(text: str, leave: frozenset[str] = frozenset()) -> list[str]:
    """The content words of ``text`` in order of first use (stemmed, places for demonyms),
    but those in ``leave``. A word said again adds no order: a short answer read with its
    question ("Is my data encrypted? My data is encrypted.") is not a reordering of its
    evidence."""
    words: list[str] = []
    for t in tokens(text):
        found = content_words(t) - leave
        words.extend(w for w in (_SAME.get(w, w) for w in sorted(found)) if w not in words)
    return words


# Stems that say the same as another ("annually" and "per year").
_SAME = {stem(word): stem(same) for word, same in _UNITS.mapping("same_as").items()}


def check_swaps(
    claim: str, clause: str, passage: str, contexts: str, framed: str = ""
) -> list[Finding]:
    """A key term of the evidence replaced by another in the claim: a contradiction, not an
    unknown.

    * A name: every other word of the claim is in its evidence, the claim's name is in no
      context, and the evidence names something the claim does not ("The capital of Australia
      is Sydney" against "... is Canberra").
    * A role: every word of the claim is in its evidence, but in another order, and where the
      claim's word follows a shared word the evidence has one the claim lacks
      ("Photosynthesis releases carbon dioxide" against "plants absorb carbon dioxide and
      release oxygen").

    ``framed`` is a short claim read with its question ("Who wrote it? Alexandre Dumas"): the
    question supplies the other words, but only a name the claim itself gives can be the
    replaced one."""
    said, claim = claim, framed or claim
    swapped = _names_in_places(said, clause, passage)
    if swapped:
        return [swapped]
    # A long claim's words are not one fact's slots: only a replaced name is looked for,
    # and only where the claim copies the passage's other words.
    long = len(content_words(claim)) > SWAP_WORDS
    own_names = named_in(claim) + _first_word_name(claim, contexts)
    missing = _names_unknown(own_names, contexts, said)
    if missing:
        return _replaced_name(claim, missing, own_names, passage, contexts, long)
    if long:
        return []
    leave = _left_to_other_checks(said, clause)
    sequence = _sequence(clause, leave)
    replaced = _replaced_term(claim, said, clause, sequence, leave, contexts)
    return replaced or _reordered(claim, clause, passage, sequence, leave)


def _names_swapped(claim: str, clause: str) -> Finding | None:
    """A conflict where the claim reads as the clause with two of its names in each other's
    places ("The Pro plan is cheaper than the Basic plan." against "The Basic plan is cheaper
    than the Pro plan.", "Maria reports to Tom." against "Tom reports to Maria.")."""
    theirs = _named_sequence(clause)
    if content_words(claim) != content_words(clause) or _named_sequence(claim) == theirs:
        return None
    pair = _swapped_pair(claim, clause, theirs)
    if pair is None:
        return None
    return Finding("order", "conflict", f"the claim puts {pair[0]} where the context has {pair[1]}")


def _names_in_places(claim: str, clause: str, passage: str) -> Finding | None:
    """Two names of the claim in each other's places (:func:`_names_swapped`,
    :func:`_names_exchanged`)."""
    return _names_swapped(claim, clause) or _names_exchanged(claim, passage)


def _names_exchanged(claim: str, passage: str) -> Finding | None:
    """A conflict where two names of the claim have each other's word before them in a
    sentence of the passage that holds both ("a documentary film by Rudy Giuliani about Kevin
    Keating" against "... by Kevin Keating about Rudy Giuliani"; "of the genus Asteraceae in
    the family Chrysanthemum" against "of the genus Chrysanthemum in the family Asteraceae"),
    however many other words the two differ by."""
    mine = _words_before_names(claim)
    theirs = [_words_before_names(sentence) for sentence in split_sentences(passage)]
    pair = next(filter(None, (_exchanged_pair(mine, words) for words in theirs)), None)
    if pair is None or any(_as_the_claim(mine, words, pair) for words in theirs):
        return None  # "One-way rentals from Porto to Lisbon ..." is there as well
    return Finding("order", "conflict", f"the claim puts {pair[0]} where the context has {pair[1]}")


def _as_the_claim(mine: dict[str, str], theirs: dict[str, str], pair: tuple[str, str]) -> bool:
    """Whether a sentence has the pair's two names with the claim's words before them."""
    return all(theirs.get(name) == mine[name] for name in pair)


def _exchanged_pair(mine: dict[str, str], theirs: dict[str, str]) -> tuple[str, str] | None:
    """Two names each with the other's word before it in ``theirs`` (the words before each
    name: ``mine`` the claim's), else ``None``."""
    both = [n for n in mine if theirs.get(n, mine[n]) != mine[n]]
    pairs = ((a, b) for a in both for b in both if _each_others(a, b, mine, theirs))
    return next(pairs, None)


def _each_others(a: str, b: str, mine: dict[str, str], theirs: dict[str, str]) -> bool:
    """Whether names ``a`` and ``b`` have each other's word before them."""
    return mine[a] == theirs[b] and mine[b] == theirs[a]


def _words_before_names(text: str) -> dict[str, str]:
    """The word right before the first writing of each name of ``text``, where it is a word
    of no name, in lower case, with no punctuation between ("by" before "Kevin Keating")."""
    return dict(_read_words_before_names(text))


@lru_cache(maxsize=4096)
def _read_words_before_names(text: str) -> tuple[tuple[str, str], ...]:
    # Memoised: every claim of a case reads the same passage's sentences.
    found = []
    for name in dict.fromkeys(named_in(text)):
        written = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)
        before = _WORD_BEFORE.search(text, 0, written.start()) if written else None
        if before is not None:
            found.append((name, before.group(1)))
    return tuple(found)


# A word in lower case right before a name, with only spaces between.
_WORD_BEFORE = re.compile(r"\b([a-z]+)\s+$")


def words_swapped(claim: str, sentence: str) -> Finding | None:
    """A conflict where the claim reads as the sentence with two of its words, apart, in each
    other's places ("The bridge is closed to cars but open to cyclists." against "The bridge
    is closed to cyclists but open to cars."). Two neighbours exchanged are a reordering ("The
    vaccine is stored" for "Store the vaccine"), and a passive against an active ("by") says
    the same in the other order: neither is one."""
    mine = _sequence(claim)
    theirs = _trimmed(_sequence(sentence), mine)
    if len(mine) != len(theirs) or set(mine) != set(theirs) or _passive(claim, sentence):
        return None
    pair = _exchanged_apart(mine, theirs)
    if pair is None:
        return None
    return Finding("order", "conflict", f"the claim puts {pair[0]} where the context has {pair[1]}")


def _trimmed(theirs: list[str], mine: list[str]) -> list[str]:
    """The sentence's words ``theirs`` without those after the last of the claim's words
    ``mine``: a condition the claim leaves out says nothing of the order ("The regional train
    is faster than the express train on Sundays."). Words between the claim's are kept ("the
    capital city of Australia" is no "Australia's capital" turned round)."""
    held = [i for i, w in enumerate(theirs) if w in mine]
    return theirs[: held[-1] + 1] if held else theirs


def _exchanged_apart(mine: list[str], theirs: list[str]) -> tuple[str, str] | None:
    """(the claim's word, the sentence's) where ``mine`` is ``theirs`` with two words that
    are not neighbours exchanged, else ``None``."""
    apart = [i for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b]
    if len(apart) != 2 or apart[1] - apart[0] < 2 or mine[apart[0]] != theirs[apart[1]]:
        return None
    return mine[apart[0]], theirs[apart[0]]


def _passive(claim: str, sentence: str) -> bool:
    """Whether one of the two says "by" and the other not (a passive against an active)."""
    return bool(_BY.search(claim)) != bool(_BY.search(sentence))


_BY = re.compile(r"\bby\b", re.IGNORECASE)


def _swapped_pair(claim: str, clause: str, theirs: list[str]) -> tuple[str, str] | None:
    """The first two of the claim's names the clause gives that, in each other's places,
    make the claim read as the clause's words ``theirs``."""
    # The first word as a name the clause gives ("Paris is bigger than Lyon."): none of its
    # words is read as a common word of the clause here.
    mine = [n for n in named_in(claim) + _first_word_name(claim, "") if known_name(n, clause)]
    return next((p for p in itertools.combinations(mine, 2) if _reads_as(claim, *p, theirs)), None)


def _reads_as(claim: str, a: str, b: str, theirs: list[str]) -> bool:
    """Whether the claim with the names ``a`` and ``b`` (neither within the other: "Plan A"
    and "Plan B", not "Pro" and "Pro plan") in each other's places has the words ``theirs``
    in their order."""
    apart = a not in b and b not in a
    return apart and _named_sequence(_exchanged(claim, a, b)) == theirs


def _named_sequence(text: str) -> list[str]:
    """:func:`_sequence` with the capital letters that end names kept in their places ("Plan
    A has more than Plan B": plan, a, b)."""
    words: list[str] = []
    for t in tokens(text):
        found = [t.lower()] if len(t) == 1 and t.isupper() else _sequence(t)
        words.extend(w for w in found if w not in words)
    return words


def _exchanged(text: str, a: str, b: str) -> str:
    """``text`` with ``a`` and ``b`` in each other's places."""
    return text.replace(a, "\x00").replace(b, a).replace("\x00", b)


def _first_word_name(claim: str, contexts: str) -> list[str]:
    """The claim's first word where it may be a name ("Melbourne is ..."): capitalised, no
    stop word, not an opening followed by a comma ("Firstly, ..."), nor a verb or an adverb
    followed by a determiner, a pronoun or "not" ("Scan the QR code", "Unfortunately not"),
    nor a verb that opens an instruction ("Tap ..."), nor a word the contexts write in
    another form ("Toppings are ..." beside "topped with")."""
    first = tokens(claim)[:2]
    if (
        first
        and first[0][:1].isupper()
        and re.split(r"['’]", first[0])[0].lower() not in STOPWORDS  # "They're"
        and not re.match(r"\W*\w+,", claim)
        and not _opens_no_name(first, contexts)
    ):
        return first[:1]
    return []


def _opens_no_name(first: list[str], contexts: str) -> bool:
    """Whether a claim's first words (one or two) are a verb or an adverb, or a word the
    contexts write in another form, not a name."""
    opening = first[-1].lower() in _AFTER_NO_NAME or first[0].lower() in INSTRUCTIONS
    return opening or bool(content_words(first[0]) & content_words(contexts))


_AFTER_NO_NAME = table("claims").words("after_no_name")


def _names_unknown(own_names: list[str], contexts: str, said: str) -> list[str]:
    """The names no context gives, of those the claim itself (not its question) gives."""
    return [n for n in own_names if not known_name(n, contexts) and known_name(n, said)]


def _replaced_name(
    claim: str, missing: list[str], own_names: list[str], passage: str, contexts: str, long: bool
) -> list[Finding]:
    """A conflict where the contexts (the passage, for a long claim) hold the claim's other
    words and the passage names something the claim does not, its sentences that share most
    of the claim's plain words first. A long claim's is a kind of its own ("names"): it is
    read against one passage, for nothing but a name."""
    rest = content_words(claim) - _name_words(missing)
    plain = rest - _name_words(own_names)
    ranked = sorted(split_sentences(passage), key=lambda t: -len(plain & content_words(t)))
    theirs = _unnamed_by(ranked, claim)
    holding = passage if long else contexts
    if rest and rest <= _words_of(holding) and theirs:
        message = f"names {missing[0]} where the context names {theirs[0]}"
        return [Finding("names" if long else "terms", "conflict", message)]
    return []


def _unnamed_by(sentences: list[str], claim: str) -> list[str]:
    """The names of the sentences, in order, that the claim neither gives nor names the
    place of (by its demonym)."""
    return [
        n
        for text in sentences
        for n in named_in(text)
        if not known_name(n, claim) and not _place_of(n, claim)
    ]


def _left_to_other_checks(said: str, clause: str) -> frozenset[str]:
    """The words that give times and days their place ("runs from 10 pm", "starts at 10
    pm"), the time check's and the day check's, not terms; the numbers of either and what
    they count ("12 kilometers" against "12 km", "3 times" against "three times"), the number
    check's (a word the claim counts nothing with stays: "Every building" against "Each of
    the three buildings"); an address's words ("/etc/app/config.yaml"), which a replaced word
    is not."""
    leave = SPAN_WORDS if times(said) or weekdays(said) else frozenset()
    leave |= _units_of(said) | (_units_of(clause) - content_words(said))
    return leave | content_words(" ".join(_ADDRESS.findall(f"{said} {clause}")))


def _replaced_term(
    claim: str, said: str, clause: str, sequence: list[str], leave: frozenset[str], contexts: str
) -> list[Finding]:
    """A word of the claim no context holds in the place of the clause's, at the end of the
    statement or in its middle (not in a negated claim's). A short claim read with its
    question is also read alone: the question's words ("Which gas ...") are not the
    evidence's, and only the claim's own words have the fact's order."""
    known = _words_of(contexts)
    own = _sequence(said, leave)
    swapped = (
        _replaced_tail(_sequence(claim, leave), sequence, known)
        or _replaced_tail(own, sequence, known)
        or (None if negation_cues(said) else _replaced_middle(own, sequence, known))
    )
    if not swapped:
        return []
    word = _word_in(swapped[0], claim)
    message = f"the claim says {word} where the context says {_word_in(swapped[1], clause)}"
    return [Finding("replaced", "conflict", message, word=word.strip("\u201c\u201d"))]


def _reordered(
    claim: str, clause: str, passage: str, sequence: list[str], leave: frozenset[str]
) -> list[Finding]:
    """The claim's words in other places than the clause's, for a short claim whose every
    word the evidence's sentence holds: otherwise the two are different statements, and a
    different order means nothing."""
    claim_words = content_words(claim)
    shared = set(sequence)
    mine = [w for w in _sequence(claim, leave) if w in shared]
    sentence = next((t for t in split_sentences(passage) if clause in t), clause)
    if not _may_be_reordered(mine, claim_words, sentence, sequence):
        return []
    return _order_conflict(mine, sequence, claim_words, claim, clause)


def _may_be_reordered(
    mine: list[str], claim_words: frozenset[str], sentence: str, sequence: list[str]
) -> bool:
    """Whether the claim has three shared words or more, in another order than the
    sentence's, and no word the sentence lacks among its few ones."""
    return (
        len(mine) >= 3
        and len(claim_words) <= ROLE_WORDS
        and claim_words <= _words_of(sentence)
        and not _is_subsequence(mine, sequence)
    )


def _order_conflict(
    mine: list[str], sequence: list[str], claim_words: frozenset[str], claim: str, clause: str
) -> list[Finding]:
    """A conflict where a word of the claim follows a shared word that the evidence has
    another word after, one the claim lacks, and where the evidence puts that word of the
    claim after a word the claim lacks too."""
    for a, w in itertools.pairwise(mine):
        theirs_next = _displacing(a, w, sequence, claim_words)
        if theirs_next is not None:
            message = (
                f"the claim puts {_word_in(w, claim)} where the context has "
                f"{_word_in(theirs_next, clause)}"
            )
            return [Finding("order", "conflict", message)]
    return []


def _displacing(a: str, w: str, sequence: list[str], claim_words: frozenset[str]) -> str | None:
    """The evidence's word after ``a`` where the claim has ``w`` after it, when the claim
    lacks it and the evidence has a word the claim lacks before ``w``."""
    at = sequence.index(a)
    if at + 1 >= len(sequence):
        return None
    theirs_next = sequence[at + 1]
    if theirs_next in claim_words or theirs_next == w:
        return None
    before = _word_before(w, sequence)
    return theirs_next if before and before not in claim_words else None


def _word_before(word: str, sequence: list[str]) -> str:
    where = sequence.index(word)
    return sequence[where - 1] if where > 0 else ""


def _units_of(text: str) -> frozenset[str]:
    """The words of the numbers of ``text`` and what they count ("two", "kilometers" in "two
    times", "12 kilometers"); not a month, which dates a day ("30 June")."""
    words = frozenset().union(*(content_words(q.text) for q in quantities(text)))
    return frozenset(w for w in words if w not in _MONTH_STEMS)


_MONTH_STEMS = frozenset(stem(month) for month in MONTHS)


@lru_cache(maxsize=256)
def _words_of(text: str) -> frozenset[str]:
    return frozenset(content_words(text))


def _replaced_tail(
    mine: list[str], theirs: list[str], known: frozenset[str]
) -> tuple[str, str] | None:
    """(claim's word, evidence's word) when both end the same way after a shared start of at
    least two words and the claim's ending is a term of one or two words no context holds, in
    the place of one to three ("releases carbon dioxide" against "releases oxygen", "caused by
    a software bug" against "caused by a failed power supply")."""
    for size in (1, 2):
        head, tail = mine[:-size], mine[-size:]
        rest = _after_head(head, tail, theirs, known)
        if rest is not None and _few_new(rest, mine) and set(head) <= set(theirs):
            return tail[0], rest[0]
    return None


def _after_head(
    head: list[str], tail: list[str], theirs: list[str], known: frozenset[str]
) -> list[str] | None:
    """The evidence's words after the last of the claim's ``head`` (two words or more),
    where the claim's ``tail`` is words no context holds."""
    if len(head) < 2 or any(w in known for w in tail) or head[-1] not in theirs:
        return None
    return theirs[theirs.index(head[-1]) + 1 :]


def _few_new(words: list[str], mine: list[str]) -> bool:
    """One to three words, none of them the claim's."""
    return 1 <= len(words) <= 3 and not set(words) & set(mine)


def _replaced_middle(
    mine: list[str], theirs: list[str], known: frozenset[str]
) -> tuple[str, str] | None:
    """(claim's word, evidence's word) when the claim has every word of its evidence's
    statement in the same order but one, which no context holds, in the place where the
    evidence has one to three words the claim lacks ("Bees collect resin from flowers"
    against "Bees collect nectar and pollen from flowers"). Not for a negated claim: "not
    free" beside "charges a fee" is the same statement."""
    for at in range(1, len(mine) - 1):
        word, before, after = mine[at], mine[at - 1], mine[at + 1]
        others = mine[:at] + mine[at + 1 :]
        if word in known or not set(others) <= set(theirs):
            continue
        between = theirs[theirs.index(before) + 1 : theirs.index(after)]
        opposite = _OPPOSITE.get(word, frozenset()) & set(between)  # check_negation's
        if _few_new(between, mine) and not opposite:
            return word, between[0]
    return None


def _place_of(name: str, text: str) -> bool:
    return any(PLACES.get(w) and PLACES[w] in content_words(text) for w in words_of_name(name))


def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    rest = iter(whole)
    return all(any(w == x for x in rest) for w in part)


def _word_in(word: str, text: str) -> str:
    """The word of ``text`` whose stem is ``word``, as written."""
    for t in tokens(text):
        if stem(t) == word or PLACES.get(t.lower()) == word:
            return f"\u201c{t}\u201d"
    return f"\u201c{word}\u201d"
