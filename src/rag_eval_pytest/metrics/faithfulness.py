"""Faithfulness: the share of the answer's statements that the contexts support.

The judge splits the answer into standalone statements and gives one verdict per statement
against all contexts, in one call (:class:`~rag_eval_pytest.judges.questions.StatementSupport`).

* ``mode="ragas"`` (default): score = supported / total; "ambiguous" counts as unsupported.
* ``mode="deepeval"``: "ambiguous" (DeepEval's *idk*) counts as faithful unless
  ``penalize_ambiguous=True``.

An answer without statements is *not judged* (not 0, not NaN); contexts ``[]`` score 0 with
that reason; contexts ``None`` (unknown) are not judged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..judges.questions import StatementsInput, StatementSupport, StatementVerdicts
from .base import Evidence, Measurement, Metric, Requirement
from .judged import ask, context_texts, details, empty_contexts, not_judged

if TYPE_CHECKING:
    from .base import Sample, Services

MODES = ("ragas", "deepeval")


class Faithfulness(Metric):
    name = "faithfulness"
    default_threshold = 0.7
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "judge"})
    summary = "supported statements / all statements of the answer"
    accepted_params = frozenset({"mode", "penalize_ambiguous"})

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        mode = self.params.get("mode", "ragas")
        if mode not in MODES:
            raise ValueError(f"faithfulness mode must be one of {MODES}, got {mode!r}")
        self.mode = str(mode)
        self.penalize_ambiguous = bool(self.params.get("penalize_ambiguous", False))

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        contexts = context_texts(sample)
        if not contexts:
            return empty_contexts()
        inputs = StatementsInput(question=sample.question, answer=sample.answer, contexts=contexts)
        outcome = await ask(services, StatementSupport(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge gave no statement verdicts")
        verdicts: StatementVerdicts = outcome.value
        statements = verdicts.statements
        if not statements:
            return Measurement.not_judged(
                "the answer makes no factual statement to check",
                usage=outcome.usage,
                warnings=list(outcome.notes),
            )
        ambiguous_ok = self.mode == "deepeval" and not self.penalize_ambiguous
        good = {"supported", "ambiguous"} if ambiguous_ok else {"supported"}
        faithful = sum(s.verdict in good for s in statements)
        unsupported = len(statements) - faithful
        reason = f"{faithful} of {len(statements)} statements supported by the contexts"
        if unsupported:
            reason += f"; {unsupported} not"
        return Measurement(
            score=faithful / len(statements),
            reason=reason,
            evidence=[
                Evidence(kind="statement", text=s.statement, verdict=s.verdict, reason=s.reason)
                for s in statements
            ],
            usage=outcome.usage,
            warnings=list(outcome.notes),
            details={"mode": self.mode, **details(outcome)},
        )
