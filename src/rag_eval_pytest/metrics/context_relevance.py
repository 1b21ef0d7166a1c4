"""Context relevance: how much of what was retrieved is needed to answer the question.

The contexts are split into sentences; one verdict per sentence (one judge call): needed to
answer the question or not. Score = relevant sentences / all judged sentences (a passage with
one answering sentence of three scores 0.33); the reason also says how many contexts hold a
needed sentence. A sentence the judge was unsure of (the local judge's unsure band) counts
neither way: the score is the decided sentences', with the bounds of counting every unsure
one as not needed or needed, and a verdict between them follows ``judge.local.unsure``.
Very long retrievals are cut at ``max_sentences`` (default 200) with a warning in the report.

The default threshold, 0.1 (at least one sentence in ten needed), was chosen on the tune half
of TREC DL passages (``benchmarks/judge_accuracy.py --split tune --fit``): the highest
threshold with the best balanced accuracy of this score (0.72; 0.64 at 0.5). It passes a
passage with one answering sentence among unrelated ones; a retrieval of many contexts with
one answering sentence among more than ten scores below it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import ContextSentenceRelevance, RelevanceInput, SentenceRelevance
from ..text.sentences import split_sentences
from ..text.tables import tables_as_sentences
from .base import Evidence, Measurement, Metric, Requirement
from .judged import context_label, details, empty_contexts, not_judged, unsure_listed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..data.response import Context
    from ..judges.base import JudgeOutcome, Question
    from .base import Sample, Services


class ContextRelevance(Metric):
    name = "context_relevance"
    default_threshold = 0.1
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "judge"})
    summary = "context sentences needed to answer / all context sentences"
    failure_cause = "ranking"
    accepted_params = frozenset({"max_sentences"})

    def judge_questions(
        self,
        question: str,
        ground_truth: str,
        answer: str,
        contexts: list[str],
        *,
        earlier: Sequence[str] = (),
    ) -> list[tuple[Question[Any, Any], BaseModel]]:
        inputs = RelevanceInput(question=question, context_sentences=contexts)
        return [(ContextSentenceRelevance(), inputs)]

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        assert sample.contexts is not None
        if not sample.contexts:
            return empty_contexts()
        limit = int(self.params.get("max_sentences", 200))
        sentences = _context_sentences(sample.contexts)
        if not sentences:
            return Measurement(score=0.0, reason="the contexts contain no sentence")
        sentences, warnings = _cut(sentences, limit)
        outcome = await services.ask(
            ContextSentenceRelevance(), _inputs(sample.question_in_context, sentences)
        )
        if outcome.value is None or not outcome.value.sentences:
            return not_judged(outcome, "the judge gave no sentence verdicts")
        verdicts = _Verdicts.of(outcome.value.sentences, outcome.unsure, sentences)
        return verdicts.measurement(sample.contexts, outcome, warnings)


Sentences = list[tuple[str, int]]
"""Each context sentence, with the position of its context."""


def _context_sentences(contexts: list[Context]) -> Sentences:
    # A Markdown table's row is one sentence ("Method: Visa; Fee: none."), not a run of cells.
    return [
        (sentence, i)
        for i, context in enumerate(contexts)
        for sentence in split_sentences(tables_as_sentences(context.text)[0])
    ]


def _cut(sentences: Sentences, limit: int) -> tuple[Sentences, list[str]]:
    """The first ``limit`` sentences, with a warning when there were more."""
    if len(sentences) <= limit:
        return sentences, []
    warning = f"contexts have {len(sentences)} sentences; judged the first {limit} (max_sentences)"
    return sentences[:limit], [warning]


def _inputs(question: str, sentences: Sentences) -> RelevanceInput:
    return RelevanceInput(question=question, context_sentences=[text for text, _ in sentences])


def _bounded_score(
    needed: int, decided: int, unsure: int, judged: int
) -> tuple[float | None, tuple[float, float] | None]:
    """The share of the decided sentences needed, and its bounds (every unsure sentence not
    needed, or needed) where they differ; the share of all when they do not."""
    low, high = needed / judged, (needed + unsure) / judged
    if low == high:
        return low, None
    return (needed / decided if decided else None), (low, high)


@dataclass(frozen=True)
class _Verdicts:
    """The judge's sentence verdicts, in the order of the sentences, and the indexes of the
    sentences it was unsure of (the local judge's unsure band)."""

    sentences: Sentences
    verdicts: list[SentenceRelevance]
    doubtful: set[int]

    @classmethod
    def of(
        cls, listed: list[SentenceRelevance], unsure: tuple[int, ...], sentences: Sentences
    ) -> _Verdicts:
        doubtful = {listed[i].index for i in unsure if i < len(listed)}
        return cls(sentences, sorted(listed, key=lambda v: v.index), doubtful)

    def measurement(
        self, contexts: list[Context], outcome: JudgeOutcome[Any], warnings: list[str]
    ) -> Measurement:
        # A sentence the judge was unsure of is needed or not: the score is the decided
        # sentences', with the bounds of counting every unsure one as not needed or needed.
        decided = [v for v in self.verdicts if v.index not in self.doubtful]
        needed = sum(v.relevant for v in decided)
        judged = len(self.verdicts)
        score, bounds = _bounded_score(needed, len(decided), len(self.doubtful), judged)
        return Measurement(
            score=score,
            reason=self.reason(needed, decided),
            cause="unsure" if score is None else None,
            evidence=[self.evidence(v, contexts) for v in self.verdicts],
            usage=outcome.usage,
            warnings=[*warnings, *outcome.notes],
            details=details(outcome),
            unsure=len(self.doubtful),
            bounds=bounds,
        )

    def reason(self, needed: int, decided: list[SentenceRelevance]) -> str:
        judged = {self.sentences[v.index][1] for v in self.verdicts}
        holding = {self.sentences[v.index][1] for v in decided if v.relevant}
        contexts = "context holds" if len(judged) == 1 else "contexts hold"
        return (
            f"{needed} of {len(decided)} context sentences needed for the question "
            f"({len(holding)} of {len(judged)} {contexts} one)"
        ) + self.unsure_listed()

    def unsure_listed(self) -> str:
        if not self.doubtful:
            return ""
        unsure = [self.sentences[v.index][0] for v in self.verdicts if v.index in self.doubtful]
        return unsure_listed(unsure, "sentence")

    def evidence(self, verdict: SentenceRelevance, contexts: list[Context]) -> Evidence:
        text, position = self.sentences[verdict.index]
        return Evidence(
            kind="context_sentence",
            text=text,
            verdict=self.verdict_word(verdict),
            score=verdict.score,
            source=context_label(contexts[position], position),
        )

    def verdict_word(self, verdict: SentenceRelevance) -> str:
        if verdict.index in self.doubtful:
            return "unsure"
        return "relevant" if verdict.relevant else "not relevant"
