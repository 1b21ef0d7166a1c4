"""A judge with fixed answers and a sample builder, to drive a metric's ``measure`` alone:
no engine, no network, no model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.judges.base import Judge, JudgeOutcome, Question, Usage
from rag_eval_pytest.metrics.base import Measurement, Metric, Sample, Services


class FixedJudge(Judge):
    """Answers each question (by name) with a fixed output or outcome, records what it was
    asked, and supports the question classes given (all when ``supports`` is ``None``)."""

    kind = "fixed"
    model = "test"

    def __init__(
        self,
        answers: dict[str, BaseModel | JudgeOutcome[Any]],
        supports: Sequence[type[Question[Any, Any]]] | None = None,
    ) -> None:
        self.answers = answers
        self.supported = supports
        self.asked: list[tuple[str, Any]] = []

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        return self.supported is None or question in self.supported

    async def ask(self, question: Question[Any, Any], inputs: Any) -> JudgeOutcome[Any]:
        self.asked.append((question.name, inputs))
        answer = self.answers[question.name]
        if isinstance(answer, JudgeOutcome):
            return answer
        return JudgeOutcome(answer, usage=Usage(judge_calls=1, input_tokens=50))


def make_sample(
    *,
    question: str = "When are refunds paid?",
    answer: str = "Refunds are paid within 30 days.",
    ground_truth: str = "Refunds are paid within 30 days.",
    contexts: list[str] | None = None,
    sources: list[str | None] | None = None,
    expected: list[str] | None = None,
    reported_sources: list[str] | None = None,
) -> Sample:
    """A sample; ``sources`` gives each context's source (``None``: it names none)."""
    texts = ["Refunds are paid within 30 days."] if contexts is None else contexts
    names = sources if sources is not None else [None] * len(texts)
    return Sample(
        case_key="tc",
        question=question,
        ground_truth=ground_truth,
        answer=answer,
        contexts=[Context(text=t, source=s) for t, s in zip(texts, names, strict=True)],
        sources=reported_sources or [],
        expected_contexts=expected,
    )


def measure(
    metric: Metric,
    sample: Sample,
    judge: Judge | None = None,
    embed: Callable[[list[str]], Any] | None = None,
) -> Measurement:
    return asyncio.run(metric.measure(sample, Services(judge=judge, embed=embed)))


def embeddings(vectors: dict[str, list[float]]) -> Callable[[list[str]], Any]:
    """An ``embed`` that looks each text's vector up, and records the texts it was given."""
    seen: list[list[str]] = []

    async def embed(texts: list[str]) -> list[list[float]]:
        seen.append(list(texts))
        return [vectors[t] for t in texts]

    embed.seen = seen  # type: ignore[attr-defined]
    return embed
