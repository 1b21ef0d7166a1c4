"""``LocalJudge``: answers the metrics' questions offline, with embeddings and rules.

No LLM and no network: all-MiniLM-L6-v2 (shipped in a PyPI package) finds the context
passage closest to each claim, deterministic checks compare their numbers, dates, negation
and names, and a calibrated score decides (see :mod:`.support`). Every verdict's reason says
why ("claims 30 days; the context says 20 days (context 1: ...)").

It cannot write questions (:class:`GeneratedQuestions`), so answer relevance uses its direct
rating (:mod:`.relevance`); coreference ("it", "they") is not resolved.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from dataclasses import fields, is_dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ...extras import LOCAL_INSTALL
from ...text.sentences import split_sentences
from ...text.tables import tables_as_sentences
from ...text.words import content_words
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
    FactRetentions,
    GroundTruthAttribution,
    SentenceRelevances,
    StatementSupport,
    StatementVerdicts,
    UserFactRetention,
)
from . import trust
from .claims import (
    bare_no,
    compares_two,
    declines,
    split_claims,
    without_particle,
    yes_no_statement,
)
from .embeddings import LocalEmbedder, Vector, shared_embedder
from .facts import plain_form, spelled_out
from .quantities import without_asides
from .relevance import (
    RELEVANCE,
    SENTENCE_RELEVANCE,
    LogisticModel,
    answer_relevance,
    sentence_relevance,
)
from .retention import retention_of
from .support import (
    DEFAULT_CALIBRATION,
    SHORT_CLAIM_WORDS,
    Calibration,
    ClaimSupport,
    Evidence,
    Matrix,
    read_with_question,
)
from .support import judge_claim as _judge_claim

if TYPE_CHECKING:
    from .entailment import EntailmentModel

NOT_INSTALLED = f"the local judge needs its extra: {LOCAL_INSTALL}"
EVIDENCE_KEPT = 64  # contexts whose passages a judge keeps, the most recently used


class LocalJudge(Judge):
    """The offline judge. ``calibration`` overrides the support model and thresholds,
    ``answer_model`` and ``sentence_model`` the relevance models and their unsure bands;
    ``entailment`` adds a local NLI model beside the rules; ``checks_off`` names the checks
    (``judge.local.checks``) that find nothing."""

    kind: ClassVar[str] = "local"
    deterministic = True  # embeddings, rules and the entailment model on the same input

    def __init__(
        self,
        *,
        support_threshold: float | None = None,
        ambiguous_threshold: float | None = None,
        relevance_threshold: float | None = None,
        entailment: EntailmentModel | None = None,
        nli_threshold: float = 0.5,
        device: str = "cpu",
        embedder: LocalEmbedder | None = None,
        calibration: Calibration | None = None,
        embedding_model: str | None = None,
        answer_model: LogisticModel | None = None,
        sentence_model: LogisticModel | None = None,
        checks_off: frozenset[str] = frozenset(),
    ) -> None:
        self.embedder = _embedder(embedder, device, embedding_model)
        self.calibration = _calibrated(
            calibration or DEFAULT_CALIBRATION, support_threshold, ambiguous_threshold
        )
        sentence = sentence_model or SENTENCE_RELEVANCE
        self.relevance_threshold = (
            sentence.support if relevance_threshold is None else relevance_threshold
        )
        # The unsure band of a sentence holds the relevance threshold, whatever it is.
        self.sentence_model = sentence.holding(self.relevance_threshold)
        self.answer_model = answer_model or RELEVANCE
        self.entailment = entailment
        self.nli_threshold = nli_threshold
        self.checks_off = checks_off
        self._evidence: OrderedDict[tuple[str, ...], Evidence] = OrderedDict()
        self.model = f"{self.embedder.name} + rules" + (
            f" + {entailment.name}" if entailment is not None else ""
        )

    def identity(self) -> dict[str, str] | None:
        """The models and the thresholds: each changes verdicts."""
        identity = super().identity()
        if identity is None:
            return None
        return {
            **identity,
            "calibration": stable_repr(self.calibration),
            "thresholds": f"relevance={self.relevance_threshold!r} nli={self.nli_threshold!r}",
            "relevance": f"answer={stable_repr(self.answer_model)} "
            f"sentence={stable_repr(self.sentence_model)}",
            **({"checks_off": ",".join(sorted(self.checks_off))} if self.checks_off else {}),
        }

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        return question in _ANSWERS

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return await self.embedder.embed(texts)

    async def ask(self, question: Question[Any, Any], inputs: Any) -> JudgeOutcome[Any]:
        answer = _ANSWERS.get(type(question))
        if answer is None:
            return JudgeOutcome(
                value=None,
                reason=f"the local judge cannot answer {question.name} (it writes no text)",
                unsupported=True,
            )
        value = await answer(self, inputs)
        unsure: tuple[int, ...] = ()
        if isinstance(value, tuple):  # (the answer, the items it is unsure of)
            value, unsure = value
        return JudgeOutcome(value=value, agreement=1.0, unsure=unsure)

    # ------------------------------------------------------------------ support

    async def support(
        self, claims: list[str], contexts: list[str], question: str = ""
    ) -> list[ClaimSupport]:
        """One verdict per claim against all ``contexts`` (one encoder call for all texts)."""
        if not claims:
            return []
        claims, evidence, claim_vectors, question = await self.read(claims, contexts, question)
        verdicts = [
            _judge_claim(claim, vector, evidence, self.calibration, question, self.checks_off)
            for claim, vector in zip(claims, claim_vectors, strict=True)
        ]
        if self.entailment is None:
            return verdicts
        from .entailment import combine

        return await combine(self.entailment, claims, verdicts, self.nli_threshold)

    async def read(
        self, claims: list[str], contexts: list[str], question: str = ""
    ) -> tuple[list[str], Evidence, list[Vector], str]:
        """The claims as checked, the contexts' passages, one vector per claim and the
        question, from one encoder call. A short claim ("Mike's Gym in Oostzaan") is compared
        in meaning together with the question it answers: its vector is the question's and
        its own, weighted by their words (the question is encoded once, not once per
        answer)."""
        contexts, rows = _read_contexts(contexts)
        question = plain_form(question)
        # "0 degrees Celsius (32 degrees Fahrenheit)" states one fact: the aside restates it.
        # "The US" is "the United States" where a context spells it out.
        joined = "\n".join(contexts)
        claims = [spelled_out(without_asides(plain_form(c)), joined) for c in claims]
        short = _short(claims, question)
        asked = [question] if any(short) else []
        key = tuple(contexts)
        evidence = self._kept(key)
        sentences = _sentences_of(contexts) if evidence is None else []
        flat = list(itertools.chain.from_iterable(sentences))
        vectors = await self.embedder.vectors(claims + asked + flat)
        claim_vectors = _claim_vectors(claims, question, short, vectors)
        if evidence is None:
            rest = vectors[len(claims) + len(asked) :]
            built = Evidence.build(contexts, sentences, _per_context(sentences, rest), alone=rows)
            evidence = self._keep(key, built)
        return claims, evidence, claim_vectors, question

    def _kept(self, key: tuple[str, ...]) -> Evidence | None:
        """The passages of these contexts, if the judge keeps them (now the most recently
        used)."""
        evidence = self._evidence.get(key)
        if evidence is not None:
            self._evidence.move_to_end(key)
        return evidence

    def _keep(self, key: tuple[str, ...], evidence: Evidence) -> Evidence:
        """Keep the passages of these contexts: cases that share their contexts (one
        document, several answers) share its passages, their vectors and their words."""
        self._evidence[key] = evidence
        if len(self._evidence) > EVIDENCE_KEPT:
            self._evidence.popitem(last=False)
        return evidence

    # ------------------------------------------------------------------ the questions

    async def statement_support(
        self, answer: str, contexts: list[str], question: str
    ) -> tuple[list[str], list[ClaimSupport]]:
        """The statements of an answer and their verdicts, as faithfulness reads them."""
        claims = statements_of(answer, question)
        verdicts = await self.support(claims, contexts, question)
        if not self.calibration.decides_all:  # a judge with bands leaves these unsure
            negative = bare_no(answer)
            verdicts = [
                _left_unsure(c, v, question, negative)
                for c, v in zip(claims, verdicts, strict=True)
            ]
        return claims, verdicts

    async def _statements(self, inputs: Any) -> tuple[StatementVerdicts, tuple[int, ...]]:
        claims, verdicts = await self.statement_support(
            inputs.answer, inputs.contexts, inputs.question
        )
        statements = StatementVerdicts.model_validate(
            {
                "statements": [
                    {"statement": c, "verdict": v.verdict, "reason": v.reason}
                    for c, v in zip(claims, verdicts, strict=True)
                ]
            }
        )
        return statements, tuple(i for i, v in enumerate(verdicts) if v.unsure)

    async def _usefulness(self, inputs: Any) -> tuple[ContextVerdicts, tuple[int, ...]]:
        """A context is useful when it supports a ground-truth statement; unsure when it
        supports none for sure but may support one it is unsure of."""
        truths = split_claims(inputs.ground_truth) or [inputs.ground_truth]
        verdicts = []
        unsure = []
        for i, context in enumerate(inputs.contexts):
            supports = await self.support(truths, [context], inputs.question)
            useful, reason, doubtful = _usefulness_of(truths, supports)
            if doubtful:
                unsure.append(i)
            verdicts.append({"index": i, "useful": useful, "reason": reason})
        return ContextVerdicts.model_validate({"verdicts": verdicts}), tuple(unsure)

    async def _attribution(self, inputs: Any) -> tuple[Attributions, tuple[int, ...]]:
        supports = await self.support(
            inputs.ground_truth_sentences, inputs.contexts, inputs.question
        )
        attributions = Attributions.model_validate(
            {
                "sentences": [
                    {"index": i, "attributed": _supported(s), "reason": s.reason}
                    for i, s in enumerate(supports)
                ]
            }
        )
        return attributions, tuple(i for i, s in enumerate(supports) if s.unsure)

    async def _relevance(self, inputs: Any) -> tuple[SentenceRelevances, tuple[int, ...]]:
        sentences = [plain_form(s) for s in inputs.context_sentences]
        if not sentences:
            return SentenceRelevances.model_validate({"sentences": []}), ()
        question = plain_form(inputs.question)
        vectors = await self.embedder.vectors([question, *sentences])
        model = self.sentence_model
        scores = sentence_relevance(question, sentences, vectors[0], vectors[1:], model)
        verdicts = SentenceRelevances.model_validate(
            {
                "sentences": [
                    {
                        "index": i,
                        "relevant": score.relevant(self.relevance_threshold),
                        "score": score.shown(self.relevance_threshold),
                    }
                    for i, score in enumerate(scores)
                ]
            }
        )
        unsure = tuple(i for i, score in enumerate(scores) if score.unsure(self.sentence_model))
        return verdicts, unsure

    async def _direct_relevance(self, inputs: Any) -> tuple[DirectRelevance, tuple[int, ...]]:
        if declines(inputs.answer):
            reason = "the answer declines or evades"
            if not self.answer_model.doubts(trust.DECLINES):
                return DirectRelevance(score=0.0, noncommittal=True, reason=reason), ()
            reason = f"{trust.doubt_reason(trust.DECLINES)}: {reason}"
            evades = DirectRelevance(score=0.0, noncommittal=True, reason=reason, bounds=(0, 1))
            return evades, (0,)
        asked, said = plain_form(inputs.question), plain_form(inputs.answer)
        question, answer = await self.embedder.vectors([asked, said])
        rating = answer_relevance(asked, said, question, answer, self.answer_model)
        rated = DirectRelevance(
            score=rating.score, noncommittal=False, reason=rating.reason, bounds=rating.bounds
        )
        return rated, (0,) if rating.unsure else ()

    async def _equivalence(self, inputs: Any) -> tuple[Equivalence, tuple[int, ...]]:
        truths = split_claims(inputs.ground_truth) or [inputs.ground_truth]
        said = split_claims(inputs.answer)
        truth_in_answer = await self.support(truths, [inputs.answer], inputs.question)
        truth = _with_its_question(inputs.ground_truth, inputs.question)
        answer_in_truth = await self.support(said, [truth], inputs.question)
        matching, missing = _parted(list(zip(truths, truth_in_answer, strict=True)))
        _, wrong = _parted(list(zip(said, answer_in_truth, strict=True)))
        return _equivalent(matching, missing, wrong)

    async def _retention(self, inputs: Any) -> tuple[FactRetentions, tuple[int, ...]]:
        return retention_of(inputs)


def _embedder(
    embedder: LocalEmbedder | None, device: str, embedding_model: str | None
) -> LocalEmbedder:
    """The embedder given, else the one this process shares (``ImportError`` without the
    local extra)."""
    shared = embedder or shared_embedder(device, embedding_model)
    if shared is None:
        raise ImportError(NOT_INSTALLED)
    return shared


def _calibrated(
    base: Calibration, support_threshold: float | None, ambiguous_threshold: float | None
) -> Calibration:
    """The calibration with the thresholds given: a low support threshold lowers the
    ambiguous one too, and the unsure band holds the support threshold, whatever it is."""
    support = base.support if support_threshold is None else support_threshold
    ambiguous = min(base.ambiguous, support) if ambiguous_threshold is None else ambiguous_threshold
    if ambiguous > support:
        raise ValueError("the ambiguous threshold must not exceed the support threshold")
    band = base.unsure
    if band is not None:
        band = (min(band[0], support), max(band[1], support))
    return replace(base, support=support, ambiguous=ambiguous, unsure=band)


def _read_contexts(contexts: list[str]) -> tuple[list[str], frozenset[str]]:
    """The contexts as the judge reads them, each table a sentence per row, and the rows.
    Text from PDFs and web pages may spell a word in several ways (see plain_form)."""
    read = [tables_as_sentences(plain_form(c)) for c in contexts]
    return [text for text, _ in read], frozenset().union(*(row for _, row in read))


def _short(claims: list[str], question: str) -> list[bool]:
    """Which claims are short enough to be read with their question."""
    return [bool(question) and len(c.split()) < SHORT_CLAIM_WORDS for c in claims]


def _sentences_of(contexts: list[str]) -> list[list[str]]:
    """The sentences of each context (a context without a sentence's end is one)."""
    return [split_sentences(c) or ([c] if c.strip() else []) for c in contexts]


def _claim_vectors(
    claims: list[str], question: str, short: list[bool], vectors: list[Vector]
) -> list[Vector]:
    """One vector per claim, a short one's read with the question (the vector after the
    claims')."""
    own = vectors[: len(claims)]
    return [
        read_with_question(vector, vectors[len(claims)], claim, question) if framed else vector
        for claim, vector, framed in zip(claims, own, short, strict=True)
    ]


def _per_context(sentences: list[list[str]], vectors: list[Vector]) -> list[Matrix]:
    """The sentence vectors of each context, one matrix each."""
    per_context = []
    offset = 0
    for parts in sentences:
        chunk = vectors[offset : offset + len(parts)]
        per_context.append(np.vstack(chunk) if chunk else np.zeros((0, 384), np.float32))
        offset += len(parts)
    return per_context


def _supported(verdict: ClaimSupport) -> bool:
    return verdict.verdict == "supported"


def _usefulness_of(truths: list[str], supports: list[ClaimSupport]) -> tuple[bool, str, bool]:
    """(whether a context is useful, why, whether that is unsure): useful when it supports
    a ground-truth statement; unsure when it supports none for sure but may support one it
    is unsure of."""
    hits = [t for t, s in zip(truths, supports, strict=True) if _supported(s)]
    reason = _hits_reason(hits, truths) if hits else _misses_reason(supports)
    if _only_maybe(supports):
        return bool(hits), f"unsure (of a statement it may support): {reason}", True
    return bool(hits), reason, False


def _hits_reason(hits: list[str], truths: list[str]) -> str:
    reason = f"supports {len(hits)} of {len(truths)} ground-truth statements"
    if len(hits) < len(truths) or len(truths) == 1:
        reason += f": {hits[0]}"
    return reason


def _misses_reason(supports: list[ClaimSupport]) -> str:
    best = max(supports, key=lambda s: s.score)
    return f"supports none of the ground-truth statements (best score {best.score:.2f})"


def _only_maybe(supports: list[ClaimSupport]) -> bool:
    """Whether the context supports no statement for sure, but may support one the judge
    is unsure of."""
    sure = any(_supported(s) and not s.unsure for s in supports)
    return not sure and any(s.unsure for s in supports)


def _with_its_question(ground_truth: str, question: str) -> str:
    """A ground truth that only gives what a "how long", "who" or "what" question asks
    ("Two years.") states its fact together with the question: the answer's sentence ("The
    warranty lasts 2 years.") repeats the question's words, not facts of its own."""
    return f"{question} {ground_truth}" if _fragment_of(ground_truth, question) else ground_truth


_Paired = list[tuple[str, ClaimSupport]]


def _parted(pairs: _Paired) -> tuple[_Paired, _Paired]:
    """(the statements supported, those not), each with its verdict."""
    return [p for p in pairs if _supported(p[1])], [p for p in pairs if not _supported(p[1])]


def _equivalent(
    matching: _Paired, missing: _Paired, wrong: _Paired
) -> tuple[Equivalence, tuple[int, ...]]:
    """The equivalence, and the facts it is unsure of, in the order the metric lists them:
    matching, missing, wrong or extra."""
    equivalence = Equivalence(
        same_information=not missing and not wrong,
        matching_facts=[t for t, _ in matching],
        missing_facts=[t for t, _ in missing],
        wrong_or_extra_facts=[a for a, _ in wrong],
    )
    return equivalence, _unsure_items([*matching, *missing, *wrong])


def _unsure_items(listed: _Paired) -> tuple[int, ...]:
    return tuple(i for i, (_, s) in enumerate(listed) if s.unsure)


def _fragment_of(ground_truth: str, question: str) -> bool:
    """Whether ``ground_truth`` only gives what its question asks: fewer words than a short
    claim, none of the question's ("Two years." for "How long is the warranty?", where
    "Humans exhale carbon dioxide." restates "Which gas do humans exhale?"), and a question
    that asserts nothing itself (not a yes/no question, whose words may be the premise the
    ground truth denies)."""
    short = len(ground_truth.split()) < SHORT_CLAIM_WORDS
    apart = not content_words(ground_truth) & content_words(question)
    return short and apart and bool(question) and yes_no_statement("Yes.", question) is None


def _left_unsure(claim: str, verdict: ClaimSupport, question: str, negative: bool) -> ClaimSupport:
    """The verdict, unsure where the rules cannot tell whatever the score: a comparison of
    two things holds only by putting two facts together; a bare "No." that no context states
    or contradicts ("Can it be taken online?" against "taught in person only") only by
    reading what the contexts leave out."""
    if verdict.unsure:
        return verdict
    if compares_two(claim, question):
        basis = trust.COMPARISON
    elif negative and verdict.verdict == "not mentioned":
        basis = trust.BARE_NO
    else:
        return verdict
    reason = f"unsure ({basis}): {verdict.reason}"
    return replace(verdict, unsure=True, reason=reason, basis=basis)


def statements_of(answer: str, question: str) -> list[str]:
    """The statements of an answer whose support the judge checks: its claims, a bare "Yes."
    or "No." read as the proposition of the yes/no question it answers; without a yes/no
    question such an answer states nothing that can be checked. A "Yes," or "No," before a
    statement of its own is left out of it, but for a question comparing two things, where
    the answer's yes or no is the comparison."""
    claims = []
    comparing = compares_two("both", question)  # "Are A and B both ...?": the "No" is a claim
    for claim in split_claims(answer):
        if not comparing:  # "No, guest parking costs $10 per night.": the rest is the claim
            claim = without_particle(claim)
        stated = yes_no_statement(claim, question)
        if stated is not None:
            claims.append(stated)
        elif yes_no_statement(claim, "Is it so?") is None:
            claims.append(claim)
    return claims


_ANSWERS: dict[type[Question[Any, Any]], Any] = {
    StatementSupport: LocalJudge._statements,
    ContextUsefulness: LocalJudge._usefulness,
    GroundTruthAttribution: LocalJudge._attribution,
    ContextSentenceRelevance: LocalJudge._relevance,
    AnswerAddressesQuestion: LocalJudge._direct_relevance,
    AnswerEquivalence: LocalJudge._equivalence,
    UserFactRetention: LocalJudge._retention,
}

__all__ = ["LocalJudge"]


def stable_repr(value: object) -> str:
    """``repr`` written the same in every process: a set's items sorted (a set's own order
    follows the process's hash seed, and an identity that moves from run to run shares no
    cache entry and no baseline with the run before)."""
    if is_dataclass(value) and not isinstance(value, type):
        parts = ", ".join(f"{f.name}={stable_repr(getattr(value, f.name))}" for f in fields(value))
        return f"{type(value).__name__}({parts})"
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(repr(item) for item in value)) + "}"
    return repr(value)
