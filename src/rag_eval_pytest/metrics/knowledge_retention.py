"""Knowledge retention: whether a conversation's answer keeps what the user already said.

The user's facts are the statements of the user's earlier turns: each sentence of an earlier
user message that is no question ("My order number is 4417.", "I live in Lyon."; "Where is
my parcel?" states nothing to keep), and each question that holds an identifier ("Where is
my order 12345?" establishes the order's number). The judge gives one verdict per fact, in one call
(:class:`~rag_eval_pytest.judges.questions.UserFactRetention`): the answer keeps it,
contradicts it, or asks the user for it again. Score = kept facts / all facts.

The facts are split here, the same way for every judge, so that a score's denominator does
not depend on the judge's reading. Measured only where there is something to retain: the
first turn of a conversation (no earlier turn), a case that is no conversation, and turns
whose earlier user messages state no fact (only questions) are *not judged* for their own
data, never a made-up 1.0; a conversation's score leaves them out (``metrics/conversation.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

from ..judges.questions import FactRetention, FactRetentions, RetentionInput, UserFactRetention
from ..text.sentences import split_sentences
from ..text.shorten import shorten
from ..text.words import content_words
from .base import Evidence, Measurement, Metric, Requirement
from .judged import details, not_judged, unsure_listed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

    from ..data.response import Message
    from ..judges.base import JudgeOutcome, Question
    from .base import Sample, Services

NO_HISTORY = (
    "nothing to retain: no earlier turn (the first turn of a conversation, or one question)"
)
NO_FACTS = "nothing to retain: the user's earlier messages state no fact (only questions)"
_PLEASANTRIES = content_words(
    "hello hi hey thanks thank ok okay great good fine perfect sure yes no bye cheers please"
)
"""Words that state nothing to keep ("Thanks.", "OK, great!")."""


IDENTIFIER = re.compile(r"(?<![\w-])#?(?:[A-Za-z]{1,6}-?)?\d{4,}\b|(?<![\w-])[A-Za-z]{1,6}-\d+\b")
"""An order number, a ticket or an account id: four digits or more, or a code with a letter
prefix ("12345", "#12345", "AB-1234"). A question that holds one establishes it ("Where is
my order 12345?")."""


def user_facts(history: Sequence[Message]) -> list[tuple[int, str]]:
    """The facts the user gave in ``history``, each with the turn (from 1) that gave it: the
    sentences of the user's messages that are no question and hold a number or a content word
    other than a pleasantry ("Hi!" and "Thanks." state nothing; "I am 34." does), and the
    questions that hold an identifier ("Where is my order 12345?" establishes the order)."""
    facts: list[tuple[int, str]] = []
    turn = 0
    for message in history:
        if message["role"] != "user":
            continue
        turn += 1
        facts += [(turn, stated) for stated in _stated_facts(message["content"])]
    return facts


def _stated_facts(message: str) -> list[str]:
    stated = (sentence.strip() for sentence in split_sentences(message))
    return [sentence for sentence in stated if _is_fact(sentence)]


def _is_fact(sentence: str) -> bool:
    """No question (but one that holds an identifier), and a number or a content word other
    than a pleasantry."""
    if sentence.endswith("?") and not IDENTIFIER.search(sentence):
        return False
    return bool(content_words(sentence) - _PLEASANTRIES or any(c.isdigit() for c in sentence))


class KnowledgeRetention(Metric):
    name = "knowledge_retention"
    default_threshold = 1.0
    requires: ClassVar[frozenset[Requirement]] = frozenset({"judge"})
    summary = "facts of the user's earlier turns the answer neither contradicts nor asks again"
    failure_cause = "forgotten_fact"

    def judge_questions(
        self,
        question: str,
        ground_truth: str,
        answer: str,
        contexts: list[str],
        *,
        earlier: Sequence[str] = (),
    ) -> list[tuple[Question[Any, Any], BaseModel]]:
        history: list[Message] = [{"role": "user", "content": text} for text in earlier]
        facts = [fact for _, fact in user_facts(history)]
        if not facts:
            return []
        inputs = RetentionInput(facts=facts, question=question, answer=answer)
        return [(UserFactRetention(), inputs)]

    async def measure(self, sample: Sample, services: Services) -> Measurement:
        if not sample.history:
            return Measurement.not_judged(NO_HISTORY)
        facts = user_facts(sample.history)
        if not facts:
            return Measurement.not_judged(NO_FACTS)
        inputs = RetentionInput(
            facts=[fact for _, fact in facts], question=sample.question, answer=sample.answer
        )
        outcome = await services.ask(UserFactRetention(), inputs)
        if outcome.value is None:
            return not_judged(outcome, "the judge gave no retention verdicts")
        return _measurement(facts, outcome.value, outcome)


def _measurement(
    facts: list[tuple[int, str]], verdicts: FactRetentions, outcome: JudgeOutcome[Any]
) -> Measurement:
    """The share of the facts kept. A fact the judge was unsure of (the local judge's: kept,
    for an LLM judge to decide) counts as its verdict in the score, and the bounds say what
    the score would be were each one forgotten."""
    ordered = sorted(verdicts.facts, key=lambda v: v.index)
    unsure = {v.index for v in ordered} & set(outcome.unsure)
    kept = sum(1 for v in ordered if v.verdict == "kept")
    return Measurement(
        score=kept / len(ordered),
        reason=_reason(facts, ordered, kept) + _unsure_part(facts, unsure),
        # What was forgotten first: the failure message shows the first lines.
        evidence=_evidence(facts, ordered, unsure),
        usage=outcome.usage,
        warnings=list(outcome.notes),
        details=details(outcome),
        unsure=len(unsure),
        bounds=_bounds(ordered, unsure, kept),
    )


def _evidence(
    facts: list[tuple[int, str]], ordered: list[FactRetention], unsure: set[int]
) -> list[Evidence]:
    """Each fact's verdict, the forgotten ones first."""
    forgotten = [v for v in ordered if v.verdict != "kept"]
    kept = [v for v in ordered if v.verdict == "kept"]
    return [_fact_evidence(facts, v, v.index in unsure) for v in [*forgotten, *kept]]


def _unsure_part(facts: list[tuple[int, str]], unsure: set[int]) -> str:
    """The part of the reason that names the facts the judge was unsure of ("" for none)."""
    return unsure_listed([facts[i][1] for i in sorted(unsure)], "fact") if unsure else ""


def _bounds(
    ordered: list[FactRetention], unsure: set[int], kept: int
) -> tuple[float, float] | None:
    """The score were each unsure fact kept (its verdict) and were each one forgotten."""
    if not unsure:
        return None
    doubted = sum(1 for v in ordered if v.index in unsure and v.verdict == "kept")
    return (kept - doubted) / len(ordered), kept / len(ordered)


def _fact_evidence(
    facts: list[tuple[int, str]], verdict: FactRetention, unsure: bool = False
) -> Evidence:
    turn, fact = facts[verdict.index]
    return Evidence(
        kind="user_fact",
        text=fact,
        verdict="unsure" if unsure else verdict.verdict,
        reason=f"said in turn {turn}; {verdict.reason}",
    )


def _reason(facts: list[tuple[int, str]], verdicts: Sequence[Any], kept: int) -> str:
    """ "1 of 2 facts the user gave kept; contradicts turn 1's "My order number is 4417."" """
    noun = "fact" if len(verdicts) == 1 else "facts"
    reason = f"{kept} of {len(verdicts)} {noun} the user gave kept"
    shown = [_forgotten(facts, v) for v in verdicts if v.verdict != "kept"]
    if shown:
        more = f" and {len(shown) - 2} more" if len(shown) > 2 else ""
        reason += "; " + "; ".join(shown[:2]) + more
    return reason


def _forgotten(facts: list[tuple[int, str]], verdict: Any) -> str:
    """ "contradicts turn 1's "My order number is 4417."" (or "asks again for ...")."""
    turn, fact = facts[verdict.index]
    what = "contradicts" if verdict.verdict == "contradicted" else "asks again for"
    return f"{what} turn {turn}'s \u201c{shorten(fact, 60)}\u201d"
