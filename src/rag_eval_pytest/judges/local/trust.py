"""Which of its verdicts the local judge decides: the kind of evidence behind each verdict,
and the kinds right often enough to stand alone.

Every verdict names the kind of evidence it rests on (its *basis*): the check whose conflict
contradicts a claim ("contradicted: numbers"), a restatement of a passage, a support score
above the unsure band, an answer that gives what its question asks for, ... The precision of
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
RESTATEMENT = "supported: restatement"
SCORE_SUPPORTED = "supported: score above the band"
SCORE_NOT_MENTIONED = "not mentioned: score below the band"
IN_BAND = "score in the unsure band"
WORDING_ONLY = "not mentioned: supported by its wording only"
UNRELATED = "not mentioned: unrelated"
TWO_KINDS = "not mentioned: unstated facts of two kinds"
NO_CONTEXTS = "not mentioned: no contexts"
COMPARISON = "a comparison of two things"
BARE_NO = "a no that the contexts neither state nor contradict"
# Answer relevance.
DIRECT_ANSWER = "relevant: a direct answer"
RELEVANT_SCORE = "relevant: score above the band"
IRRELEVANT_SCORE = "not relevant: score below the band"
DECLINES = "not relevant: declines"
# Context sentences (context relevance).
ANSWERS_QUESTION = "needed: answers the question"
NEEDED_SCORE = "needed: score above the band"
NOT_NEEDED_SCORE = "not needed: score below the band"

# The kinds whose precision on the held-out halves of the benchmark sets (the decided rows
# resting on them, at least 5) is at least MIN_PRECISION: ``python benchmarks/judge_accuracy.py
# --data ../shared/benchmarks --kinds`` prints the table (benchmarks/README.md).
CLAIM_KINDS = frozenset(
    {
        "contradicted: dates",
        "contradicted: numbers",
        "contradicted: swaps (terms)",
        SCORE_SUPPORTED,
    }
)
ANSWER_KINDS: frozenset[str] = frozenset()
"""None: no kind of evidence behind an answer's relevance reaches the precision (the score's
best, "relevant" above the band, is right on 0.89 of the held-out rows it decides)."""
SENTENCE_KINDS: frozenset[str] = frozenset()
"""None: a context sentence's relevance by its score is right on 0.73 to 0.77 of the rows, and
the rule for a sentence that answers the question on 0.88."""

ALWAYS_UNSURE = frozenset({IN_BAND, WORDING_ONLY, COMPARISON, BARE_NO})
"""Kinds that decide nothing: a score in the band, a claim only its wording supports while
it states a number or a word no context holds, a yes or no that compares two things (true or
false only by putting two facts together), a bare "No." no context states or contradicts
(true only by what the contexts leave out)."""


def finding_label(finding: Finding) -> str:
    """The check that found it, and the kind of finding where that check makes several
    ("swaps (order)", "negation (opposite)")."""
    if finding.kind == finding.check or not finding.check:
        return finding.check or finding.kind
    return f"{finding.check} ({finding.kind})"


def conflict_basis(finding: Finding) -> str:
    return f"contradicted: {finding_label(finding)}"


def unstated_basis(finding: Finding) -> str:
    return f"not mentioned: unstated {finding_label(finding)}"


def doubted(basis: str, trusted: frozenset[str] | None) -> bool:
    """Whether a verdict of this basis is unsure: a kind that decides nothing, or one not
    among ``trusted`` (``None``: every other kind is)."""
    return basis in ALWAYS_UNSURE or (trusted is not None and basis not in trusted)


def doubt_reason(basis: str) -> str:
    """What an unsure verdict's reason opens with."""
    if basis in ALWAYS_UNSURE:
        return "unsure"
    return f"unsure ({basis}: a kind of evidence not right often enough to decide alone)"
