"""The run report as typed, frozen models: ``eval_report.json`` is :meth:`Report.to_json`.

One model per level: :class:`~rag_eval_pytest.metrics.base.MetricResult` for a metric on a
case, :class:`CaseResult` for a case, :class:`Report` for the run. The renderers (Markdown,
step summary, terminal, history, merge) read these models, so a renamed field is a type
error, and ``docs/eval_report.schema.json`` is generated from them
(:mod:`rag_eval_pytest.reporting.schema`). A ``results.jsonl`` line is a :class:`HistoryLine`
(its schema: ``docs/history_line.schema.json``).

A field that a report of schema version 1 may lack (written by an earlier version) has a
default; every other field is required when a report is read back (``rag-eval merge``).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    WrapValidator,
    field_validator,
)
from pydantic_core import PydanticUseDefault

from ..judges.base import Usage
from ..metrics.base import MetricResult
from .causes import FailureCause

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from pydantic import ValidatorFunctionWrapHandler

SCHEMA_VERSION = 1

Outcome = Literal["passed", "failed", "error", "skipped"]
GateStatus = Literal["PASS", "FAIL", "NOT JUDGED"]

# The numbers of a report, as a run writes them: a report read back (``load_report``,
# ``rag-eval merge``) with a score of 5, "NaN", a negative count or ``true`` for an exit code
# is refused by name, not rendered or merged. Strict: a bool or a text is no number.
Score = Annotated[float, Field(strict=True, ge=0, le=1, allow_inf_nan=False)]
"""A score, a mean or a threshold: a finite number in [0, 1]."""
Count = Annotated[int, Field(strict=True, ge=0)]
Seconds = Annotated[float, Field(strict=True, ge=0, allow_inf_nan=False)]
ExitStatus = Annotated[int, Field(strict=True, ge=0, le=255)]
Weight = Annotated[float, Field(strict=True, ge=0, allow_inf_nan=False)]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Tool(_Model):
    name: str
    version: str


class DatasetInfo(_Model):
    path: str
    name: str | None
    version: str | None
    created: str | None = Field(description="The dataset's metadata.created (ISO 8601).")
    cases: Count


class Selection(_Model):
    """What a run selected; two runs with the same ``fingerprint`` measured the same thing."""

    cases: list[str]
    metrics: list[str]
    judge: str | None
    datasets_sha256: str | None
    total_cases: Count
    fingerprint: str
    judge_identity: str | None = Field(
        default=None,
        description="The judge's one identity (its fingerprint and number of votes), which "
        "the fingerprint covers instead of the judge's description when it is known; the "
        "identities joined by '+' when the run's tests used several judges.",
    )
    judge_identities: list[str] = Field(
        default_factory=list,
        description="Every judge identity the run's tests used, sorted.",
    )


class RunSection(_Model):
    id: str | None = None
    started_at: str
    finished_at: str
    duration_s: Seconds
    partial: bool
    datasets: list[DatasetInfo]
    selected_cases: Count
    tags_filter: list[str]
    shard: str | None = None
    selection: Selection | None = None
    adapter: str | None
    judge: str | None
    git_commit: str | None
    pytest_exit: ExitStatus
    exit_code: ExitStatus
    exit_reason: str
    report_only: bool = Field(
        default=False,
        description="Per-case thresholds did not fail tests (--rag-report-only).",
    )
    setup_error: str | None = Field(
        default=None,
        description="Why the run could not judge: a judge or RAG system that a test could not "
        "be given (the run is fatal, and so is a merge of its report).",
    )
    unsupported: Literal["fail", "report"] = Field(
        default="fail",
        description="What checks the judge could not make did to the verdict "
        "(judge.unsupported, resolved).",
    )


class CompositeSummary(_Model):
    score: Score | None
    threshold: Score | None
    status: GateStatus | None = Field(description="null when no gate is set on the composite.")


class MetricSummary(_Model):
    """One metric over the run's cases."""

    mean: Score | None
    threshold: Score | None = Field(description="The run-level gate on the mean, if any.")
    status: GateStatus | None
    judged: Count
    not_judged: Count
    passed: Count
    failed: Count
    weight: Weight
    case_thresholds: list[Score] = Field(
        default_factory=list,
        description="The per-case thresholds the tests applied (distinct, ascending): what "
        "'passed' and 'failed' were counted against.",
    )
    interval: tuple[float, float] | None = Field(
        default=None,
        description="The mean's 95 % interval over the judged cases (a seeded bootstrap up to "
        "200 cases, the normal approximation beyond); null for fewer than 2 cases.",
    )
    votes: dict[str, int] = Field(
        default_factory=dict,
        description="judge.passes: auto: the verdicts asked again with more votes near their "
        "threshold ('revoted') and those whose votes differed ('disagreed').",
    )
    tiers: dict[str, int] = Field(
        default_factory=dict,
        description="A cascade judge: the items each tier decided ('local', 'llm') over the "
        "cases, and 'unasked', the cases whose question never went to the LLM tier.",
    )


class Counts(_Model):
    cases: Count
    passed: Count
    failed: Count
    errors: Count
    skipped: Count


class LatencySummary(_Model):
    count: Count
    avg_s: Seconds | None
    p50_s: Seconds | None
    p95_s: Seconds | None
    slow: Count
    slow_threshold_s: Seconds


class CriticalTest(_Model):
    """A test marked ``rag_critical`` whose case, if it has one, is not critical itself."""

    nodeid: str
    outcome: Outcome


class CriticalSummary(_Model):
    total: Count
    passed: Count
    failed: list[str] = Field(
        description="The keys of failed critical cases and the node ids of failed critical tests."
    )
    tests: list[CriticalTest] = Field(default_factory=list)


class TagSummary(_Model):
    tag: str
    count: Count
    passed: Count
    failed: Count
    avg_score: Score | None


class Summary(_Model):
    composite: CompositeSummary
    metrics: dict[str, MetricSummary]
    counts: Counts
    latency: LatencySummary
    critical: CriticalSummary
    tags: list[TagSummary]
    usage: Usage
    unchecked: str | None = Field(
        default=None,
        description="The checks that could not run with the judge the tests got (a criterion "
        "under the local judge), in one line; null when every check ran.",
    )
    failure_causes: dict[str, Count] = Field(
        default_factory=dict,
        description="How many failing cases (failed or error) have each cause (their "
        "failure_cause), most telling cause first: rag_error, retrieval_miss, ranking, "
        "forgotten_fact, unsupported_answer, incorrect_answer, irrelevant_answer, not_judged; "
        "a cause no case has is left out.",
    )
    unexplained_failures: Count = Field(
        default=0,
        description="The failing cases no cause explains (the test's own assertion, a crash, "
        "or a check that declares no cause).",
    )


class ContextResult(_Model):
    text: str
    source: str | None


class CaseTest(_Model):
    """One test that used the case, with its worst outcome (the message of a failure)."""

    nodeid: str
    outcome: Outcome
    message: str | None


class TurnResult(_Model):
    """One turn of a conversation: its question, the RAG system's response with the turns
    before it as its history, and its metrics' results."""

    key: str = Field(description="The turn's key: '<case key>/turn-<number>'.")
    turn: Annotated[int, Field(strict=True, ge=1)]
    question: str
    ground_truth: str | None
    expected_contexts: list[str] | None
    status: Literal["passed", "failed", "not_judged"] | None = Field(
        description="failed when a metric failed on the turn, passed when one passed and "
        "none failed, not_judged when none was judged; null when nothing was measured."
    )
    recorded: bool
    answer: str | None
    contexts: list[ContextResult] | None
    sources: list[str]
    latency_s: Seconds | None
    metrics: dict[str, MetricResult]


class CaseResult(_Model):
    """One case: the dataset's side, the RAG system's response, and its metrics' results.
    A conversation's ``question`` is its first turn's, its response its last turn's, and
    each of its metrics the minimum (or mean) over ``turns``."""

    key: str
    id: str
    index: Count = 0
    dataset: str
    question: str
    ground_truth: str | None
    """``null`` when the case has none."""
    critical: bool
    tags: list[str]
    expected_contexts: list[str] | None
    status: Outcome
    composite: Score | None
    recorded: bool
    answer: str | None
    contexts: list[ContextResult] | None
    sources: list[str]
    latency_s: Seconds | None
    slow: bool
    error: str | None
    tests: list[CaseTest]
    metrics: dict[str, MetricResult]
    inline: bool = Field(
        default=False,
        description="A case made in code (make_case) by the test it is keyed by, whose file "
        "is its dataset; false for a dataset file's case.",
    )
    failure_cause: FailureCause | None = Field(
        default=None,
        description="Why the case failed, decided from what the run has (no judge call): "
        "the first that applies of rag_error, retrieval_miss, ranking, forgotten_fact, "
        "unsupported_answer, incorrect_answer, irrelevant_answer, not_judged (docs/reports.md "
        "says how each is "
        "decided); null for a case that did not fail and for a failure nothing explains.",
    )
    secondary_causes: list[FailureCause] = Field(
        default_factory=list,
        description="The other causes that apply to the failing case, in the same order.",
    )
    turns: list[TurnResult] | None = Field(
        default=None,
        description="A conversation's turns, in order, each with its results; null for a "
        "case that is no conversation.",
    )
    stable_metrics: list[str] = Field(
        default_factory=list,
        description="The judged metrics whose pass or fail on this case does not hang on the "
        "judge's noise: a metric that asks no judge, a deterministic judge (the local judge), "
        "or two or more votes that all agreed.",
    )


class TrendPoint(_Model):
    run_id: str | None
    timestamp: str | None
    composite: Score | None
    metrics: dict[str, Score | None]
    partial: bool
    selection: Literal["same", "other", "unknown"] = Field(
        description="Whether the run selected what this run did (unknown: it recorded none)."
    )
    judge: str | None = Field(default=None, description="The run's judge, as the header named it.")
    judge_identity: str | None = Field(
        default=None,
        description="The run's judge identity (its selection's), when it recorded one: the "
        "trend chart draws the runs of each identity as their own line.",
    )


class ComparedRun(_Model):
    run_id: str | None
    timestamp: str | None


class Regression(_Model):
    name: str
    previous: Score
    current: Score
    previous_run: str | None


class Trend(_Model):
    points: list[TrendPoint]
    compared_with: ComparedRun | None
    not_compared: str | None
    regressions: list[Regression]
    tolerance: Score


class MetricChange(_Model):
    """A metric's change since the baseline over the cases both runs scored."""

    metric: str
    cases: int = Field(description="The cases both runs scored: the only ones compared.")
    before: float
    after: float
    change: float
    interval: tuple[float, float] = Field(description="The change's 95 % interval.")
    p_value: float = Field(description="Two-sided, of a sign-flip permutation test.")
    significant: bool = Field(description="p_value below the comparison's alpha.")
    testable: bool = Field(
        default=True,
        description="Enough cases for the test to tell a change from noise at alpha (six or "
        "more at 0.05); with fewer, a regression is a drop of at least min_drop.",
    )
    regression: bool = Field(description="Significant and a drop of at least min_drop.")


class NewlyFailing(_Model):
    """A case's metric that passed in the baseline and fails now, at the same threshold."""

    key: str
    metric: str
    before: Score
    after: Score
    threshold: Score | None
    regression: bool = Field(
        description="Its verdict is stable in both runs (no judge asked, a deterministic "
        "judge, or votes that all agreed) and the case is not judge-flaky: a regression "
        "whatever the test of the mean says."
    )


class Comparison(_Model):
    """This run against a baseline run, metric by metric, case by case."""

    baseline: str = Field(description="'history: run <id>' or the baseline report's path.")
    baseline_run: str | None
    alpha: float
    min_drop: float
    changes: list[MetricChange]
    not_compared: str | None = Field(
        default=None, description="Why nothing was compared (no baseline, no shared case)."
    )
    unusable: bool = Field(
        default=False,
        description="The baseline could not be used (a path that names no readable report, a "
        "stored baseline that cannot be read, a report judged by another judge, nothing in "
        "common with this run): not_compared "
        "says why. False when compared, and for a history that holds no earlier run yet.",
    )
    gate: bool = Field(
        default=False,
        description="--rag-fail-on-regression: a regression failed the run (exit 1), and an "
        "unusable baseline made it fatal.",
    )
    changed_cases: list[str] = Field(
        default_factory=list,
        description="This run's cases the baseline has under the same key with another "
        "question, ground truth or expected documents: not the same cases, not compared.",
    )
    newly_failing: list[NewlyFailing] = Field(
        default_factory=list,
        description="The metrics of shared cases that passed in the baseline and fail now "
        "at the same threshold, in case order.",
    )

    @property
    def regressions(self) -> list[MetricChange]:
        return [c for c in self.changes if c.regression]

    @property
    def regressed_cases(self) -> list[NewlyFailing]:
        """The newly failing cases whose verdicts are stable: regressions."""
        return [f for f in self.newly_failing if f.regression]

    @property
    def flagged(self) -> bool:
        """The run regressed since the baseline: it is no baseline for the next runs."""
        return bool(self.regressions or self.regressed_cases)


class FlakyCase(_Model):
    """A case whose outcome flipped at least twice in its last runs with the same answer,
    contexts and judge identity: the judge's noise, not the RAG system."""

    key: str
    outcomes: str = Field(description="Its last outcomes, oldest first.")
    quarantined: bool = Field(description="Its failure did not fail the run (regression.flaky).")


class Integrity(_Model):
    """The cases as the run wrote them: ``rag-eval merge`` refuses a shard's report whose
    cases are not (a case removed, a status edited)."""

    cases: Count = Field(description="How many cases the report holds.")
    cases_sha256: str = Field(
        description="SHA-256 of the report's cases, each as JSON the way Python's "
        "json.dumps(case, ensure_ascii=False) writes it (its keys in the file's order, "
        "separators ', ' and ': '), joined by newlines, in UTF-8."
    )


def case_text(case: Any, *, allow_nan: bool = True) -> str:
    """A case (its JSON value) as JSON in the form :class:`Integrity`'s digest is taken of;
    the JSON report writes each case from it, so the digest costs no second encoding."""
    return json.dumps(case, ensure_ascii=False, allow_nan=allow_nan)


def texts_digest(texts: Iterable[str]) -> str:
    """The SHA-256 of cases given as their :func:`case_text`."""
    digest = CasesDigest()
    for text in texts:
        digest.add(text)
    return digest.hexdigest()


class CasesDigest:
    """:func:`texts_digest` of the cases given one at a time (:meth:`add`), and their count."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self.count = 0

    def add(self, text: str) -> None:
        # A lone surrogate (read back from a "\ud800" escape) is hashed, not raised on.
        data = text.encode("utf-8", "surrogatepass")
        self._sha.update(b"\n" + data if self.count else data)
        self.count += 1

    def hexdigest(self) -> str:
        return self._sha.hexdigest()


def cases_digest(cases: Sequence[Any]) -> str:
    """The SHA-256 of a report's cases (their JSON values, as read back from the file: a
    number no run writes, NaN, changes the digest instead of raising)."""
    return texts_digest(case_text(case) for case in cases)


class Report(_Model):
    """The whole run: ``eval_report.json``."""

    schema_version: Literal[1]
    tool: Tool
    run: RunSection
    summary: Summary
    cases: list[CaseResult]
    warnings: list[str]
    trend: Trend | None = Field(
        default=None, description="The last runs from results.jsonl (absent without history)."
    )
    flaky: list[FlakyCase] = Field(
        default_factory=list,
        description="Judge-flaky cases: outcomes that flipped with nothing changed.",
    )
    comparison: Comparison | None = Field(
        default=None,
        description="This run against its baseline (--rag-baseline): the change of each "
        "metric over the shared cases, its interval and p-value (absent without a baseline).",
    )
    integrity: Integrity | None = Field(
        default=None,
        description="The count and digest of 'cases', written with the file (absent in a "
        "report of an earlier version, which rag-eval merge refuses).",
    )

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-safe data (a report without a trend has no ``trend`` key; the
        integrity is the written file's, :func:`~.files.report_json`)."""
        absent = {
            name for name in ("trend", "comparison", "integrity") if getattr(self, name) is None
        }
        return self.model_dump(mode="json", exclude=absent or None)

    @classmethod
    def from_json(cls, data: object) -> Report:
        """Read a report; raises :class:`pydantic.ValidationError` on one that is not."""
        return cls.model_validate(data)

    def with_trend(self, trend: Trend, warnings: Sequence[str] = ()) -> Report:
        """This report with its trend, and the warnings met reading the history."""
        return self.model_copy(update={"trend": trend, "warnings": [*self.warnings, *warnings]})


# --------------------------------------------------------------------------- history line

Cost = Annotated[float, Field(strict=True, ge=0, allow_inf_nan=False)]


class _HistoryModel(BaseModel):
    """A part of a ``results.jsonl`` line. The history is read leniently, since it outlives
    versions and may be edited by hand: a key the model does not know (a later version's) is
    ignored, and a key that is missing (an earlier version's line) or holds a value no run
    writes (a score of 5, a count of ``true``) reads as its default, so the run stays in the
    trend without that value. The published schema is what a run writes: every key, no other.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        json_schema_serialization_defaults_required=True,
        json_schema_extra={"additionalProperties": False},
    )

    @field_validator("*", mode="wrap")
    @classmethod
    def _default_when_unreadable(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError:
            raise PydanticUseDefault() from None


def _score_or_none(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A metric's mean in a history line; one that no run writes reads as ``None`` and the
    metric stays in the line."""
    try:
        return handler(value)
    except ValidationError:
        return None


HistoryScore = Annotated[Score | None, WrapValidator(_score_or_none)]


class HistorySelection(_HistoryModel):
    """A run's :class:`Selection` as its history line keeps it: the case keys as a hash and a
    count, not the keys (a line stays about 1 KB at any number of cases). Its fingerprint is
    the report's, so a line an earlier version wrote (with ``cases``, the keys) compares."""

    cases_sha256: str | None = Field(
        default=None, description="SHA-256 of the case keys, in order, as a JSON list."
    )
    case_count: Count | None = Field(default=None, description="How many cases it scored.")
    metrics: list[str] = Field(default_factory=list)
    judge: str | None = None
    datasets_sha256: str | None = None
    total_cases: Count | None = None
    fingerprint: str | None = Field(
        default=None,
        description="The report's selection fingerprint: runs with the same one are compared.",
    )
    judge_identity: str | None = None
    judge_identities: list[str] = Field(default_factory=list)


class HistoryLine(_HistoryModel):
    """One run in ``results.jsonl``: its means and counts, not its cases."""

    timestamp: str | None = Field(default=None, description="When the run finished (ISO 8601).")
    run_id: str | None = None
    composite_score: Score | None = None
    metrics: dict[str, HistoryScore] = Field(
        default_factory=dict, description="Each metric's mean over the run's cases."
    )
    test_count: Count | None = Field(default=None, description="The run's cases.")
    passed: Count | None = None
    failures: Count | None = None
    errors: Count | None = None
    skipped: Count | None = None
    critical_failures: Count | None = None
    exit_code: ExitStatus | None = None
    partial: bool = Field(default=False, description="The run was interrupted.")
    adapter: str | None = None
    judge: str | None = None
    judge_calls: Count | None = None
    cost_usd: Cost | None = None
    git_commit: str | None = None
    datasets: list[str] = Field(default_factory=list, description="The datasets' paths.")
    selection: HistorySelection | None = Field(
        default=None, description="What the run selected; null in a line of an earlier version."
    )
    schema_version: int | None = Field(
        default=None, description="The schema version of the report the line was built from."
    )

    def to_json(self) -> dict[str, Any]:
        """The line as JSON-safe data, every key present."""
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HistoryLine:
        """Read a line (a JSON object); never raises: what it cannot read takes its default."""
        return cls.model_validate(data)
