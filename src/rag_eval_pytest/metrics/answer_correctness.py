"""Answer correctness: does the answer convey the ground truth's information?

The judge lists the ground-truth facts the answer states (TP), those it lacks (FN) and the
answer's facts that contradict or are absent from the ground truth (FP), and says whether both
convey the same information. Score = F1 over those facts, ``TP / (TP + (FP + FN) / 2)`` (as
RAGAS' factuality part); with no fact listed, 1 when the judge says "same information", else 0.
Runs beside answer_similarity (see the result's ``details.beside``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import AnswerEquivalence, EquivalenceInput
from .base import Evidence, Measurement, Metric, Requirement
from .judged import details, not_judged

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..judges.base import Question
    from .base import Sample, Services


def fact_f1(matching: int, missing: int, wrong: int) -> float | None:
    if matching + missing + wrong == 0:
        return None
    return matching / (matching + 0.5 * (missing + wrong))


class AnswerCorrectness(Metric):
    name = "answer_correctness"
    companion = "answer_similarity"
    default_threshold = 0.7
    requires: ClassVar[frozenset[Requirement]] = frozenset({"ground_truth", "judge"})
    summary = "F1 of the answer's facts against the ground truth's"
    failure_cause = "incorrect_answer"

    def judge_questions(
        self,
        question: str,
        ground_truth: str,
        answer: str,
        contexts: list[str],
        *,
        earlier: Sequence[str] = (),
    ) -> list[tuple[Question[Any, Any], BaseModel]]:
        inputs = EquivalenceInput(question=question, answer=answer, ground_truth=ground_truth)
        return [(AnswerEquivalence(), inputs)]

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        if not sample.answer.strip():
            return Measurement(score=0.0, reason="the answer is empty")
        inputs = EquivalenceInput(
            question=sample.question_in_context,
            answer=sample.answer,
            ground_truth=sample.ground_truth,
        )
        outcome = await services.ask(AnswerEquivalence(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge did not compare the answers")
        eq = outcome.value
        f1 = fact_f1(len(eq.matching_facts), len(eq.missing_facts), len(eq.wrong_or_extra_facts))
        score = f1 if f1 is not None else (1.0 if eq.same_information else 0.0)
        same = "conveys" if eq.same_information else "does not convey"
        evidence = [
            *(Evidence(kind="fact", text=f, verdict="matching") for f in eq.matching_facts),
            *(Evidence(kind="fact", text=f, verdict="missing") for f in eq.missing_facts),
            *(Evidence(kind="fact", text=f, verdict="wrong") for f in eq.wrong_or_extra_facts),
        ]
        return Measurement(
            score=score,
            reason=(
                f"the answer {same} the ground truth's information "
                f"({len(eq.matching_facts)} matching, {len(eq.missing_facts)} missing, "
                f"{len(eq.wrong_or_extra_facts)} wrong or extra facts)"
            ),
            evidence=evidence,
            usage=outcome.usage,
            warnings=list(outcome.notes),
            details={"same_information": eq.same_information, **details(outcome)},
        )
