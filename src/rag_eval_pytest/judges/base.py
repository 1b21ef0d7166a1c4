"""The judge contract: metrics ask typed questions, judges return validated answers.

A :class:`Question` is one semantic sub-task of a metric (extract and verify statements,
judge the usefulness of contexts, ...) with a pydantic input and output model. A metric calls
``await judge.ask(question, inputs)`` and receives a :class:`JudgeOutcome`: either a validated
output object or an explicit *not judged* with the reason — never a half-parsed value, never
NaN, never a silent default.

LLM judges (Anthropic, OpenAI-compatible, custom callables) answer every question by
prompting; the local judge answers them with rules and embeddings and may decline a question
it cannot answer (:meth:`Judge.supports`), in which case the metric uses its documented
fallback. Embeddings (answer relevance, answer similarity) come from :meth:`Judge.embed`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from abc import ABC, abstractmethod
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

VOTES: ContextVar[int | None] = ContextVar("rag_eval_votes", default=None)
"""The votes an LLM judge casts on the questions asked in this context, when a verdict near
its threshold is asked again with more votes (``judge.passes: auto``); ``None``: its own."""
SETTLED: ContextVar[Callable[[Question[Any, Any], list[Any]], bool] | None] = ContextVar(
    "rag_eval_settled", default=None
)
"""With more votes asked (``VOTES``): whether every one of the given possible answers to a
question gives the asking metric the same pass or fail at its threshold; the votes stop
there, as one more could not change the verdict (``None``: they run to their majority)."""

I = TypeVar("I", bound=BaseModel)  # noqa: E741 - the conventional name of an input type
O = TypeVar("O", bound=BaseModel)  # noqa: E741


class Usage(BaseModel):
    """Judge work spent on one measurement."""

    model_config = ConfigDict(extra="forbid")

    # Strict, never negative: a report read back with "3" or true for a count is refused.
    judge_calls: int = Field(0, strict=True, ge=0)
    cache_hits: int = Field(0, strict=True, ge=0)
    input_tokens: int = Field(0, strict=True, ge=0)
    output_tokens: int = Field(0, strict=True, ge=0)
    cost_usd: float = Field(0.0, strict=True, ge=0, allow_inf_nan=False)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            judge_calls=self.judge_calls + other.judge_calls,
            cache_hits=self.cache_hits + other.cache_hits,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
        )


class Question(ABC, Generic[I, O]):
    """One kind of question a metric asks a judge.

    ``name`` is stable (it is part of cache keys). ``input_model`` / ``output_model`` are the
    pydantic types exchanged. Subclasses that LLM judges answer implement :meth:`instructions`
    (the trusted task text) and :meth:`untrusted` (the RAG system's and the dataset's text,
    which judges must place inside delimiters). :meth:`check` validates an output against its
    input beyond the schema (for example: one verdict per statement) and returns the problems.
    """

    name: ClassVar[str]
    input_model: ClassVar[type[BaseModel]]
    output_model: ClassVar[type[BaseModel]]

    @abstractmethod
    def instructions(self) -> str:
        """The trusted instructions: what to do and how to answer."""

    @abstractmethod
    def untrusted(self, inputs: I) -> dict[str, str | list[str]]:
        """The untrusted texts, by section name (``answer``, ``contexts``, ...)."""

    def check(self, inputs: I, output: O) -> list[str]:
        """Problems of ``output`` for ``inputs`` that the schema cannot express."""
        return []

    def answer_lengths(self, inputs: I) -> dict[str, int]:
        """How many items each list of the answer holds for ``inputs``, by field (one verdict
        per context: ``{"verdicts": 3}``); none by default."""
        return {}

    def answer_schema(self, inputs: I, schema_json: str) -> str:
        """``schema_json`` (the output model's schema, ``$ref`` inlined) with what it can say
        of the answer to these ``inputs``: each list of :meth:`answer_lengths` holds exactly
        that many items. A judge that follows its schema (the Anthropic tool, an
        OpenAI-compatible response format) then answers every item at the first ask."""
        lengths = self.answer_lengths(inputs)
        if not lengths:
            return schema_json
        schema = json.loads(schema_json)
        with_lengths(schema, lengths)
        return json.dumps(schema)

    def salvage(self, inputs: I, output: O) -> tuple[O, str] | None:
        """When ``output`` still fails :meth:`check` after the corrective re-ask: the part
        that can be used (for example the verdicts whose index matched), with a note saying
        what was left out; ``None`` when nothing can (then the question is not judged)."""
        return None


@dataclass(frozen=True)
class JudgeOutcome(Generic[O]):
    """A judge's answer: ``value`` when judged, else ``value=None`` and ``reason``.

    ``notes`` say what the judge had to work around (a re-ask, a count mismatch, a truncated
    context); ``agreement`` is the share of passes that agreed when voting (1.0 for one pass).
    ``stopped`` is why the judge stopped for the rest of the run (a refused key, too many
    failures in a row, the deadline) when that left this question not judged: such a stop
    ends the run with the fatal code even when other cases were judged.
    """

    value: O | None
    reason: str = ""
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()
    agreement: float | None = None
    stopped: str = ""
    unsupported: bool = False
    """The judge cannot answer this kind of question at all (the local judge writes no text)."""
    unsure: tuple[int, ...] = ()
    """The items of the answer (by position in its list: statements, sentences; ``(0,)`` for
    a single rating) that the judge gave as its best guess only: the local judge's three-way
    verdicts. An LLM judge decides every item."""
    tiers: tuple[tuple[str, int], ...] = ()
    """How many items each tier of a cascade judge decided (``(("local", 3), ("llm", 1))``)."""

    @property
    def judged(self) -> bool:
        return self.value is not None

    @classmethod
    def not_judged(
        cls, reason: str, usage: Usage | None = None, stopped: str = ""
    ) -> JudgeOutcome[O]:
        return cls(value=None, reason=reason, usage=usage or Usage(), stopped=stopped)


class Judge(ABC):
    """Base class of every judge. ``kind`` names the family, ``model`` the model."""

    kind: ClassVar[str] = "custom"
    model: str = ""
    deterministic: bool = False
    """It gives the same answer to the same question every time (the local judge; a custom
    judge that says so): its verdicts do not hang on noise, so a case it fails newly is a
    regression under ``--rag-fail-on-regression``. An LLM judge, at any temperature, is not."""

    def describe(self) -> str:
        """One line for the header and the reports (never a key or a URL with credentials)."""
        return f"{self.kind} ({self.model})" if self.model else self.kind

    def identity(self) -> dict[str, str] | None:
        """What decides this judge's answers: its ``kind``, ``model`` and any setting that
        changes them (see :meth:`fingerprint`). ``None`` when the judge has no name that
        stays the same from one run to the next (a class defined inside a function)."""
        cls = type(self)
        path = f"{cls.__module__}.{cls.__qualname__}"
        if "<locals>" in path:
            return None
        return {"kind": self.kind, "model": self.model, "class": path}

    def fingerprint(self) -> str | None:
        """The judge's one identity, used wherever answers are remembered: within a run
        (two tests asking the same question of the same judge, a metric measured once per
        judge) and in the disk cache. Two judges share answers only when their fingerprints
        are equal; ``None`` means no stable identity: nothing is remembered beyond this
        object, in this run."""
        identity = self.identity()
        if identity is None:
            return None
        material = json.dumps(identity, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        """Whether this judge can answer ``question`` (LLM judges answer all)."""
        return True

    def gathers_cases(self) -> bool:
        """Whether it asks the questions of one case that reach it together in one request
        (a cascade whose LLM tier votes once): more of a case's metrics measured at once
        cost it no request of their own."""
        return False

    @abstractmethod
    async def ask(self, question: Question[I, O], inputs: I) -> JudgeOutcome[O]:
        """Answer one question. Never raises for bad judge output: returns not judged."""

    async def ask_many(
        self, asked: Sequence[tuple[Question[Any, Any], BaseModel]]
    ) -> list[JudgeOutcome[Any]]:
        """Answer several questions, each outcome in the order asked: each apart, unless the
        judge can ask them together (an LLM judge's runtime asks them in one request)."""
        return list(await asyncio.gather(*(self.ask(q, inputs) for q, inputs in asked)))

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """Sentence embeddings (unit length), for the embedding-based metrics."""
        raise NotImplementedError(f"{self.describe()} provides no embeddings")

    async def aclose(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release clients and models. Called once at the end of the run."""

    def parts(self) -> list[Judge]:
        """The judges this one asks (a cascade's tiers); itself for a judge of one part."""
        return [self]


def run_identity(judge: Judge, fingerprint: str | None = None) -> str | None:
    """The judge's identity as a run records it: its fingerprint (or ``fingerprint`` for a
    judge without one) and its number of votes (another vote is another outcome)."""
    fingerprint = judge.fingerprint() or fingerprint
    if fingerprint is None:
        return None
    votes = getattr(judge, "passes", None)
    most = getattr(judge, "max_passes", None)
    if most is not None and votes is not None and most > votes:  # judge.passes: auto
        margin = getattr(judge, "vote_margin", None)
        return f"{fingerprint} passes=auto({votes}-{most}, margin {margin})"
    return f"{fingerprint} passes={votes}"


class IndexedQuestion(Question[I, O]):
    """A question answered with one verdict per item of its input (a context, a sentence, a
    fact), each with its 0-based index: the schema says how many, the answer is checked for
    exactly ``0..count-1``, and after the corrective re-ask the verdicts whose index matched
    are kept."""

    listed: ClassVar[str]
    """The answer's list of verdicts (``verdicts``, ``sentences``)."""
    items: ClassVar[str]
    """What its items are, as a message names them (``contexts``)."""

    @abstractmethod
    def count(self, inputs: I) -> int:
        """How many items ``inputs`` holds: one verdict each."""

    def answer_lengths(self, inputs: I) -> dict[str, int]:
        return {self.listed: self.count(inputs)}

    def check(self, inputs: I, output: O) -> list[str]:
        return check_indexed(getattr(output, self.listed), self.count(inputs), self.items)

    def salvage(self, inputs: I, output: O) -> tuple[O, str] | None:
        return keep_indexed(output, self.listed, self.count(inputs), self.items)


def with_lengths(schema: dict[str, Any], lengths: dict[str, int]) -> None:
    """Say in an object's ``schema`` how many items each of its lists holds."""
    for name, count in lengths.items():
        schema["properties"][name].update(minItems=count, maxItems=count)


def check_indexed(items: Sequence[Any], count: int, what: str) -> list[str]:
    """The problem of an index-keyed verdict list that is not exactly ``0..count-1``."""
    indexes = sorted(item.index for item in items)
    if indexes != list(range(count)):
        return [f"expected one verdict for each of {count} {what}, got indexes {indexes}"]
    return []


def keep_indexed(output: O, field_name: str, count: int, what: str) -> tuple[O, str] | None:
    """Salvage for index-keyed verdict lists: keep the first verdict for each index in
    ``range(count)``, drop the rest, and say which were missing or extra."""
    items = getattr(output, field_name)
    kept = _first_of_each_index(items, count)
    if not kept:
        return None
    partial = output.model_copy(update={field_name: [kept[i] for i in sorted(kept)]})
    return partial, _salvage_note(kept.keys(), len(items) - len(kept), count, what)


def _first_of_each_index(items: list[Any], count: int) -> dict[int, Any]:
    kept: dict[int, Any] = {}
    for item in items:
        if 0 <= item.index < count and item.index not in kept:
            kept[item.index] = item
    return kept


def _salvage_note(kept: Collection[int], extra: int, count: int, what: str) -> str:
    """How many verdicts were kept, which indexes had none and how many were dropped."""
    missing = [i for i in range(count) if i not in kept]
    parts = [f"judged {len(kept)} of {count} {what}"]
    if missing:
        parts.append(f"no verdict for index {', '.join(map(str, missing))}")
    if extra:
        parts.append(f"{extra} extra or duplicate verdict{'s' if extra > 1 else ''} ignored")
    return "; ".join(parts)
