"""Context relevance: how much of what was retrieved holds information the question needs.

The contexts are split into sentences; one verdict per sentence (one judge call): needed to
answer the question or not. A context is relevant when at least one of its sentences is
needed (a passage with one answering sentence among others is relevant, as RAGAS asks
whether the context contains the information needed); score = relevant contexts / all
contexts. Very long retrievals are cut at ``max_sentences`` (default 200) with a warning in
the report; a context none of whose sentences was judged does not count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..judges.questions import ContextSentenceRelevance, RelevanceInput
from ..text.sentences import split_sentences
from .base import Evidence, Measurement, Metric, Requirement
from .judged import ask, context_label, details, empty_contexts, not_judged

if TYPE_CHECKING:
    from .base import Sample, Services


class ContextRelevance(Metric):
    name = "context_relevance"
    default_threshold = 0.5
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "judge"})
    summary = "contexts with a sentence needed to answer / all contexts"
    accepted_params = frozenset({"max_sentences"})

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        assert sample.contexts is not None
        if not sample.contexts:
            return empty_contexts()
        limit = int(self.params.get("max_sentences", 200))
        sentences: list[tuple[str, int]] = [
            (sentence, i)
            for i, context in enumerate(sample.contexts)
            for sentence in split_sentences(context.text)
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
            question=sample.question, context_sentences=[text for text, _ in sentences]
        )
        outcome = await ask(services, ContextSentenceRelevance(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge gave no sentence verdicts")
        verdicts = sorted(outcome.value.sentences, key=lambda v: v.index)
        if not verdicts:
            return not_judged(outcome, "the judge gave no sentence verdicts")
        judged = {sentences[v.index][1] for v in verdicts}
        relevant = {sentences[v.index][1] for v in verdicts if v.relevant}
        needed = sum(v.relevant for v in verdicts)
        contexts = "context" if len(judged) == 1 else "contexts"
        return Measurement(
            score=len(relevant) / len(judged),
            reason=f"{len(relevant)} of {len(judged)} {contexts} with information needed for "
            f"the question ({needed} of {len(verdicts)} sentences needed)",
            evidence=[
                Evidence(
                    kind="context_sentence",
                    text=sentences[v.index][0],
                    verdict="relevant" if v.relevant else "not relevant",
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
        )
