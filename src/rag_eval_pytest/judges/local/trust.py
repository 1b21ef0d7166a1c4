"""Which of its verdicts the local judge decides: the kind of evidence behind each verdict,
and the kinds right often enough to stand alone.

Every verdict names the kind of evidence it rests on (its *basis*): the check whose conflict
contradicts a claim ("contradicted: numbers"), a support score above the unsure band, an
answer that gives what its question asks for, ... The precision of
each kind (the share of the verdicts resting on it that a person labelled the same way) is
measured on the held-out halves of the benchmark sets (``benchmarks/judge_accuracy.py
--kinds``); a verdict is decided only when its kind's precision is at least
:data:`MIN_PRECISION`, and every other verdict is unsure, whichever way it leans: a cascade
asks its LLM judge, and ``judge.local.unsure`` says what a run without one does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .checks import Finding

MIN_PRECISION = 0.95
"""The least measured precision of a kind of evidence that decides a verdict alone."""

# Claims (faithfulness, context recall and precision, answer correctness).
HEDGED = "supported: stated as a fact where the context hedges"
BROADENED = "supported: stated more widely than the context"
SPREAD = "supported: its words only across sentences"
COMPOSED = "supported: a name the contexts do not write"
COMPARED = "supported: of a thing the context only compares with"
SCORE_SUPPORTED = "supported: score above the band"
SCORE_NOT_MENTIONED = "not mentioned: score below the band"
IN_BAND = "score in the unsure band"
WORDING_ONLY = "not mentioned: supported by its wording only"
NO_CONTEXTS = "not mentioned: no contexts"
COMPARISON = "a comparison of two things"
BARE_NO = "a no that the contexts neither state nor contradict"
# Answer relevance.
DIRECT_ANSWER = "relevant: a direct answer"
RESTATES_QUESTION = "relevant: restates the question and gives what it asks for"
FAR_BELOW = "not relevant: score far below the cut"
RELEVANT_SCORE = "relevant: score above the band"
IRRELEVANT_SCORE = "not relevant: score below the band"
DECLINES = "not relevant: declines"
# Context sentences (context relevance).
ANSWERS_QUESTION = "needed: answers the question"
NEEDED_SCORE = "needed: score above the band"
NOT_NEEDED_SCORE = "not needed: score below the band"

# The kinds whose precision on the held-out halves of the benchmark sets (the decided rows
# resting on them, at least 5) is at least MIN_PRECISION, on all the sets together and on each
# set where at least 5 rows rest on them: ``python benchmarks/judge_accuracy.py --data
# ../shared/benchmarks --kinds`` prints the table (benchmarks/README.md).
CLAIM_KINDS = frozenset(
    {
        "contradicted: dates",
        "contradicted: holder",
        "contradicted: numbers",
        "contradicted: terms",
        SCORE_SUPPORTED,
    }
)
"""A conflict's kind is its finding's (:class:`~.checks.Finding`), whichever check found it:
the numbers and the times of day of the number and time checks, the names and words of a
short claim in another's place (the swaps check's "terms"), a fact the contexts give another
named thing (the holders check: 5 of 5 held out, all the hard cases' own, and 2 of 2 on the
tune halves). Not among them: a replaced name in a long claim ("contradicted: names", right
on 7 of 8: a summary that names a club its article calls by another name), a claim stated as
a fact where its passage hedges (3 of 5), supported across sentences (12 of 17: 0 of 5 on
HaluEval's fabrications), a score below the band (0.94), a number no context states
(0.59)."""
ANSWER_KINDS = frozenset({RESTATES_QUESTION})
"""An answer close to its question that holds every word of it and what it asks for (26 of
26 held out, 11 of them hard cases). Not among them: a score far below the cut (34 of 37: 9
of 10 on the project's own set, whose answers are on the question's topic), a short direct
answer (9 of 12), the score's other verdicts (0.78 to 0.83)."""
SENTENCE_KINDS: frozenset[str] = frozenset()
"""None: a context sentence's relevance by its score is right on 0.73 to 0.77 of the rows, and
the rule for a sentence that answers the question on 0.88; no sentence of TREC DL scores far
enough from the cut to be sure either way."""

ALWAYS_UNSURE = frozenset({IN_BAND, WORDING_ONLY, COMPARISON, BARE_NO})
"""Kinds that decide nothing: a score in the band, a claim only its wording supports while
it states a number or a word no context holds, a yes or no that compares two things (true or
false only by putting two facts together), a bare "No." no context states or contradicts
(true only by what the contexts leave out)."""


def conflict_basis(finding: Finding) -> str:
    """The kind of evidence of a contradiction: its finding's kind, whichever check found it
    (a time of day the times check finds is a number; the check is in the finding)."""
    return f"contradicted: {finding.kind}"


def unstated_basis(finding: Finding) -> str:
    return f"not mentioned: unstated {finding.kind}"


def doubted(basis: str, trusted: frozenset[str] | None) -> bool:
    """Whether a verdict of this basis is unsure: a kind that decides nothing, or one not
    among ``trusted`` (``None``: every other kind is)."""
    return basis in ALWAYS_UNSURE or (trusted is not None and basis not in trusted)


def doubt_reason(basis: str) -> str:
    """What an unsure verdict's reason opens with."""
    if basis in ALWAYS_UNSURE:
        return "unsure"
    return f"unsure ({basis}: a kind of evidence not right often enough to decide alone)"
