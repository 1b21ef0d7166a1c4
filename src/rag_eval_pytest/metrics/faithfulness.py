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
from dataclasses import dataclass
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

    from ..judges.base import JudgeOutcome, Question
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
        if not verdicts.statements:
            return Measurement.not_judged(
                "the answer makes no factual statement to check",
                usage=outcome.usage,
                warnings=list(outcome.notes),
            )
        tally = _Tally(verdicts.statements, frozenset(outcome.unsure), self._good, self._lenient)
        return self._measured(sample.answer, tally, outcome)

    def _measured(
        self, answer: str, tally: _Tally, outcome: JudgeOutcome[StatementVerdicts]
    ) -> Measurement:
        """The score, its bounds where unsure statements may move it, and the evidence, the
        statements that count against the score placed in the answer."""
        unmatched, spans = _placed(answer, tally)
        score = tally.score()
        low, high = tally.bounds()
        return Measurement(
            score=score,
            reason=tally.reason(),
            cause="unsure" if score is None else None,
            evidence=_evidence(tally, spans),
            usage=outcome.usage,
            warnings=list(outcome.notes),
            details={
                "mode": self.mode,
                **details(outcome),
                **({"unmatched": unmatched} if unmatched else {}),
            },
            unsure=len(tally.doubtful),
            bounds=(low, high) if low != high else None,
        )


@dataclass(frozen=True)
class _Tally:
    """The statements' verdicts, those the judge was ``unsure`` of (by index), the verdicts
    that count as faithful (``good``) and whether only a contradiction counts against."""

    statements: list[StatementVerdict]
    unsure: frozenset[int]
    good: set[str]
    lenient: bool

    @property
    def decided(self) -> list[StatementVerdict]:
        return [s for i, s in enumerate(self.statements) if i not in self.unsure]

    @property
    def doubtful(self) -> list[StatementVerdict]:
        return [s for i, s in enumerate(self.statements) if i in self.unsure]

    @property
    def faithful(self) -> int:
        """The decided statements that count as faithful."""
        return sum(s.verdict in self.good for s in self.decided)

    def bounds(self) -> tuple[float, float]:
        """The least and the greatest score. An unsure statement may be any verdict but the
        one it leans to: one that leans to supported or not mentioned changes the score only
        where "not mentioned" counts against; one that leans to contradicted may be
        either."""
        doubtful = self.doubtful
        leaning = sum(s.verdict in self.good for s in doubtful) if self.lenient else 0
        total = len(self.statements)
        return (self.faithful + leaning) / total, (self.faithful + len(doubtful)) / total

    def score(self) -> float | None:
        """The score where the unsure statements count the same either way, else the share
        of the decided ones (``None`` without any)."""
        low, high = self.bounds()
        if low == high:
            return low
        decided = self.decided
        return self.faithful / len(decided) if decided else None

    def reason(self) -> str:
        reason = _reason(self.decided, self.faithful, self.lenient)
        if self.doubtful:
            reason += unsure_listed([s.statement for s in self.doubtful], "claim")
        return reason

    def against(self) -> list[int]:
        """The decided statements that count against the score, by index."""
        return [
            i
            for i, s in enumerate(self.statements)
            if i not in self.unsure and s.verdict not in self.good
        ]


def _placed(answer: str, tally: _Tally) -> tuple[list[str], dict[int, Span | None]]:
    """(the statements that count against the score not found in the answer, where each of
    them stands in it): the reports and the failure message mark them; those not found
    there are listed, never guessed."""
    against = tally.against()
    statements = tally.statements
    found = statement_spans(answer, [statements[i].statement for i in against])
    spans = dict(zip(against, found, strict=True))
    return [statements[i].statement for i in against if spans[i] is None], spans


def _evidence(tally: _Tally, spans: dict[int, Span | None]) -> list[Evidence]:
    return [
        Evidence(
            kind="statement",
            text=s.statement,
            verdict="unsure" if i in tally.unsure else s.verdict,
            reason=s.reason,
            **_offsets(spans.get(i)),
        )
        for i, s in enumerate(tally.statements)
    ]


def _offsets(span: Span | None) -> dict[str, int]:
    return {} if span is None else {"start": span.start, "end": span.end}


def _reason(statements: list[StatementVerdict], faithful: int, lenient: bool) -> str:
    """How many statements count, and how many of each other verdict: "2 of 4 statements
    supported by the contexts; 1 contradicted, 1 not mentioned"."""
    if not statements:
        return "no statement decided"
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
    return reason + _also_counted(counts, others)


def _also_counted(counts: Counter[str], others: tuple[str, ...]) -> str:
    """ "; 1 contradicted, 1 not mentioned": how many of each other verdict, if any."""
    shown = {"unsupported": "not supported"}
    parts = [f"{counts[v]} {shown.get(v, v)}" for v in others if counts[v]]
    return "; " + ", ".join(parts) if parts else ""
