"""The cascade judge: the local judge first, an LLM judge only for what it is unsure of.

``judge: {kind: cascade, then: {kind: anthropic}}`` (or ``--rag-judge cascade``). Every
question goes to the local judge; an answer with items it was unsure of (claims, context
sentences or an answer's rating whose evidence does not decide alone, failures included)
sends only those items to the LLM judge (the whole question for a single rating), in the same
typed question, through the LLM judge's own cache, votes, deadline and cost accounting; the
items the local judge decided keep its verdicts. A question the local judge cannot answer at
all (a criterion in plain words) goes to the LLM judge whole. The questions of one case that
go to the LLM judge wait for each other and are asked in one request (:mod:`.gathering`,
:mod:`.bundle`). The outcome says how many items each tier decided
(``JudgeOutcome.tiers``), and the metrics put that in their details.

The LLM judge's failure is the cascade's failure: a question it could not answer is not
judged with its reason, as with the LLM judge alone.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from .base import Judge, JudgeOutcome, Question
from .gathering import Gathering
from .questions import (
    ContextSentenceRelevance,
    GeneratedQuestions,
    RelevanceInput,
    SentenceRelevances,
    StatementsInput,
    StatementSupport,
    StatementVerdicts,
)

if TYPE_CHECKING:
    from .base import I, O

LOCAL, LLM = "local", "llm"
_LOCAL_WAY: frozenset[type[Question[Any, Any]]] = frozenset({GeneratedQuestions})
"""Questions the local tier cannot answer whose metric has another way it can."""


class CascadeJudge(Judge):
    """``first`` (the local judge) answers; ``then`` (an LLM judge) decides what it is
    unsure of."""

    kind: ClassVar[str] = "cascade"

    def __init__(self, first: Judge, then: Judge) -> None:
        self.first = first
        self.then = then
        self.gathering = Gathering(then)
        self.model = f"{first.describe()} then {then.describe()}"
        self.deterministic = first.deterministic and then.deterministic

    def describe(self) -> str:
        return f"cascade ({self.first.describe()}, then {self.then.describe()})"

    def identity(self) -> dict[str, str] | None:
        """Both tiers (the local one's identity holds its calibration and unsure band)."""
        first, then = self.first.fingerprint(), self.then.fingerprint()
        if first is None or then is None:
            return None
        votes = str(getattr(self.then, "passes", None))
        return {"kind": self.kind, "first": first, "then": then, "then_passes": votes}

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        """What the local tier answers, and what only an LLM answers (a criterion) unless
        the metric has a way the local tier answers: answer relevance rates the answer
        directly rather than asking the LLM to write questions."""
        return self.first.supports(question) or question not in _LOCAL_WAY

    def gathers_cases(self) -> bool:
        return getattr(self.then, "passes", None) == 1

    def parts(self) -> list[Judge]:
        return [self.first, self.then]

    def secrets(self) -> list[str]:
        found = getattr(self.then, "secrets", None)
        return list(found()) if callable(found) else []

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return await self.first.embed(texts)

    async def aclose(self) -> None:
        await self.first.aclose()
        await self.then.aclose()

    async def ask(self, question: Question[I, O], inputs: I) -> JudgeOutcome[O]:
        case = getattr(inputs, "question", "")
        if not self.first.supports(type(question)):
            outcome = await self.gathering.ask(case, question, inputs)
            return tiered(outcome, llm=_items(None))
        with self.gathering.local(case):
            local = await self.first.ask(question, inputs)
        if local.value is None or not local.unsure:
            return tiered(local, local=_items(local.value))
        narrowed = _narrowed(question, inputs, local)
        if narrowed is None:  # a single rating, or items the LLM cannot be asked apart
            outcome = await self.gathering.ask(case, question, inputs)
            return tiered(outcome, llm=_items(outcome.value))
        asked, merge = narrowed
        outcome = await self.gathering.ask(case, question, asked)
        if outcome.value is None:
            return outcome
        decided = _items(local.value) - len(local.unsure)
        merged = merge(outcome.value)
        return JudgeOutcome(
            merged,
            usage=outcome.usage,
            notes=(*local.notes, *outcome.notes),
            agreement=outcome.agreement,
            tiers=((LOCAL, decided), (LLM, _items(merged) - decided)),
        )


def tiered(outcome: JudgeOutcome[O], *, local: int = 0, llm: int = 0) -> JudgeOutcome[O]:
    """``outcome`` with the items each tier decided (none when it was not judged)."""
    if outcome.value is None:
        return outcome
    tiers = tuple((tier, count) for tier, count in ((LOCAL, local), (LLM, llm)) if count)
    return replace(outcome, tiers=tiers)


def _items(value: Any) -> int:
    """How many items an answer decides: its statements or verdicts, else one rating."""
    for name in ("statements", "verdicts", "sentences"):
        items = getattr(value, name, None)
        if isinstance(items, list):
            return len(items)
    return 1


def _narrowed(question: Question[Any, Any], inputs: Any, local: JudgeOutcome[Any]) -> Any:
    """The question asked of the LLM judge about the unsure items only, and how its answer
    joins the local judge's decided items; ``None`` when the question has no items to split."""
    if isinstance(question, StatementSupport):
        return _narrowed_statements(inputs, local)
    if isinstance(question, ContextSentenceRelevance):
        return _narrowed_sentences(inputs, local)
    return None


def _narrowed_statements(inputs: Any, local: JudgeOutcome[Any]) -> Any:
    """Faithfulness: the unsure statements asked as an answer of their own."""
    verdicts = local.value
    assert isinstance(verdicts, StatementVerdicts)
    unsure = set(local.unsure)
    doubtful = [s.statement for i, s in enumerate(verdicts.statements) if i in unsure]
    asked = StatementsInput(
        question=inputs.question, answer=" ".join(doubtful), contexts=inputs.contexts
    )

    def merge(answer: StatementVerdicts) -> StatementVerdicts:
        # In the answer's order: the LLM judge's verdicts where the unsure statements
        # were (one for one when it split them alike, else all at the first one's place).
        decided = iter(answer.statements)
        one_for_one = len(answer.statements) == len(unsure)
        merged = []
        for i, statement in enumerate(verdicts.statements):
            if i not in unsure:
                merged.append(statement)
            elif one_for_one:
                merged.append(next(decided))
            elif i == min(unsure):
                merged.extend(decided)
        return StatementVerdicts(statements=merged)

    return asked, merge


def _narrowed_sentences(inputs: Any, local: JudgeOutcome[Any]) -> Any:
    """Context relevance: the unsure context sentences asked on their own."""
    sentences = local.value
    assert isinstance(sentences, SentenceRelevances)
    picked = sorted({sentences.sentences[i].index for i in local.unsure})
    narrow = RelevanceInput(
        question=inputs.question,
        context_sentences=[inputs.context_sentences[i] for i in picked],
    )

    def merge_sentences(answer: SentenceRelevances) -> SentenceRelevances:
        # The LLM judge numbered the unsure sentences from 0: back to their own indexes.
        kept = [s for s in sentences.sentences if s.index not in picked]
        decided = [
            s.model_copy(update={"index": picked[s.index]})
            for s in answer.sentences
            if s.index < len(picked)
        ]
        return SentenceRelevances(sentences=sorted([*kept, *decided], key=lambda s: s.index))

    return narrow, merge_sentences
