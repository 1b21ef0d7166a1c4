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

from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import ContextSentenceRelevance, RelevanceInput
from ..text.sentences import split_sentences
from ..text.tables import tables_as_sentences
from .base import Evidence, Measurement, Metric, Requirement
from .judged import context_label, details, empty_contexts, not_judged, unsure_listed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..judges.base import Question
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
        # A Markdown table's row is one sentence ("Method: Visa; Fee: none."), not a run of cells.
        sentences: list[tuple[str, int]] = [
            (sentence, i)
            for i, context in enumerate(sample.contexts)
            for sentence in split_sentences(tables_as_sentences(context.text)[0])
        ]
        if not sentences:
            return Measurement(score=0.0, reason="the contexts contain no sentence")
        warnings: list[str] = []
        if len(sentences) > limit:
            warnings.append(
                f"contexts have {len(sentences)} sentences; judged the first {limit} "
                "(max_sentences)"
            )
            sentences = sentences[:limit]
        inputs = RelevanceInput(
            question=sample.question_in_context, context_sentences=[text for text, _ in sentences]
        )
        outcome = await services.ask(ContextSentenceRelevance(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge gave no sentence verdicts")
        listed = outcome.value.sentences
        doubtful = {listed[i].index for i in outcome.unsure if i < len(listed)}
        verdicts = sorted(listed, key=lambda v: v.index)
        if not verdicts:
            return not_judged(outcome, "the judge gave no sentence verdicts")
        # A sentence the judge was unsure of is needed or not: the score is the decided
        # sentences', with the bounds of counting every unsure one as not needed or needed.
        decided = [v for v in verdicts if v.index not in doubtful]
        needed = sum(v.relevant for v in decided)
        low, high = needed / len(verdicts), (needed + len(doubtful)) / len(verdicts)
        score = low if low == high else (needed / len(decided) if decided else None)
        judged = {sentences[v.index][1] for v in verdicts}
        holding = {sentences[v.index][1] for v in decided if v.relevant}
        contexts = "context holds" if len(judged) == 1 else "contexts hold"
        reason = (
            f"{needed} of {len(decided)} context sentences needed for the question "
            f"({len(holding)} of {len(judged)} {contexts} one)"
        )
        if doubtful:
            unsure = [sentences[v.index][0] for v in verdicts if v.index in doubtful]
            reason += unsure_listed(unsure, "sentence")
        return Measurement(
            score=score,
            reason=reason,
            cause="unsure" if score is None else None,
            evidence=[
                Evidence(
                    kind="context_sentence",
                    text=sentences[v.index][0],
                    verdict="unsure"
                    if v.index in doubtful
                    else ("relevant" if v.relevant else "not relevant"),
                    score=v.score,
                    source=context_label(
                        sample.contexts[sentences[v.index][1]], sentences[v.index][1]
                    ),
                )
                for v in verdicts
            ],
            usage=outcome.usage,
            warnings=[*warnings, *outcome.notes],
            details=details(outcome),
            unsure=len(doubtful),
            bounds=(low, high) if low != high else None,
        )
