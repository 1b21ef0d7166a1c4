"""The offline judge: answers the metrics' questions with embeddings and rules.

A claim is **supported** when some context passage (a sentence, or two adjacent ones) is
close to it in meaning *and* covers its content words, and no deterministic check finds a
conflict (a number, a negation, a name the context does not state). The verdict's reason
says which: "supported by policy.md (similarity 0.82, 100% of its words)" or "claims 30 days;
the context says 20 days". Thresholds are in :class:`Thresholds` (chosen on human-labelled
dev sets; see docs/judges-local.md).

It cannot write questions, so answer relevance uses its direct rating; coreference ("it",
"they") is not resolved.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ...text.sentences import split_sentences
from ..base import Judge, JudgeOutcome, Question
from ..questions import (
    AnswerAddressesQuestion,
    AnswerEquivalence,
    Attributions,
    ContextSentenceRelevance,
    ContextUsefulness,
    ContextVerdicts,
    DirectRelevance,
    Equivalence,
    GroundTruthAttribution,
    SentenceRelevances,
    StatementSupport,
    StatementVerdicts,
)
from .checks import coverage, entity_conflict, negation_conflict, number_conflict
from .embeddings import LocalEmbedder, shared_embedder

if TYPE_CHECKING:
    from .entailment import EntailmentModel

SHORT_CLAIM_WORDS = 8
PHRASE_WORDS = 4
_CONFLICTS = ("claims ", "names ", "the claim ")
_PLEASANTRY = re.compile(
    r"^\W*(hi|hello|hey|thanks?( you)?|you're welcome|ok(ay)?|sure|bye|goodbye)\W*$", re.I
)
_NONCOMMITTAL = re.compile(
    r"\b(i (do not|don't|cannot|can't) (know|say|tell|help|answer|find)|no (information|idea)|"
    r"not (sure|able to (answer|find))|unable to (answer|find|determine)|"
    r"(cannot|can't) (be )?(answer|determine)|there is no information)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Thresholds:
    """Where verdicts change. ``support``: similarity of claim and evidence; ``coverage``:
    share of the claim's content words in the evidence; ``relevance``: similarity of a
    context sentence to the question."""

    support: float = 0.45
    coverage: float = 0.6
    paraphrase_support: float = 0.6
    paraphrase_coverage: float = 0.3
    short_coverage: float = 0.75
    ambiguous_support: float = 0.35
    relevance: float = 0.55
    relevance_floor: float = 0.1
    relevance_ceiling: float = 0.7


@dataclass(frozen=True)
class Support:
    verdict: str  # supported | unsupported | ambiguous
    reason: str
    score: float
    evidence: str
    source: str


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return max(-1.0, min(1.0, dot)) if math.isfinite(dot) else 0.0


class OfflineJudge(Judge):
    kind: ClassVar[str] = "local"

    def __init__(
        self,
        *,
        thresholds: Thresholds | None = None,
        embedder: LocalEmbedder | None = None,
        entailment: EntailmentModel | None = None,
        nli_threshold: float = 0.5,
    ) -> None:
        shared = embedder or shared_embedder()
        if shared is None:
            raise ImportError(
                "the offline judge needs its extra: pip install torch==2.13.0 "
                "'rag-eval-pytest[local]'"
            )
        self.embedder = shared
        self.thresholds = thresholds or Thresholds()
        self.entailment = entailment
        self.nli_threshold = nli_threshold
        self.model = f"{self.embedder.name} + rules" + (
            f" + {entailment.path.name}" if entailment is not None else ""
        )

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        return question in _ANSWERS

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return await self.embedder.embed(texts)

    async def ask(self, question: Question[Any, Any], inputs: Any) -> JudgeOutcome[Any]:
        answer = _ANSWERS.get(type(question))
        if answer is None:
            return JudgeOutcome.not_judged(f"the offline judge cannot answer {question.name}")
        value = await answer(self, inputs)
        return JudgeOutcome(value=value, agreement=1.0)

    # ------------------------------------------------------------------ support

    async def _passages(self, contexts: list[str]) -> list[tuple[str, str, str]]:
        """(sentence, window, source label) for each context sentence; the window is the
        sentence and the next one, for a claim that spans two. Only sentences are encoded."""
        passages: list[tuple[str, str, str]] = []
        for i, context in enumerate(contexts):
            label = f"context {i + 1}"
            sentences = split_sentences(context) or [context]
            following = [*sentences[1:], ""]
            passages += [
                (s, f"{s} {n}".strip(), label) for s, n in zip(sentences, following, strict=True)
            ]
        return passages

    async def support(
        self, claims: list[str], contexts: list[str], question: str = ""
    ) -> list[Support]:
        """One verdict per claim against all ``contexts``. A short claim ("Mike's Gym in
        Oostzaan") is compared in meaning together with the question it answers."""
        if not claims:
            return []
        passages = await self._passages(contexts)
        if not passages:
            return [Support("unsupported", "the contexts are empty", 0.0, "", "") for _ in claims]
        framed = [
            f"{question} {c}" if question and len(c.split()) < SHORT_CLAIM_WORDS else c
            for c in claims
        ]
        vectors = await self.embed(framed + [p for p, _, _ in passages])
        claim_vectors, passage_vectors = vectors[: len(claims)], vectors[len(claims) :]
        verdicts = [
            self._judge_claim(claim, vector, passages, passage_vectors)
            for claim, vector in zip(claims, claim_vectors, strict=True)
        ]
        if self.entailment is None:
            return verdicts
        return await self._with_entailment(claims, verdicts)

    async def _with_entailment(self, claims: list[str], verdicts: list[Support]) -> list[Support]:
        """The entailment model decides between the rules' verdicts: a number, negation or
        name conflict stays unsupported; otherwise entailment supports and contradiction
        refutes, whatever the similarity said."""
        assert self.entailment is not None
        results = await self.entailment.apredict(
            [(v.evidence, c) for c, v in zip(claims, verdicts, strict=True)]
        )
        final = []
        for verdict, nli in zip(verdicts, results, strict=True):
            if verdict.verdict == "unsupported" and verdict.reason.startswith(_CONFLICTS):
                final.append(verdict)
            elif nli.contradiction > max(nli.entailment, self.nli_threshold):
                reason = (
                    f"the entailment model finds a contradiction (p={nli.contradiction:.2f}) "
                    f"with {verdict.source}"
                )
                final.append(
                    Support("unsupported", reason, verdict.score, verdict.evidence, verdict.source)
                )
            elif nli.entailment >= self.nli_threshold:
                reason = (
                    f"entailed by {verdict.source} (p={nli.entailment:.2f}): "
                    f"{_short(verdict.evidence)}"
                )
                final.append(
                    Support("supported", reason, verdict.score, verdict.evidence, verdict.source)
                )
            else:
                reason = (
                    f"not entailed by the closest passage, {verdict.source} "
                    f"(p={nli.entailment:.2f})"
                )
                final.append(
                    Support("unsupported", reason, verdict.score, verdict.evidence, verdict.source)
                )
        return final

    def _judge_claim(
        self,
        claim: str,
        vector: list[float],
        passages: list[tuple[str, str, str]],
        passage_vectors: list[list[float]],
    ) -> Support:
        t = self.thresholds
        scored = sorted(
            (
                (_cosine(vector, pv), coverage(claim, window), window, label, sentence)
                for (sentence, window, label), pv in zip(passages, passage_vectors, strict=True)
            ),
            key=lambda s: s[0] + s[1],
            reverse=True,
        )
        similarity, covered, text, label, sentence = scored[0]
        score = round((similarity + covered) / 2, 4)
        short = len(claim.split()) < SHORT_CLAIM_WORDS
        # A bare name or phrase ("Garth Brooks") carries no negation of its own to compare.
        phrase = len(claim.split()) < PHRASE_WORDS
        checks = (
            (number_conflict, entity_conflict)
            if phrase
            else (number_conflict, entity_conflict, negation_conflict)
        )
        for check in checks:
            # A negation is judged against the matching sentence alone, not its neighbour.
            problem = check(claim, sentence if check is negation_conflict else text)
            if problem is not None and covered >= 0.3:
                return Support("unsupported", f"{problem} ({label})", score, text, label)
        if short and covered >= t.short_coverage and similarity >= t.ambiguous_support:
            reason = (
                f"supported by {label} ({covered:.0%} of its words, similarity "
                f"{similarity:.2f}): {_short(text)}"
            )
            return Support("supported", reason, score, text, label)
        # A reworded claim may share few words with its source; a short claim may not (it
        # is compared together with its question, which alone makes it look similar).
        reworded = len(claim.split()) >= SHORT_CLAIM_WORDS and (
            similarity >= t.paraphrase_support and covered >= t.paraphrase_coverage
        )
        if (similarity >= t.support and covered >= t.coverage) or reworded:
            reason = (
                f"supported by {label} (similarity {similarity:.2f}, "
                f"{covered:.0%} of its words): {_short(text)}"
            )
            return Support("supported", reason, score, text, label)
        if similarity >= t.ambiguous_support and covered >= t.coverage / 2:
            reason = (
                f"only partly supported: closest is {label} (similarity {similarity:.2f}, "
                f"{covered:.0%} of its words): {_short(text)}"
            )
            return Support("ambiguous", reason, score, text, label)
        reason = (
            f"not found in the contexts: closest is {label} (similarity {similarity:.2f}, "
            f"{covered:.0%} of its words)"
        )
        return Support("unsupported", reason, score, text, label)

    # ------------------------------------------------------------------ the questions

    async def _statements(self, inputs: Any) -> StatementVerdicts:
        claims = claims_of(inputs.answer)
        verdicts = await self.support(claims, inputs.contexts, inputs.question)
        return StatementVerdicts.model_validate(
            {
                "statements": [
                    {"statement": c, "verdict": v.verdict, "reason": v.reason}
                    for c, v in zip(claims, verdicts, strict=True)
                ]
            }
        )

    async def _usefulness(self, inputs: Any) -> ContextVerdicts:
        truths = claims_of(inputs.ground_truth) or [inputs.ground_truth]
        verdicts = []
        for i, context in enumerate(inputs.contexts):
            supports = await self.support(truths, [context])
            hits = [s for s in supports if s.verdict == "supported"]
            reason = (
                f"supports {len(hits)} of {len(truths)} ground-truth statements"
                if hits
                else "supports none of the ground-truth statements"
            )
            verdicts.append({"index": i, "useful": bool(hits), "reason": reason})
        return ContextVerdicts.model_validate({"verdicts": verdicts})

    async def _attribution(self, inputs: Any) -> Attributions:
        supports = await self.support(inputs.ground_truth_sentences, inputs.contexts)
        return Attributions.model_validate(
            {
                "sentences": [
                    {"index": i, "attributed": s.verdict == "supported", "reason": s.reason}
                    for i, s in enumerate(supports)
                ]
            }
        )

    async def _relevance(self, inputs: Any) -> SentenceRelevances:
        sentences = inputs.context_sentences
        if not sentences:
            return SentenceRelevances.model_validate({"sentences": []})
        vectors = await self.embed([inputs.question, *sentences])
        relevant = [_cosine(vectors[0], v) >= self.thresholds.relevance for v in vectors[1:]]
        return SentenceRelevances.model_validate(
            {"sentences": [{"index": i, "relevant": r} for i, r in enumerate(relevant)]}
        )

    async def _direct_relevance(self, inputs: Any) -> DirectRelevance:
        if _NONCOMMITTAL.search(inputs.answer):
            return DirectRelevance(
                score=0.0, noncommittal=True, reason="the answer declines or evades"
            )
        question, answer = await self.embed([inputs.question, inputs.answer])
        similarity = _cosine(question, answer)
        t = self.thresholds
        score = (similarity - t.relevance_floor) / (t.relevance_ceiling - t.relevance_floor)
        score = round(min(1.0, max(0.0, score)), 4)
        return DirectRelevance(
            score=score,
            noncommittal=False,
            reason=f"similarity of answer and question {similarity:.2f}",
        )

    async def _equivalence(self, inputs: Any) -> Equivalence:
        truths = claims_of(inputs.ground_truth) or [inputs.ground_truth]
        said = claims_of(inputs.answer)
        truth_in_answer = await self.support(truths, [inputs.answer])
        answer_in_truth = await self.support(said, [inputs.ground_truth])
        matching = [
            t for t, s in zip(truths, truth_in_answer, strict=True) if s.verdict == "supported"
        ]
        missing = [t for t in truths if t not in matching]
        wrong = [
            a for a, s in zip(said, answer_in_truth, strict=True) if s.verdict == "unsupported"
        ]
        return Equivalence(
            same_information=not missing and not wrong,
            matching_facts=matching,
            missing_facts=missing,
            wrong_or_extra_facts=wrong,
        )


def claims_of(text: str) -> list[str]:
    """The claims of a text: its sentences, without questions and pleasantries."""
    if _NONCOMMITTAL.search(text) and len(split_sentences(text)) <= 1:
        return []
    sentences = split_sentences(text)
    claims = [
        s for s in sentences if not s.endswith("?") and len(re.findall(r"[A-Za-z0-9]+", s)) >= 3
    ]
    if not claims and len(sentences) == 1 and not _PLEASANTRY.match(sentences[0]):
        claims = sentences  # a short answer ("Max Gail", "167,446") is one claim
    return claims


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_ANSWERS: dict[type[Question[Any, Any]], Any] = {
    StatementSupport: OfflineJudge._statements,
    ContextUsefulness: OfflineJudge._usefulness,
    GroundTruthAttribution: OfflineJudge._attribution,
    ContextSentenceRelevance: OfflineJudge._relevance,
    AnswerAddressesQuestion: OfflineJudge._direct_relevance,
    AnswerEquivalence: OfflineJudge._equivalence,
}
