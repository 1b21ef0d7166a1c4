"""Support of a claim by contexts: evidence retrieval, features, a calibrated score, a verdict.

For each claim the closest context passage is found by embedding similarity (a sentence, or
two or three adjacent sentences of the same context, whose vectors are the normalised sums of
their sentences' vectors: no text is encoded twice). The claim is then described by a few
numbers: its similarity to that passage, the share of its content words that the passage and
all the contexts contain, and what the deterministic checks found (numbers, dates, negation,
names). A logistic model turns them into a support probability, fitted on the tune halves of
the sets the project may fit on (``benchmarks/judge_accuracy.py --fit``), and two thresholds
turn the probability into supported or not mentioned (the reason says "only partly supported"
between them). A *conflict* found by a check makes the claim contradicted whatever the
probability, and its message is the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from ...text.shorten import shorten
from ...text.words import content_words
from . import trust
from .checks import (
    FINDING_KINDS,
    Finding,
    conflicting,
    missing_name_share,
    stated_amount_words,
    unknown_names,
)
from .dates import dates
from .facts import phrase_coverage, word_pairs
from .pipeline import LISTED, Reading, closest_sentence, run_checks
from .quantities import NUMBER_STEMS, Quantity, numbers_in_digits, quantities, same_value
from .roles import DAY_WORDS, day_words
from .scope import beyond

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

Matrix = npt.NDArray[np.float32]
Verdict = Literal["supported", "contradicted", "not mentioned"]
SHORT_CLAIM_WORDS = 6
WINDOW_SENTENCES = 3
_SHOWN = 140  # characters of the passage quoted in a reason
CANDIDATES = 5  # passages tried when the closest one conflicts with the claim
CANDIDATE_MARGIN = 0.25  # how much lower than the closest one's their ranking may be

FEATURES = (
    "similarity",
    "coverage_best",
    "coverage_all",
    "number_gap",
    "date_gap",
    "missing_names",
    "short_x_coverage",
    "phrase_coverage",
    *(f"conflict_{kind}" for kind in FINDING_KINDS),
)
"""The support model's features: how close the best passage is and how much of the claim's
wording the contexts hold, the numbers, dates and names no context states, and one feature
per kind of finding (:data:`.checks.FINDING_KINDS`): 1 where a check found a conflict of that
kind (a ``replaced`` word: one no context holds in the place of the passage's)."""


def logistic(weights: Sequence[float], bias: float, features: Sequence[float]) -> float:
    """The probability a logistic model with ``weights`` and ``bias`` gives ``features``."""
    z = bias + sum(w * x for w, x in zip(weights, features, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass(frozen=True)
class Calibration:
    """The logistic support model (weights in :data:`FEATURES` order) and the thresholds on
    its probability: ``supported`` from ``support``; below it "not mentioned", reported as
    "only partly supported" from ``ambiguous``."""

    weights: tuple[float, ...]
    bias: float
    support: float = 0.5
    ambiguous: float = 0.3
    unsure: tuple[float, float] | None = None
    """The band of support probabilities, ``[low, high)``, in which a claim's verdict is
    unsure: neither supported nor not, for an LLM judge to decide (``None``: always decide,
    at ``support``)."""
    trusted: frozenset[str] | None = None
    """The kinds of evidence (:mod:`.trust`) that decide a verdict alone, where there is an
    unsure band: a verdict of any other kind is unsure (``None``: every kind decides but a
    score in the band)."""

    def is_unsure(self, probability: float) -> bool:
        return self.unsure is not None and self.unsure[0] <= probability < self.unsure[1]

    @property
    def decides_all(self) -> bool:
        """Without a band and a set of trusted kinds the judge decides every verdict."""
        return self.unsure is None and self.trusted is None

    def doubts(self, basis: str) -> bool:
        """Whether a verdict resting on ``basis`` is unsure (never when it decides all)."""
        return not self.decides_all and trust.doubted(basis, self.trusted)

    def probability(self, features: Sequence[float]) -> float:
        return logistic(self.weights, self.bias, features)


# Fitted by ``python benchmarks/judge_accuracy.py --split tune --fit`` on the tune halves of
# the sets whose licence allows it (HaluEval, MIT, and the project's own hard cases): every
# kind of finding a feature, the features that encode HaluEval's answer length (similarity,
# short_x_coverage) left out, and a number, a date, a name no context states or a conflict
# never raising support. The support threshold has the best balanced accuracy over those
# rows averaged over the thresholds within 0.08 of it (the table is flat, and its own highest
# point hops with a few rows); the band is the widest in which no row of them is decided
# wrong by its score alone (benchmarks/README.md).
DEFAULT_CALIBRATION = Calibration(
    weights=(
        *(0.0, 1.35, 1.09, -0.55, 0.0, -2.32, 0.0, 1.58),
        # A conflict of each kind of finding, in FINDING_KINDS order.
        *(-3.32, -1.99, -1.37, -0.55, -1.16, -1.04, -0.75, -1.76, -1.86, -0.55),
    ),
    bias=-2.33,
    support=0.39,
    ambiguous=0.2,
    unsure=(0.08, 0.71),
    # Every other kind of evidence leaves a verdict unsure, whichever way it leans.
    trusted=trust.CLAIM_KINDS,
)


@dataclass(frozen=True)
class Passage:
    """A sentence or a window of adjacent sentences of one context."""

    text: str
    context: int  # 0-based index of its context


@dataclass
class Evidence:
    """The contexts, cut into passages with one unit vector each."""

    contexts: list[str]
    passages: list[Passage]
    vectors: Matrix  # (passages, dim)
    passage_words: list[frozenset[str]]
    all_text: str = field(init=False)
    all_words: frozenset[str] = field(init=False)
    all_pairs: set[tuple[str, str]] = field(init=False)

    def __post_init__(self) -> None:
        self.all_text = "\n".join(self.contexts)
        self.all_words = content_words(numbers_in_digits(self.all_text))
        self.all_pairs = word_pairs(self.all_text)

    @classmethod
    def build(
        cls,
        contexts: list[str],
        sentences: list[list[str]],
        sentence_vectors: list[Matrix],
        alone: frozenset[str] = frozenset(),
    ) -> Evidence:
        """Passages of up to :data:`WINDOW_SENTENCES` adjacent sentences per context; a
        window's vector is the normalised sum of its sentences' vectors, and its words the
        union of theirs. A sentence in ``alone`` (a table's row) is in no window: the values
        of the next row are another thing's."""
        passages: list[Passage] = []
        words: list[frozenset[str]] = []
        blocks: list[Matrix] = []
        for index, (parts, vectors) in enumerate(zip(sentences, sentence_vectors, strict=True)):
            windows = _windows([part in alone for part in parts])
            passages += [
                Passage(" ".join(parts[start : start + size]), index) for start, size in windows
            ]
            words += _window_words(parts, windows)
            blocks += _window_sums(vectors, windows)
        return cls(contexts, passages, _unit_rows(blocks), words)


def _windows(lone: list[bool]) -> list[tuple[int, int]]:
    """(start, size) of each passage of a context of ``len(lone)`` sentences: each sentence,
    then each window of two and of three that holds no lone sentence, in order."""
    return [
        (start, size)
        for size in range(1, WINDOW_SENTENCES + 1)
        for start in range(len(lone) - size + 1)
        if size == 1 or not any(lone[start : start + size])
    ]


def _window_words(parts: list[str], windows: list[tuple[int, int]]) -> list[frozenset[str]]:
    """The content words of each window: the union of its sentences'."""
    own = [content_words(numbers_in_digits(part)) for part in parts]
    return [
        own[start] if size == 1 else frozenset().union(*own[start : start + size])
        for start, size in windows
    ]


def _window_sums(vectors: Matrix, windows: list[tuple[int, int]]) -> list[Matrix]:
    """The sums of each window's sentence vectors (a block of rows; none without windows)."""
    if not windows:
        return []
    running = np.vstack([np.zeros((1, vectors.shape[1])), np.cumsum(vectors, axis=0)])
    starts = np.array([start for start, _ in windows])
    ends = np.array([start + size for start, size in windows])
    return [running[ends] - running[starts]]


def _unit_rows(blocks: list[Matrix]) -> Matrix:
    """The blocks' rows, one under the other, each of unit length (a zero row stays zero)."""
    if not blocks:
        return np.zeros((0, 1), dtype=np.float32)
    summed = np.vstack(blocks)
    norms = np.linalg.norm(summed, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    rows: Matrix = (summed / norms).astype(np.float32)
    return rows


def read_with_question(
    claim_vector: Matrix, question_vector: Matrix, claim: str, question: str
) -> Matrix:
    """The vector of a short claim read with the question it answers ("Who wrote it?" +
    "Alexandre Dumas"): the two vectors weighted by their words, unit length."""
    mixed = len(question.split()) * question_vector + len(claim.split()) * claim_vector
    norm = float(np.linalg.norm(mixed)) or 1.0
    return (mixed / norm).astype(np.float32)


@dataclass(frozen=True)
class ClaimSupport:
    """The verdict on one claim, with the passage it was compared to and why."""

    verdict: Verdict
    score: float  # calibrated probability that the contexts support the claim
    reason: str
    evidence: str
    context: int | None
    findings: tuple[Finding, ...] = ()
    unsure: bool = False
    """The verdict is a best guess: its score is in the calibration's unsure band, or its
    kind of evidence is not right often enough to decide alone (:mod:`.trust`)."""
    basis: str = ""
    """The kind of evidence the verdict rests on (:mod:`.trust`)."""
    model_score: float = 0.0
    """The support model's probability, before any rule bound it."""


def claim_features(
    claim: str,
    claim_vector: Matrix,
    evidence: Evidence,
    question: str = "",
    skip: frozenset[str] = frozenset(),
) -> tuple[list[float], int, list[Finding]]:
    """(features, index of the best passage, findings) of one claim, the checks in ``skip``
    left out."""
    similarities = evidence.vectors @ claim_vector
    # "Two years." holds 2 years, "5 miles" 8 km: the number check's
    words = (
        content_words(numbers_in_digits(claim))
        - NUMBER_STEMS
        - stated_amount_words(claim, evidence.all_text)
    )
    seen_by, all_seen = _seen_words(words, evidence)
    covered = [_share(words, seen) for seen in seen_by]
    # The best passage is close in meaning *and* shares the claim's words.
    ranking = similarities + 0.5 * np.asarray(covered, dtype=np.float32)
    order = [int(i) for i in np.argsort(-ranking, kind="stable")]
    dated = _dated_passage(evidence, order, covered)
    reading = _ClaimReading(claim, evidence, dated, _framed(claim, question), skip)
    best, findings = _checked_passage(reading, order, ranking)
    similarity = float(similarities[best])
    all_cover = _share(words, all_seen)
    return (
        _features(claim, evidence, similarity, covered[best], all_cover, findings),
        best,
        findings,
    )


def _seen_words(
    words: frozenset[str], evidence: Evidence
) -> tuple[list[frozenset[str]], frozenset[str]]:
    """The content words of each passage and of all the contexts; for a claim that names a
    day, with the days of each range of days they give (a passage's range of days states
    each of its days)."""
    if not words & DAY_WORDS:
        return evidence.passage_words, evidence.all_words
    pairs = zip(evidence.passage_words, evidence.passages, strict=True)
    seen_by = [seen | day_words(passage.text) for seen, passage in pairs]
    return seen_by, evidence.all_words | day_words(evidence.all_text)


def _share(words: frozenset[str], seen: frozenset[str]) -> float:
    """The share of ``words`` in ``seen`` (1 without words)."""
    return len(words & seen) / len(words) if words else 1.0


def _dated_passage(evidence: Evidence, order: list[int], covered: list[float]) -> str:
    """The first passage with a date that shares half the claim's words: the rival of a date
    the closest passage does not give."""
    return next(
        (
            evidence.passages[i].text
            for i in order
            if covered[i] >= 0.5 and dates(evidence.passages[i].text)
        ),
        "",
    )


def _framed(claim: str, question: str) -> str:
    """A short claim ("Alexandre Dumas") read together with the question it answers, as the
    check for a replaced name reads it ("" for another claim)."""
    return f"{question} {claim}" if question and len(claim.split()) < SHORT_CLAIM_WORDS else ""


@dataclass(frozen=True)
class _ClaimReading:
    """A claim as the checks read it against any passage of the evidence, with the closest
    passage that gives a date, the claim read with its question, and the checks left out."""

    claim: str
    evidence: Evidence
    dated: str
    framed: str
    skip: frozenset[str]

    def findings(self, best: int) -> list[Finding]:
        """What the checks find in the claim against passage ``best`` and all the contexts."""
        evidence = self.evidence
        passage = evidence.passages[best]
        context = evidence.contexts[passage.context]
        reading = Reading(
            self.claim, passage.text, context, evidence.all_text, self.dated, self.framed
        )
        return run_checks(reading, self.skip)


def _checked_passage(
    reading: _ClaimReading, order: list[int], ranking: Matrix
) -> tuple[int, list[Finding]]:
    """(the passage a claim is checked against, the findings): the closest one, else, where
    it conflicts with the claim, a close passage without the conflict. A fact is checked
    against the passage that best supports it ("12 days of SL" against the sick-leave
    sentence, not against the carry-over one that shares "SL")."""
    best = order[0]
    findings = reading.findings(best)
    if not conflicting(findings):
        return best, findings
    for other in order[1:CANDIDATES]:
        if ranking[other] < ranking[best] - CANDIDATE_MARGIN:
            break
        alternative = reading.findings(other)
        if not conflicting(alternative) and _keeps_its_numbers(reading, best, other):
            return other, alternative
    return best, findings


def _keeps_its_numbers(reading: _ClaimReading, best: int, other: int) -> bool:
    """Whether passage ``other`` states one of the claim's numbers at least, where passage
    ``best`` does: a passage that only shares the claim's words is no escape from a conflict
    with the one that states its numbers ("Joint accounts can not have up to 2 account
    holders." against "Joint accounts can have up to 2 account holders, ..." is not
    supported by "Closing a joint account requires both holders to sign."), but one that
    states one of them is ("up to 200 items per page instead of the default 50" against "a
    maximum of 200")."""
    passages = reading.evidence.passages
    mine = quantities(reading.claim)
    return _stated_count(mine, passages[other].text) > 0 or not _stated_count(
        mine, passages[best].text
    )


def _stated_count(mine: list[Quantity], passage: str) -> int:
    """How many of the claim's numbers ``mine`` the passage states."""
    theirs = quantities(passage)
    return sum(_states(theirs, q) for q in mine)


def _states(found: list[Quantity], q: Quantity) -> bool:
    return any(same_value(q.value, s.value) for s in found)


def _features(
    claim: str,
    evidence: Evidence,
    similarity: float,
    best_cover: float,
    all_cover: float,
    findings: list[Finding],
) -> list[float]:
    """The claim's features, in :data:`FEATURES` order."""
    short = 1.0 if len(claim.split()) < SHORT_CLAIM_WORDS else 0.0
    return [
        similarity,
        best_cover,
        all_cover,
        _found(findings, "numbers", "gap"),
        _found(findings, "dates", "gap"),
        missing_name_share(claim, evidence.all_text),
        short * all_cover,
        # A one-word answer ("British") has no phrase: its word's coverage stands for it.
        phrase_coverage(claim, evidence.all_pairs, all_cover),
        *(_found(findings, kind, "conflict") for kind in FINDING_KINDS),
    ]


def _found(findings: list[Finding], kind: str, severity: str) -> float:
    """1 where a check found a finding of that kind and severity, else 0."""
    return 1.0 if any(f.kind == kind and f.severity == severity for f in findings) else 0.0


def _replaced_as_gaps(claim: str, findings: list[Finding]) -> list[Finding]:
    """The findings with a replaced word counted as what the contexts do not say, not as a
    conflict. A word no context holds in the place of the passage's is another thing ("Bees
    collect resin" against "nectar") or the same thing in other words ("Python 3.10 or newer"
    against "or later", "the analyst role" against "position"): only reading both settles it.
    A list names its items: another item in the place of one is another thing ("black, navy
    and red" against "black, navy and olive"); a word outside the list is a word."""
    listed = LISTED.search(claim)
    return [
        replace(f, severity="gap")
        if f.kind == "replaced" and not (listed and f.word in claim[listed.start() :])
        else f
        for f in findings
    ]


@dataclass(frozen=True)
class _Scored:
    """What the rules on a claim's score read: the claim, the model's probability (``p``),
    the claim's features and what the checks find the contexts do not state."""

    claim: str
    p: float
    features: list[float]
    gaps: list[Finding]
    calibration: Calibration
    unknown: tuple[str, ...] = ()
    """The claim's names no context mentions."""

    @property
    def unstated(self) -> list[str]:
        """What the contexts do not state, as a reason opens with it: each gap's message,
        and the names no context mentions."""
        said = [f.message for f in self.gaps]
        if self.unknown:
            said.append(f"names {', '.join(self.unknown[:3])}, which the contexts do not mention")
        return said

    @property
    def below(self) -> float:
        """The highest score below the support threshold."""
        return round(self.calibration.support - 0.01, 4)


def _wording_only(s: _Scored) -> tuple[float, str] | None:
    """A number in digits that no context states is a fact the contexts leave out, however
    well they match the rest of the claim ("call +44 20 7946 0959" against "... 0958",
    "available 12 hours a day" against "24/7"), and so is a replaced word: never supported
    by its wording alone (a total the answer computed from the contexts' numbers, a
    synonym, would be right: only reading both settles it), and so is an item a list adds."""
    if s.p >= s.calibration.support and any(f.in_digits or f.kind in _WORDED for f in s.gaps):
        return s.below, trust.WORDING_ONLY
    return None


# The gaps that keep a claim from being supported by its wording alone, besides a number in
# digits: a replaced word, an item added to a list the contexts give ("black, navy, olive and
# red" against "black, navy and olive").
_WORDED = frozenset({"replaced", "items", "places", "known_for"})


def _unstated(s: _Scored) -> tuple[float, str] | None:
    """A number or a date no context states, in a claim its wording does not support
    anyway."""
    unstated = next((f for f in s.gaps if f.kind in ("numbers", "dates")), None)
    if unstated is not None and s.p < s.calibration.support:
        return s.p, trust.unstated_basis(unstated)
    return None


# The rules that bound a claim's score, in order: the first that applies decides.
SCORE_RULES: tuple[Callable[[_Scored], tuple[float, str] | None], ...] = (
    _wording_only,
    _unstated,
)


def _ruled_score(scored: _Scored) -> tuple[float, str]:
    """(the claim's score, the kind of evidence a rule decides it on, or "" where its score
    does): the model's probability as the first of :data:`SCORE_RULES` that applies bounds
    it."""
    for rule in SCORE_RULES:
        ruled = rule(scored)
        if ruled is not None:
            return ruled
    return scored.p, ""


def _score_basis(p: float, calibration: Calibration) -> str:
    """The kind of evidence of a verdict its score decides: above the unsure band, below it,
    or in it (a judge without a band decides at its support threshold)."""
    if calibration.is_unsure(p):
        return trust.IN_BAND
    return trust.SCORE_SUPPORTED if p >= calibration.support else trust.SCORE_NOT_MENTIONED


def _contradicted(
    findings: list[Finding], p: float, passage: Passage, shown: str, calibration: Calibration
) -> ClaimSupport:
    """The verdict on a claim the checks found in conflict with its passage: the first
    conflict of a kind the calibration trusts is its basis (else the first one's)."""
    conflicts = [f for f in findings if f.severity == "conflict"]
    basis = _conflict_basis(conflicts, calibration.trusted)
    where = f"context {passage.context + 1}"
    reason = "; ".join(f.message for f in conflicts) + f" ({where}: {shorten(shown, _SHOWN)})"
    return _settled(
        ClaimSupport(
            "contradicted",
            min(p, calibration.ambiguous / 2),
            reason,
            passage.text,
            passage.context,
            tuple(findings),
            basis=basis,
        ),
        calibration,
    )


def _conflict_basis(conflicts: list[Finding], trusted: frozenset[str] | None) -> str:
    """The kind of evidence of the first conflict the calibration trusts (else the first
    one's)."""
    bases = [trust.conflict_basis(f) for f in conflicts]
    return next((b for b in bases if trusted is None or b in trusted), bases[0])


def _settled(verdict: ClaimSupport, calibration: Calibration) -> ClaimSupport:
    """The verdict, unsure where its basis decides nothing alone (a judge without an unsure
    band decides every verdict)."""
    if not calibration.doubts(verdict.basis):
        return verdict
    opening = trust.doubt_reason(verdict.basis)
    if verdict.basis == trust.IN_BAND:
        low, high = calibration.unsure  # type: ignore[misc]
        opening = f"unsure (score {verdict.score:.2f} is between {low:.2f} and {high:.2f})"
    return replace(verdict, unsure=True, reason=f"{opening}: {verdict.reason}")


def judge_claim(
    claim: str,
    claim_vector: Matrix,
    evidence: Evidence,
    calibration: Calibration = DEFAULT_CALIBRATION,
    question: str = "",
    skip: frozenset[str] = frozenset(),
) -> ClaimSupport:
    """Verdict, calibrated score, reason and basis for one claim against all contexts."""
    if not evidence.passages:
        empty = ClaimSupport("not mentioned", 0.0, "the contexts are empty", "", None)
        return replace(empty, basis=trust.NO_CONTEXTS)
    features, best, findings = claim_features(claim, claim_vector, evidence, question, skip)
    findings = _replaced_as_gaps(claim, findings)
    p = round(calibration.probability(features), 4)
    passage = evidence.passages[best]
    shown = closest_sentence(claim, passage.text)
    if conflicting(findings):
        return _contradicted(findings, p, passage, shown, calibration)
    gaps = [f for f in findings if f.severity == "gap"]
    unknown = tuple(unknown_names(claim, evidence.all_text))
    scored = _Scored(claim, p, features, gaps, calibration, unknown)
    supported = _scored_support(scored, findings, passage, shown, evidence.all_text)
    return _settled(supported, calibration)


def _scored_support(
    scored: _Scored, findings: list[Finding], passage: Passage, shown: str, contexts: str
) -> ClaimSupport:
    """The verdict on a claim no check found in conflict with its passage: its score as the
    rules bound it decides, what it states beyond the sentence ``shown`` (of the contexts'
    text ``contexts``) names its kind of evidence, and what the contexts do not state opens
    the reason of a claim they do not support."""
    calibration = scored.calibration
    p, basis = _ruled_score(scored)
    basis = _also_scored(basis or _score_basis(p, calibration), p, scored.p, calibration)
    verdict, reason = _scored_verdict(p, scored.features, passage, shown, calibration)
    stated = beyond(scored.claim, shown, contexts) if verdict == "supported" else ""
    basis = stated or basis
    if scored.unstated and verdict != "supported":
        reason = "; ".join(scored.unstated) + "; " + reason
    return ClaimSupport(
        verdict,
        p,
        reason,
        passage.text,
        passage.context,
        tuple(findings),
        False,
        basis,
        scored.p,
    )


def _scored_verdict(
    p: float, features: list[float], passage: Passage, shown: str, calibration: Calibration
) -> tuple[Verdict, str]:
    """The verdict the claim's score gives, and its reason: supported, only partly supported,
    or not mentioned."""
    where = f"context {passage.context + 1}"
    measured = f"similarity {features[0]:.2f}, {features[1]:.0%} of its words"
    if p >= calibration.support:
        reason = f"supported by {where} ({measured}, score {p:.2f}): {shorten(shown, _SHOWN)}"
        return "supported", reason
    if p >= calibration.ambiguous:
        reason = (
            f"not mentioned as such, only partly supported: closest is {where} "
            f"({measured}, score {p:.2f})"
        )
        return "not mentioned", reason
    reason = f"not mentioned in the contexts: closest is {where} ({measured}, score {p:.2f})"
    return "not mentioned", reason


def _also_scored(basis: str, p: float, model_score: float, calibration: Calibration) -> str:
    """The kind of evidence of a verdict a rule gives: the score's where the model's score
    alone gives the same verdict outside the unsure band (a claim with a number no context
    states whose score is below the band anyway)."""
    if calibration.unsure is None or calibration.is_unsure(model_score):
        return basis
    scored = _score_basis(model_score, calibration)
    same = (scored == trust.SCORE_SUPPORTED) == (p >= calibration.support)
    return scored if same and basis != trust.WORDING_ONLY else basis
