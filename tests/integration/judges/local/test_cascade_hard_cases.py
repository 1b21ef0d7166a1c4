"""The cascade on the hard cases (benchmarks/data/hard_cases.jsonl) with a perfect LLM tier: a
stand-in that answers every question it is asked as the row's label says. Whatever the local
judge does not decide, pass or fail, goes to the LLM tier, so the cascade is right on every
hard case exactly when no verdict the local judge decided is wrong. How many rows reach the
LLM tier is what the local judge leaves undecided: at most 60 % of them (every context
relevance row among them; `python benchmarks/cascade_hard_cases.py` prints how many)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, ClassVar

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.judges.base import Judge, JudgeOutcome, Question
from rag_eval_pytest.judges.cascade import CascadeJudge
from rag_eval_pytest.judges.local.claims import split_claims
from rag_eval_pytest.judges.questions import (
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
from rag_eval_pytest.metrics.base import MetricResult, Sample, Services
from rag_eval_pytest.metrics.registry import default_threshold, get_metric

HARD_CASES = Path(__file__).parents[4] / "benchmarks" / "data" / "hard_cases.jsonl"


class LabelJudge(Judge):
    """An LLM tier that is always right: it answers each question so that the row's metric
    gives the row's label, and counts the questions it was asked."""

    kind: ClassVar[str] = "labels"

    def __init__(self, label: bool) -> None:
        self.label = label
        self.model = "labels"
        self.asked = 0

    async def ask(self, question: Question[Any, Any], inputs: Any) -> JudgeOutcome[Any]:
        self.asked += 1
        return JudgeOutcome(value=self._answer(question, inputs), agreement=1.0)

    def _answer(self, question: Question[Any, Any], inputs: Any) -> Any:
        yes = self.label
        if isinstance(question, StatementSupport):
            verdict = "supported" if yes else "contradicted"
            claims = split_claims(inputs.answer) or [inputs.answer]
            listed = [{"statement": c, "verdict": verdict, "reason": "label"} for c in claims]
            return StatementVerdicts.model_validate({"statements": listed})
        if isinstance(question, AnswerAddressesQuestion):
            return DirectRelevance(score=1.0 if yes else 0.0, noncommittal=False, reason="label")
        if isinstance(question, ContextSentenceRelevance):
            count = len(inputs.context_sentences)
            listed = [{"index": i, "relevant": yes} for i in range(count)]
            return SentenceRelevances.model_validate({"sentences": listed})
        if isinstance(question, AnswerEquivalence):
            said = [inputs.answer]
            return Equivalence(
                same_information=yes,
                matching_facts=said if yes else [],
                missing_facts=[] if yes else said,
                wrong_or_extra_facts=[] if yes else said,
            )
        if isinstance(question, GroundTruthAttribution):
            count = len(inputs.ground_truth_sentences)
            listed = [{"index": i, "attributed": yes, "reason": "label"} for i in range(count)]
            return Attributions.model_validate({"sentences": listed})
        assert isinstance(question, ContextUsefulness), question
        listed = [
            {"index": i, "useful": yes, "reason": "label"} for i in range(len(inputs.contexts))
        ]
        return ContextVerdicts.model_validate({"verdicts": listed})


def sample_of(row: dict[str, Any]) -> Sample:
    return Sample(
        case_key=row["id"],
        question=row["question"],
        ground_truth=row.get("ground_truth") or "",
        answer=row["answer"],
        contexts=[Context(text=c) for c in row["contexts"]],
        sources=[],
        expected_contexts=None,
    )


def cascade_on(local_judge: Any, rows: list[dict[str, Any]]) -> list[tuple[bool, bool]]:
    """For each row: whether the cascade with a perfect LLM tier is right on it, and whether
    it asked the LLM tier (``benchmarks/cascade_hard_cases.py`` prints the same)."""

    async def one(row: dict[str, Any]) -> tuple[bool, bool]:
        tier = LabelJudge(bool(row["label"]))
        cascade = CascadeJudge(local_judge, tier)
        services = Services(judge=cascade, embed=cascade.embed)
        measured = await measure(get_metric(row["task"]), sample_of(row), services)
        threshold = default_threshold(row["task"])
        result = MetricResult.from_measurement(row["id"], row["task"], measured, threshold)
        return result.passed == bool(row["label"]), tier.asked > 0

    async def every() -> list[tuple[bool, bool]]:
        return list(await asyncio.gather(*(one(row) for row in rows)))

    return asyncio.run(every())


def hard_cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in HARD_CASES.read_text(encoding="utf-8").splitlines()]


def test_with_a_perfect_llm_tier_the_cascade_is_right_on_every_hard_case(local_judge: Any) -> None:
    rows = hard_cases()
    outcomes = cascade_on(local_judge, rows)
    wrong = [row["id"] for row, (right, _) in zip(rows, outcomes, strict=True) if not right]
    assert wrong == []
    asked = sum(llm for _, llm in outcomes)
    assert asked <= 0.60 * len(rows), f"the LLM tier was asked about {asked} of {len(rows)} rows"
