"""Criteria: a requirement in plain words, written by the test's author, checked by an LLM
judge (DeepEval's G-Eval in spirit).

The judge says how far the answer meets the criterion on a five-step scale, scored
fully 1.0, mostly 0.75, partly 0.5, barely 0.25, not at all 0.0, and quotes the parts of the
answer that break it. Each criterion is its own result, named ``criteria: <name>`` (the name
given, else the criterion shortened), so that several criteria on one case are reported side
by side. The local judge writes no text and cannot read a criterion: with it the metric is
not judged, and says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..judges.questions import CRITERION_SCORES, CriterionCheck, CriterionInput
from ..text.shorten import shorten
from .base import Evidence, Measurement, Metric, Requirement
from .judged import details, not_judged

if TYPE_CHECKING:
    from .base import Sample, Services

_LABEL_CHARS = 60


class Criteria(Metric):
    name = "criteria"
    default_threshold = 0.75
    requires: ClassVar[frozenset[Requirement]] = frozenset({"judge"})
    summary = "how far the answer meets a criterion in plain words (LLM judges)"
    accepted_params = frozenset({"criterion", "name"})

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.criterion = _criterion_of(self.params.get("criterion"))
        self.label = _name_of(self.params.get("name"))

    @property
    def result_name(self) -> str:
        return f"criteria: {self.label or shorten(self.criterion, _LABEL_CHARS)}"

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        judge = services.judge
        assert judge is not None, "metrics requiring a judge are not run without one"
        if not judge.supports(CriterionCheck):
            return Measurement.not_judged(
                f"the judge ({judge.describe()}) cannot check a criterion in plain "
                "words; use an LLM judge (--rag-judge anthropic or openai)",
                cause="unsupported",
            )
        outcome = await services.ask(CriterionCheck(), self._inputs(sample))
        if outcome.value is None:
            return not_judged(outcome, "the judge did not check the criterion")
        verdict = outcome.value
        evidence = [Evidence(kind="quote", text=q, verdict="violates") for q in verdict.violations]
        return Measurement(
            score=CRITERION_SCORES[verdict.meets],
            reason=f"meets the criterion {verdict.meets}: {verdict.reason}".rstrip(": "),
            evidence=evidence,
            usage=outcome.usage,
            warnings=list(outcome.notes),
            details={"criterion": self.criterion, "meets": verdict.meets, **details(outcome)},
        )

    def _inputs(self, sample: Sample) -> CriterionInput:
        return CriterionInput(
            criterion=self.criterion,
            question=sample.question_in_context,
            answer=sample.answer,
            contexts=[c.text for c in sample.contexts or []],
            ground_truth=sample.ground_truth,
        )


def _criterion_of(criterion: object) -> str:
    """The criterion in plain words, its white space collapsed; a missing or empty one is an
    error of the test."""
    if not isinstance(criterion, str) or not criterion.strip():
        raise ValueError(
            "the criteria metric needs the criterion in plain words: "
            'assert_criteria(rag_case, "the answer must ...", threshold=...)'
        )
    return " ".join(criterion.split())


def _name_of(name: object) -> str | None:
    """The criterion's name in the reports, its white space collapsed (``None``: none given);
    an empty one or one that is no text is an error of the test."""
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"a criterion's name must be a non-empty string, got {name!r}")
    return " ".join(name.split()) if isinstance(name, str) else None
