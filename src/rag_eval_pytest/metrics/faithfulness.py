"""Faithfulness: the share of the answer's statements that the contexts support.

The judge splits the answer into standalone statements and gives one three-way verdict per
statement against all contexts, in one call
(:class:`~rag_eval_pytest.judges.questions.StatementSupport`): supported, contradicted or not
mentioned.

* ``mode="ragas"`` (default): score = supported / total; everything not supported counts
  against.
* ``mode="deepeval"``: only a contradiction is unfaithful; "not mentioned" (DeepEval's *idk*)
  counts as faithful unless ``penalize_ambiguous=True``.

A two-way judge's "no" (``unsupported``: not supported, without saying whether contradicted)
is unfaithful in both modes.

An answer without statements is *not judged* (not 0, not NaN); contexts ``[]`` score 0 with
that reason; contexts ``None`` (unknown) are not judged.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import (
    StatementsInput,
    StatementSupport,
    StatementVerdict,
    StatementVerdicts,
)
from ..text.spans import statement_spans
from .base import Evidence, Measurement, Metric, Requirement
from .judged import context_texts, details, empty_contexts, not_judged, unsure_listed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..judges.base import Question
    from ..text.spans import Span
    from .base import Sample, Services

MODES = ("ragas", "deepeval")


class Faithfulness(Metric):
    name = "faithfulness"
    default_threshold = 0.7
    requires: ClassVar[frozenset[Requirement]] = frozenset({"contexts", "judge"})
    summary = "supported statements / all statements of the answer"
    failure_cause = "unsupported_answer"
    accepted_params = frozenset({"mode", "penalize_ambiguous"})

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        mode = self.params.get("mode", "ragas")
        if mode not in MODES:
            raise ValueError(f"faithfulness mode must be one of {MODES}, got {mode!r}")
        self.mode = str(mode)
        self.penalize_ambiguous = bool(self.params.get("penalize_ambiguous", False))

    def judge_questions(
        self,
        question: str,
        ground_truth: str,
        answer: str,
        contexts: list[str],
        *,
        earlier: Sequence[str] = (),
    ) -> list[tuple[Question[Any, Any], BaseModel]]:
        inputs = StatementsInput(question=question, answer=answer, contexts=contexts)
        return [(StatementSupport(), inputs)]

    @property
    def _lenient(self) -> bool:
        """DeepEval's reading: only a contradiction counts against the answer."""
        return self.mode == "deepeval" and not self.penalize_ambiguous

    @property
    def _good(self) -> set[str]:
        return {"supported", "not mentioned"} if self._lenient else {"supported"}

    def score_of(self, question: Question[Any, Any], answer: Any) -> float | None:
        if not isinstance(answer, StatementVerdicts) or not answer.statements:
            return None
        return sum(s.verdict in self._good for s in answer.statements) / len(answer.statements)

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        contexts = context_texts(sample)
        if not contexts:
            return empty_contexts()
        inputs = StatementsInput(
            question=sample.question_in_context, answer=sample.answer, contexts=contexts
        )
        outcome = await services.ask(StatementSupport(), inputs)
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
        lenient = self._lenient
        good = self._good
        unsure = set(outcome.unsure)
        decided = [s for i, s in enumerate(statements) if i not in unsure]
        doubtful = [s for i, s in enumerate(statements) if i in unsure]
        faithful = sum(s.verdict in good for s in decided)
        # An unsure statement may be any verdict but the one it leans to: one that leans to
        # supported or not mentioned changes the score only where "not mentioned" counts
        # against; one that leans to contradicted may be either.
        leaning = sum(s.verdict in good for s in doubtful) if lenient else 0
        low = (faithful + leaning) / len(statements)
        high = (faithful + len(doubtful)) / len(statements)
        reason = _reason(decided, faithful, lenient)
        if doubtful:
            reason += unsure_listed([s.statement for s in doubtful], "claim")
        if low == high:  # the unsure statements count the same either way
            score: float | None = low
        else:
            score = faithful / len(decided) if decided else None
        # The statements that count against the score, placed in the answer for the reports
        # and the failure message to mark; those not found there are listed, never guessed.
        against = [i for i, s in enumerate(statements) if i not in unsure and s.verdict not in good]
        found = statement_spans(sample.answer, [statements[i].statement for i in against])
        spans = dict(zip(against, found, strict=True))
        unmatched = [statements[i].statement for i in against if spans[i] is None]
        return Measurement(
            score=score,
            reason=reason,
            cause="unsure" if score is None else None,
            evidence=[
                Evidence(
                    kind="statement",
                    text=s.statement,
                    verdict="unsure" if i in unsure else s.verdict,
                    reason=s.reason,
                    **_offsets(spans.get(i)),
                )
                for i, s in enumerate(statements)
            ],
            usage=outcome.usage,
            warnings=list(outcome.notes),
            details={
                "mode": self.mode,
                **details(outcome),
                **({"unmatched": unmatched} if unmatched else {}),
            },
            unsure=len(doubtful),
            bounds=(low, high) if low != high else None,
        )


def _offsets(span: Span | None) -> dict[str, int]:
    return {} if span is None else {"start": span.start, "end": span.end}


def _reason(statements: list[StatementVerdict], faithful: int, lenient: bool) -> str:
    if not statements:
        return "no statement decided"
    """How many statements count, and how many of each other verdict: "2 of 4 statements
    supported by the contexts; 1 contradicted, 1 not mentioned"."""
    counts: Counter[str] = Counter(s.verdict for s in statements)
    total = len(statements)
    if lenient:
        reason = (
            f"{faithful} of {total} statements not contradicted by the contexts "
            f"({counts['supported']} supported, {counts['not mentioned']} not mentioned)"
        )
        others: tuple[str, ...] = ("contradicted", "unsupported")
    else:
        reason = f"{counts['supported']} of {total} statements supported by the contexts"
        others = ("contradicted", "not mentioned", "unsupported")
    shown = {"unsupported": "not supported"}
    parts = [f"{counts[v]} {shown.get(v, v)}" for v in others if counts[v]]
    return reason + ("; " + ", ".join(parts) if parts else "")
