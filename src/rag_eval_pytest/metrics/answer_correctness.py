"""Answer correctness: does the answer convey the ground truth's information?

The judge lists the ground-truth facts the answer states (TP), those it lacks (FN) and the
answer's facts that contradict or are absent from the ground truth (FP), and says whether both
convey the same information. Score = F1 over those facts, ``TP / (TP + (FP + FN) / 2)`` (as
RAGAS' factuality part); with no fact listed, 1 when the judge says "same information", else 0.
Facts the judge was unsure of (the local judge's unsure band) are left out of the score and
counted both ways in its bounds: against the answer (missing, wrong) and for it (found, not
wrong). Runs beside answer_similarity (see the result's ``details.beside``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import AnswerEquivalence, Equivalence, EquivalenceInput
from .base import Evidence, Measurement, Metric, Requirement
from .judged import details, not_judged, unsure_listed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..judges.base import JudgeOutcome, Question
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
        return _measurement(outcome.value, outcome)


Facts = list[tuple[str, str]]
"""Each fact the judge listed, with its kind: ``matching``, ``missing`` or ``wrong``."""


def _measurement(eq: Equivalence, outcome: JudgeOutcome[Any]) -> Measurement:
    listed = _listed_facts(eq)
    unsure = set(outcome.unsure)
    score, bounds = _scored(eq, listed, unsure)
    return Measurement(
        score=score,
        reason=_reason(eq, listed, unsure),
        cause="unsure" if score is None else None,
        evidence=[
            Evidence(kind="fact", text=f, verdict="unsure" if i in unsure else kind)
            for i, (kind, f) in enumerate(listed)
        ],
        usage=outcome.usage,
        warnings=list(outcome.notes),
        details={"same_information": eq.same_information, **details(outcome)},
        unsure=len(unsure),
        bounds=bounds,
    )


def _listed_facts(eq: Equivalence) -> Facts:
    return [
        *(("matching", f) for f in eq.matching_facts),
        *(("missing", f) for f in eq.missing_facts),
        *(("wrong", f) for f in eq.wrong_or_extra_facts),
    ]


def _scored(
    eq: Equivalence, listed: Facts, unsure: set[int]
) -> tuple[float | None, tuple[float, float] | None]:
    """The F1 of the decided facts, and its bounds where the unsure facts could move it;
    the bound itself when they could not."""
    decided, doubtful = _counted(listed, unsure)
    score = _score(eq, listed, decided)
    bounds = _bounds(decided, doubtful) if unsure else None
    if bounds is not None and bounds[0] == bounds[1]:
        return bounds[0], None
    return score, bounds


def _counted(listed: Facts, unsure: set[int]) -> tuple[Counter[str], Counter[str]]:
    """How many facts of each kind the judge decided, and how many it was unsure of."""
    decided = Counter(kind for i, (kind, _) in enumerate(listed) if i not in unsure)
    doubtful = Counter(kind for i, (kind, _) in enumerate(listed) if i in unsure)
    return decided, doubtful


def _score(eq: Equivalence, listed: Facts, decided: Counter[str]) -> float | None:
    """The F1 of the decided facts; with no fact listed, whether the judge says the answer
    conveys the same information."""
    if not listed:
        return 1.0 if eq.same_information else 0.0
    return fact_f1(decided["matching"], decided["missing"], decided["wrong"])


def _reason(eq: Equivalence, listed: Facts, unsure: set[int]) -> str:
    same = "conveys" if eq.same_information else "does not convey"
    reason = (
        f"the answer {same} the ground truth's information "
        f"({len(eq.matching_facts)} matching, {len(eq.missing_facts)} missing, "
        f"{len(eq.wrong_or_extra_facts)} wrong or extra facts)"
    )
    if unsure:
        reason += unsure_listed([listed[i][1] for i in sorted(unsure)], "fact")
    return reason


def _bounds(decided: Counter[str], doubtful: Counter[str]) -> tuple[float, float]:
    """The score with every unsure fact against the answer (a ground-truth fact missing, an
    answer's fact wrong) and with every one for it (found, not wrong)."""
    low = fact_f1(
        decided["matching"],
        decided["missing"] + doubtful["matching"] + doubtful["missing"],
        decided["wrong"] + doubtful["wrong"],
    )
    high = fact_f1(
        decided["matching"] + doubtful["matching"] + doubtful["missing"],
        decided["missing"],
        decided["wrong"],
    )
    return (low or 0.0, 1.0 if high is None else high)
