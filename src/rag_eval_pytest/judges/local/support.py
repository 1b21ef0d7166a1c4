"""Support of a claim by contexts: evidence retrieval, features, a calibrated score, a verdict.

For each claim the closest context passage is found by embedding similarity (a sentence, or
two or three adjacent sentences of the same context, whose vectors are the normalised sums of
their sentences' vectors: no text is encoded twice). The claim is then described by a few
numbers: its similarity to that passage, the share of its content words that the passage and
all the contexts contain, and what the deterministic checks found (numbers, dates, negation,
names). A logistic model turns them into a support probability, fitted on the dev half of
human-labelled faithfulness sets (``benchmarks/judge_accuracy.py --fit``), and two thresholds
turn the probability into supported or not mentioned (the reason says "only partly supported"
between them). A *conflict* found by a check makes the claim contradicted whatever the
probability, and its message is the reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from ...text.facts import (
    NUMBER_WORDS,
    content_words,
    coverage,
    dates,
    negation_cues,
    phrase_coverage,
    tokens,
    word_pairs,
)
from ...text.roles import DAY_WORDS, day_words
from ...text.shorten import shorten
from .checks import (
    Finding,
    check_binding,
    check_dates,
    check_names,
    check_negation,
    check_numbers,
    check_swaps,
    missing_name_share,
)
from .role_checks import check_day_times, check_days, check_routes, check_times

if TYPE_CHECKING:
    from collections.abc import Sequence

Matrix = npt.NDArray[np.float32]
Verdict = Literal["supported", "contradicted", "not mentioned"]
SHORT_CLAIM_WORDS = 6
WINDOW_SENTENCES = 3
RESTATED_SIMILARITY = 0.6  # see judge_claim
RESTATED_WORDS = 6
# A claim none of whose content words any context holds, and that is this far from every
# passage in meaning, is about something else ("Banana." against a delivery policy): the
# logistic model, fitted on answers that are at least on topic, must not call it supported.
UNRELATED_SIMILARITY = 0.3
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
)


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
    at ``support``). A conflict the checks find is never unsure."""

    def is_unsure(self, probability: float) -> bool:
        return self.unsure is not None and self.unsure[0] <= probability < self.unsure[1]

    def probability(self, features: Sequence[float]) -> float:
        return logistic(self.weights, self.bias, features)


# Fitted by ``python benchmarks/judge_accuracy.py --fit`` on the dev halves of
# lfqa_verification, halueval_qa and faithbench (see benchmarks/README.md).
DEFAULT_CALIBRATION = Calibration(
    weights=(2.44, 1.05, 0.33, 0.34, -0.49, -2.8, 0.18, 2.69),
    bias=-3.06,
    support=0.64,
    ambiguous=0.4,
    # The band with the best worst-set accuracy of the decided answers on the tune halves of
    # HaluEval and LFQA, deciding at least 60 % of each (docs/judges-local.md).
    unsure=(0.35, 0.75),
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
        self.all_words = content_words(self.all_text)
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
            own = [content_words(part) for part in parts]
            lone = [part in alone for part in parts]
            if parts:
                running = np.vstack([np.zeros((1, vectors.shape[1])), np.cumsum(vectors, axis=0)])
            for size in range(1, WINDOW_SENTENCES + 1):
                count = len(parts) - size + 1
                if count <= 0:
                    break
                kept = [size == 1 or not any(lone[i : i + size]) for i in range(count)]
                for start in (i for i in range(count) if kept[i]):
                    passages.append(Passage(" ".join(parts[start : start + size]), index))
                    words.append(
                        own[start] if size == 1 else frozenset().union(*own[start : start + size])
                    )
                blocks.append((running[size : size + count] - running[:count])[kept])
        if blocks:
            summed = np.vstack(blocks)
            norms = np.linalg.norm(summed, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            matrix = (summed / norms).astype(np.float32)
        else:
            matrix = np.zeros((0, 1), dtype=np.float32)
        return cls(contexts, passages, matrix, words)


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
    """The score is in the calibration's unsure band: the verdict is a best guess."""


def claim_features(
    claim: str, claim_vector: Matrix, evidence: Evidence, question: str = ""
) -> tuple[list[float], int, list[Finding]]:
    """(features, index of the best passage, findings) of one claim."""
    similarities = evidence.vectors @ claim_vector
    words = content_words(claim) - NUMBER_WORDS  # "Two years." holds 2 years: the number check's
    seen_by = evidence.passage_words
    all_seen = evidence.all_words
    if words & DAY_WORDS:  # a passage's range of days states each of its days
        pairs = zip(seen_by, evidence.passages, strict=True)
        seen_by = [seen | day_words(passage.text) for seen, passage in pairs]
        all_seen = all_seen | day_words(evidence.all_text)
    covered = [len(words & seen) / len(words) if words else 1.0 for seen in seen_by]
    # The best passage is close in meaning *and* shares the claim's words.
    ranking = similarities + 0.5 * np.asarray(covered, dtype=np.float32)
    order = [int(i) for i in np.argsort(-ranking, kind="stable")]
    best = order[0]
    # The first passage with a date that shares half the claim's words: the rival of a date
    # the closest passage does not give.
    dated = next(
        (
            evidence.passages[i].text
            for i in order
            if covered[i] >= 0.5 and dates(evidence.passages[i].text)
        ),
        "",
    )
    # A short claim ("Alexandre Dumas") is read together with the question it answers when
    # looking for a replaced name.
    framed = f"{question} {claim}" if question and len(claim.split()) < SHORT_CLAIM_WORDS else ""
    findings = _findings(claim, evidence, best, dated, framed)
    if any(f.severity == "conflict" for f in findings):
        # A fact is checked against the passage that best supports it: a close passage
        # without the conflict wins ("12 days of SL" against the sick-leave sentence, not
        # against the carry-over one that shares "SL").
        for other in order[1:CANDIDATES]:
            if ranking[other] < ranking[best] - CANDIDATE_MARGIN:
                break
            alternative = _findings(claim, evidence, other, dated, framed)
            if not any(f.severity == "conflict" for f in alternative):
                best, findings = other, alternative
                break
    similarity = float(similarities[best])
    best_cover = covered[best]
    all_cover = len(words & all_seen) / len(words) if words else 1.0
    short = 1.0 if len(claim.split()) < SHORT_CLAIM_WORDS else 0.0

    def has(kind: str, severity: str) -> float:
        return 1.0 if any(f.kind == kind and f.severity == severity for f in findings) else 0.0

    features = [
        similarity,
        best_cover,
        all_cover,
        has("numbers", "gap"),
        has("dates", "gap"),
        missing_name_share(claim, evidence.all_text),
        short * all_cover,
        # A one-word answer ("British") has no phrase: its word's coverage stands for it.
        phrase_coverage(claim, evidence.all_pairs, all_cover),
    ]
    return features, best, findings


_CLAUSE = re.compile(r"\s*(?:[,;:\u2013\u2014]|\s-\s|\bbut\b|\bwhile\b|\bwhereas\b)\s*")
# Three or more items: "black, navy and olive", "Visa, Mastercard, or PayPal".
_LISTED = re.compile(
    r"\b[^\W\d_][\w-]*,\s+(?:[^\W\d_][\w-]*\s+)?[^\W\d_][\w-]*,?\s+(?:and|or)\s+[^\W\d_]"
)


def _findings(
    claim: str, evidence: Evidence, best: int, dated: str, framed: str = ""
) -> list[Finding]:
    """What the checks find in the claim against passage ``best`` and all the contexts."""
    passage = evidence.passages[best].text
    context = evidence.contexts[evidence.passages[best].context]
    clause = _best_sentence(claim, passage)
    if _LISTED.search(claim):  # "black, navy and red": the list's commas part no clauses
        clause = _closest_sentence(claim, passage)
    return (
        check_numbers(claim, passage, evidence.all_text)
        + check_times(claim, passage, evidence.all_text)
        + check_days(claim, passage)
        + check_day_times(claim, context)
        + check_routes(claim, passage)
        + check_dates(claim, passage, evidence.all_text, dated)
        + _negation(claim, passage)
        + check_swaps(claim, clause, context, evidence.all_text, framed)
        + check_names(claim, evidence.all_text)
        + check_binding(claim, context)
    )


def _closest_sentence(claim: str, passage: str) -> str:
    """The sentence of a window that shares most of the claim's words, for the reason."""
    from ...text.sentences import split_sentences

    parts = split_sentences(passage) or [passage]
    return max(parts, key=lambda s: _shared(claim, s))


def _best_sentence(claim: str, passage: str) -> str:
    """The clause of the passage that shares most of the claim's words: negation is read
    there, not across a window ("The stones cause no symptoms as they form, but ... causing
    pain" does not negate "it causes pain")."""
    sentence = _closest_sentence(claim, passage)
    clauses = [c for c in _CLAUSE.split(sentence) if c and len(c.split()) >= 3] or [sentence]
    return max(clauses, key=lambda c: _shared(claim, c))


def _shared(claim: str, text: str) -> tuple[float, int]:
    """How much of the claim ``text`` holds: the share of its content words, then, on a tie,
    how many of its words of any kind ("We deliver to P.O. boxes." shares "deliver" with
    "Express shipping ... delivers in 1-2 business days." and "boxes" with "We do not ship to
    P.O. boxes.", which also holds "We", "to", "P" and "O")."""
    mine = {t.lower() for t in tokens(claim)}
    return coverage(claim, text), len(mine & {t.lower() for t in tokens(text)})


def _negation(claim: str, passage: str) -> list[Finding]:
    """A negation conflict of the claim with the passage's clause that shares most of its
    words; for a claim of several clauses, kept only when a clause of the claim that can be
    read alone conflicts with its own closest clause too. A claim copied from a passage whose
    second clause holds the "not" ("... 89 percent, not even close to completion") is read
    against that clause, not against the first one."""
    clause = _best_sentence(claim, passage)
    found = check_negation(claim, clause, coverage(claim, clause))
    pieces = _CLAUSE.split(claim)
    parts = [c for c in pieces if len(content_words(c)) >= 2]
    # A "not" in a clause too short to read alone ("..., but not on Sundays") stays the claim's.
    if not found or len(parts) < 2 or any(negation_cues(c) for c in pieces if c not in parts):
        return found
    for part in parts:
        own = _best_sentence(part, passage)
        if check_negation(part, own, coverage(part, own)):
            return found
    return []


def _replaced_as_gaps(claim: str, findings: list[Finding]) -> list[Finding]:
    """The findings with a replaced word counted as what the contexts do not say, not as a
    conflict. A word no context holds in the place of the passage's is another thing ("Bees
    collect resin" against "nectar") or the same thing in other words ("Python 3.10 or newer"
    against "or later", "the analyst role" against "position"): only reading both settles it.
    A list names its items: another item in the place of one is another thing ("black, navy
    and red" against "black, navy and olive"); a word outside the list is a word."""
    listed = _LISTED.search(claim)
    return [
        replace(f, severity="gap")
        if f.kind == "replaced" and not (listed and f.word in claim[listed.start() :])
        else f
        for f in findings
    ]


def _ruled_score(
    claim: str, p: float, features: list[float], gaps: list[Finding], calibration: Calibration
) -> tuple[float, bool, bool]:
    """(the claim's score, whether a rule decides it, whether it restates its passage): the
    model's probability as the rules below bound it."""
    similarity, best_cover = features[0], features[1]
    # A paraphrase whose every content word one passage holds, with nothing the checks find
    # missing, is the passage's statement in other words ("Canberra is the capital of
    # Australia" against "Its capital city is Canberra").
    restated = (
        not gaps
        and best_cover == 1.0
        and 2 <= len(content_words(claim)) <= RESTATED_WORDS
        and similarity >= RESTATED_SIMILARITY
    )
    # The rules below decide a claim whatever its score: never unsure. So does a number or a
    # date no context states ("within 24 hours" against contexts that give no time): a fact of
    # its own, not a matter of wording.
    ruled = restated or any(f.kind in ("numbers", "dates") for f in gaps)
    below = round(calibration.support - 0.01, 4)
    # A number in digits that no context states is a fact the contexts leave out, however
    # well they match the rest of the claim ("call +44 20 7946 0959" against "... 0958",
    # "available 12 hours a day" against "24/7"), and so is a replaced word: never supported
    # by its wording alone. The wording's verdict was supported, so it is unsure (a total the
    # answer computed from the contexts' numbers, a synonym, would be right).
    unstated = any(f.in_digits or f.kind == "replaced" for f in gaps)
    if unstated and p >= calibration.support and not restated:
        p, ruled = below, False
    if features[2] == 0.0 and similarity < UNRELATED_SIMILARITY:
        p, ruled = min(p, calibration.ambiguous / 2), True
    # A claim that brings facts of two kinds no context states (a name and a number, a number
    # and a date) says more than the contexts, however much of its wording they share: "data
    # is encrypted at rest with AES-256 and in transit with TLS 1.3" against "data is
    # encrypted at rest with AES-256".
    if len({f.kind for f in gaps}) >= 2:
        p, ruled = min(p, below), True
    return p, ruled, restated


def judge_claim(
    claim: str,
    claim_vector: Matrix,
    evidence: Evidence,
    calibration: Calibration = DEFAULT_CALIBRATION,
    question: str = "",
) -> ClaimSupport:
    """Verdict, calibrated score and reason for one claim against all contexts."""
    if not evidence.passages:
        return ClaimSupport("not mentioned", 0.0, "the contexts are empty", "", None)
    features, best, findings = claim_features(claim, claim_vector, evidence, question)
    findings = _replaced_as_gaps(claim, findings)
    p = round(calibration.probability(features), 4)
    passage = evidence.passages[best]
    where = f"context {passage.context + 1}"
    shown = _closest_sentence(claim, passage.text)
    similarity, best_cover = features[0], features[1]
    conflicts = [f for f in findings if f.severity == "conflict"]
    gaps = [f for f in findings if f.severity == "gap"]
    if conflicts:
        reason = "; ".join(f.message for f in conflicts) + f" ({where}: {shorten(shown, _SHOWN)})"
        return ClaimSupport(
            "contradicted",
            min(p, calibration.ambiguous / 2),
            reason,
            passage.text,
            passage.context,
            tuple(findings),
        )
    measured = f"similarity {similarity:.2f}, {best_cover:.0%} of its words"
    p, ruled, restated = _ruled_score(claim, p, features, gaps, calibration)
    if p >= calibration.support or restated:
        verdict: Verdict = "supported"
        reason = f"supported by {where} ({measured}, score {p:.2f}): {shorten(shown, _SHOWN)}"
        p = max(p, calibration.support)
    elif p >= calibration.ambiguous:
        verdict = "not mentioned"
        reason = (
            f"not mentioned as such, only partly supported: closest is {where} "
            f"({measured}, score {p:.2f})"
        )
    else:
        verdict = "not mentioned"
        reason = f"not mentioned in the contexts: closest is {where} ({measured}, score {p:.2f})"
    if gaps and verdict != "supported":
        reason = "; ".join(f.message for f in gaps) + "; " + reason
    unsure = not ruled and calibration.is_unsure(p)
    if unsure:
        low, high = calibration.unsure  # type: ignore[misc]
        reason = f"unsure (score {p:.2f} is between {low:.2f} and {high:.2f}): {reason}"
    return ClaimSupport(
        verdict, p, reason, passage.text, passage.context, tuple(findings), unsure=unsure
    )
