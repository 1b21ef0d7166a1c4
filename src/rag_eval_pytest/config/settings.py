"""The settings model: :class:`Settings` and its sections, everything the plugin can be told.

Each field validates its own value and carries the description the configuration reference
(:mod:`.reference`) is generated from; how the values are gathered from the config file, the
ini file and the command line is :mod:`.resolution`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from ..judges.settings import JudgeSettings
from ..metrics.registry import DEFAULT_WEIGHTS, registered_names
from ..redaction import MASK, display_url
from ..runtime.retry import RetrySettings
from ..values import check_header, header_line, http_url, not_a_bool, numbers_not_bools

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def number_text(value: float) -> str:
    """``2.0`` -> ``2``, ``0.25`` -> ``0.25``: a number as a person would type it."""
    text = repr(value)
    return text.removesuffix(".0") if text.endswith(".0") else text


def _unit_interval(value: float) -> float:
    if not 0.0 <= value <= 1.0:  # NaN included
        raise ValueError(f"{number_text(value)} is not between 0 and 1")
    return value


UnitFloat = Annotated[float, BeforeValidator(not_a_bool), AfterValidator(_unit_interval)]


def _significance_level(value: float) -> float:
    # 0 finds no change significant: a gate that can never fail. Above 0.5 a change is
    # "significant" more often than not when nothing changed.
    if not 0.0 < value <= 0.5:  # NaN included
        raise ValueError(
            f"{number_text(value)} is not a significance level: it must be greater than 0 "
            "and at most 0.5 (0 would find no change significant)"
        )
    return value


SignificanceLevel = Annotated[
    float, BeforeValidator(not_a_bool), AfterValidator(_significance_level)
]
ExitCode = Annotated[int, Field(ge=1, le=255)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)
    _numbers = field_validator("*", mode="before")(numbers_not_bools)


class OutputSettings(_Section):
    """Where the reports go and which are written."""

    directory: str = Field("results", description="Directory of the reports and the history.")
    formats: list[Literal["markdown", "json", "html"]] = Field(
        default_factory=lambda: ["markdown", "json", "html"],  # type: ignore[arg-type]
        description="Which reports to write: eval_report.md, eval_report.json and/or "
        "eval_report.html (one self-contained page).",
    )
    history: bool = Field(True, description="Append one line per run to results.jsonl.")
    regression_tolerance: UnitFloat = Field(
        0.05,
        description="The report flags a score that dropped by more than this since the "
        "previous run (flagged only; thresholds decide the exit code).",
    )


class RegressionSettings(_Section):
    """Whether the run got worse than a baseline by more than the judge's noise."""

    baseline: str = Field(
        "history",
        description="What the run is compared with, case by case: history (each case's "
        "scores from the last complete run with the same judge identity that was not flagged "
        "as a regression, kept under the output directory's baselines/), the path of an "
        "earlier eval_report.json (the main branch's artifact), or none.",
    )
    alpha: SignificanceLevel = Field(
        0.05,
        description="A change is significant when its p-value (a paired sign-flip test over "
        "the cases both runs scored) is below this (greater than 0, at most 0.5).",
    )
    min_drop: UnitFloat = Field(
        0.05,
        description="A regression is a significant drop of at least this much (smaller "
        "significant drops are reported, not flagged).",
    )
    fail: bool = Field(
        False,
        description="A regression (a significant drop of a mean, or a case that newly fails "
        "with stable verdicts) fails the run (exit 1, with what regressed in the reason), and "
        "a baseline the comparison cannot use makes it fatal (exit 3); otherwise regressions "
        "and the reason are reported only.",
    )
    flaky: Literal["report", "quarantine"] = Field(
        "report",
        description="A case whose outcome flipped in at least 2 of its last flaky_window runs "
        "with the same answer and contexts is listed as judge-flaky; quarantine: its failure "
        "does not fail the run (the report says so).",
    )
    flaky_window: int = Field(5, ge=2, le=50, description="Runs looked at for flaky cases.")


class ExitCodeSettings(_Section):
    """Exit codes of the plugin's own verdicts."""

    critical: ExitCode = Field(2, description="Exit code when a critical case fails.")
    fatal: ExitCode = Field(
        3,
        description="Exit code when the run gives no verdict: invalid input, a judge that "
        "cannot be built or failed for every case, a RAG system that failed for every case.",
    )

    @model_validator(mode="after")
    def _distinct(self) -> ExitCodeSettings:
        # No code may mean two things: 1 is pytest's "a test failed", and pytest's own code
        # equal to the critical one is turned into the fatal one.
        for name in ("critical", "fatal"):
            if getattr(self, name) == 1:
                raise ValueError(f"exit_codes.{name} cannot be 1: it means a test failed")
        if self.critical == self.fatal:
            raise ValueError(
                f"exit_codes.critical and exit_codes.fatal must differ (both {self.critical})"
            )
        return self


class ConcurrencySettings(_Section):
    """How much work runs at once: cases evaluated ahead of the tests, RAG queries in flight,
    judge requests in flight (backing off on 429 and overload)."""

    limit: int = Field(
        8, ge=1, le=256, description="Cases evaluated at once (or --rag-concurrency)."
    )
    rag: int | None = Field(
        None, ge=1, le=256, description="RAG queries in flight (default: limit)."
    )
    judge: int | None = Field(
        None,
        ge=1,
        le=512,
        description="Judge requests in flight (default: twice the limit; halves on 429 and "
        "overload, then recovers).",
    )
    prefetch: bool = Field(
        True,
        description="Query and judge the selected cases ahead of the tests (under "
        "pytest-xdist, each worker one test ahead).",
    )


class HttpRetrySettings(RetrySettings):
    """Retries of the HTTP adapter on connect errors, timeouts, 408, 409, 429 and 5xx."""


class HttpResponseSettings(_Section):
    """Where answer, contexts and sources live in the JSON response (dotted paths,
    ``[0]`` and ``[*]`` for lists; ``null`` for contexts means "not returned")."""

    answer: str = Field("answer", description="Path of the answer, e.g. data.answer.")
    contexts: str | None = Field(
        "contexts",
        description="Path of the contexts: strings or objects with text (and source), e.g. "
        "data.documents[*].text.",
    )
    sources: str | None = Field(
        None, description="Path of the sources, when not inside the context objects."
    )


class HttpSettings(_Section):
    """The HTTP adapter (``adapter: http``)."""

    endpoint: str | None = Field(
        None, description="URL of the RAG system (or --rag-endpoint); implies adapter http."
    )
    method: Literal["POST", "GET", "PUT"] = Field("POST", description="HTTP method.")
    body: dict[str, Any] | None = Field(
        default=None,
        description='Request template; "{question}" is replaced (default {"question": ...}).',
    )
    body_format: Literal["json", "form"] = Field(
        "json", description="Send the body as JSON or as form fields."
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="Headers sent with every query (use ${VAR} for credentials); they win "
        "over --rag-header and RAG_AUTH_HEADER.",
    )
    header_args: list[str] = Field(
        default_factory=list, description='"Name: value" headers from --rag-header.'
    )
    response: HttpResponseSettings = Field(default_factory=HttpResponseSettings)
    timeout: float = Field(default=30.0, gt=0, description="Seconds per attempt.")
    max_response_bytes: int = Field(
        default=10_000_000, gt=0, description="Larger responses are an error for the case."
    )
    retry: HttpRetrySettings = Field(default_factory=HttpRetrySettings)

    @field_validator("endpoint")
    @classmethod
    def _endpoint_valid(cls, value: str | None) -> str | None:
        return None if value is None else http_url(value)

    @field_validator("headers")
    @classmethod
    def _headers_valid(cls, value: dict[str, str]) -> dict[str, str]:
        for name, header_value in value.items():
            check_header(name, str(header_value))
        return value

    @field_validator("header_args")
    @classmethod
    def _header_args_valid(cls, value: list[str]) -> list[str]:
        return [header_line(line) for line in value]

    def __repr_args__(self) -> Any:
        """No credential in a repr (``pytest -l`` prints the locals of a failing test): the
        endpoint without user info or query string, header values masked."""
        for name, value in super().__repr_args__():
            hide = _HIDDEN.get(name)
            yield name, hide(value) if hide is not None and value else value


def _masked_headers(headers: dict[str, str]) -> dict[str, str]:
    return {name: MASK for name in headers}


def _masked_header_args(lines: list[str]) -> list[str]:
    return [f"{line.partition(':')[0]}: {MASK}" for line in lines]


_HIDDEN: dict[str | None, Callable[[Any], Any]] = {
    "endpoint": display_url,
    "headers": _masked_headers,
    "header_args": _masked_header_args,
}
"""How a field of the ``http:`` section that may hold a credential shows in a repr."""


class LangChainSettings(_Section):
    """The LangChain adapter: the chain's input and output keys."""

    input_key: str | None = Field(
        default=None, description="None: the question is the whole input."
    )
    answer_key: str = Field("answer", description="Output key of the answer.")
    context_key: str = Field("context", description="Output key of the retrieved Documents.")
    source_key: str | None = Field(default=None, description="Document metadata key of the source.")


class LlamaIndexSettings(_Section):
    """The LlamaIndex adapter."""

    source_key: str | None = Field(default=None, description="Node metadata key of the source.")


def _check_metric_keys(value: Mapping[str, Any], *, extra: tuple[str, ...] = ()) -> None:
    known = registered_names() | set(extra)
    for key in value:
        if key not in known:
            raise ValueError(f"unknown metric {key!r} (known: {', '.join(sorted(known))})")


class MetricCheck(BaseModel):
    """A zero-code metric's entry as a map: its per-case threshold and the metric's
    parameters (``retrieval_ndcg: {threshold: 0.6, k: 5}``)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    threshold: UnitFloat | None = None

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def _check_metric_params(name: str, check: MetricCheck) -> None:
    """Build the metric once, so that an unknown or invalid parameter stops the run here."""
    from ..metrics.conversation import split_aggregate
    from ..metrics.registry import get_metric

    if check.params:
        try:
            get_metric(name, **split_aggregate(check.params)[1])
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from None


class Settings(_Section):
    """Everything the plugin can be told. Field docs feed the configuration reference."""

    adapter: Literal["callable", "http", "langchain", "llamaindex"] | None = Field(
        None, description="How to reach the RAG system when no rag_adapter fixture is defined."
    )
    target: str | None = Field(
        None,
        description="The RAG callable: module:function or path/to/file.py:function.",
    )
    slow_threshold: float = Field(
        5.0, gt=0, description="Queries slower than this many seconds are flagged as slow."
    )
    tags: list[str] = Field(
        default_factory=list, description="Run only cases with at least one of these tags."
    )
    dry_run: bool = Field(False, description="Validate and list the plan; call nothing.")
    shard: str | None = Field(
        None,
        description="Run one shard of the cases, I/N (every N-th case from the I-th); "
        "`rag-eval merge` combines the shards' reports.",
    )
    weights: dict[str, Annotated[float, BeforeValidator(not_a_bool), Field(ge=0)]] = Field(
        default_factory=lambda: dict(DEFAULT_WEIGHTS),
        description="Composite weights per metric, normalised over the metrics present.",
    )
    thresholds: dict[str, UnitFloat] = Field(
        default_factory=dict,
        description="Run-level gates: 'composite' and per-metric means; exit 1 when not met.",
    )
    metrics: dict[str, MetricCheck] | None = Field(
        None,
        description="Zero-code mode: metrics checked for every case, each with its per-case "
        "threshold (null = the metric's default threshold), or a map of `threshold` and the "
        "metric's parameters (`retrieval_ndcg: {threshold: 0.6, k: 5}`).",
    )
    report_only: bool = Field(
        False,
        description="Per-case thresholds do not fail tests: scores below them are reported "
        "(and counted in the exit reason); run-level gates (`thresholds`) still apply.",
    )
    not_judged: Literal["skip", "fail"] = Field(
        "skip",
        description="What an assertion does when its metric could not be judged.",
    )
    answer_comparison: Literal["similarity", "correctness"] | None = Field(
        None,
        description="How answers are compared with the ground truth in zero-code mode when "
        "`metrics` is not set: answer_similarity (embeddings), answer_correctness (judge), or "
        "neither (null). Either assertion computes the other beside it for the report.",
    )
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    concurrency: ConcurrencySettings = Field(default_factory=ConcurrencySettings)
    output: OutputSettings = Field(default_factory=OutputSettings)
    exit_codes: ExitCodeSettings = Field(default_factory=ExitCodeSettings)
    regression: RegressionSettings = Field(default_factory=RegressionSettings)
    http: HttpSettings = Field(default_factory=HttpSettings)
    langchain: LangChainSettings = Field(default_factory=LangChainSettings)
    llamaindex: LlamaIndexSettings = Field(default_factory=LlamaIndexSettings)

    @field_validator("target")
    @classmethod
    def _target_valid(cls, value: str | None) -> str | None:
        if value is not None:
            module, sep, attr = value.rpartition(":")
            if not sep or not module or not attr or not attr.replace(".", "_").isidentifier():
                raise ValueError(
                    f"{value!r} is not of the form module:attribute (or path/to/file.py:attribute)"
                )
        return value

    @field_validator("tags")
    @classmethod
    def _tags_named(cls, value: list[str]) -> list[str]:
        tags = [tag.strip() for tag in value]
        if "" in tags:
            raise ValueError("a tag must not be blank")
        return tags

    @field_validator("shard")
    @classmethod
    def _shard_valid(cls, value: str | None) -> str | None:
        if value is not None:
            from ..data.sharding import parse_shard

            return str(parse_shard(value))
        return value

    @field_validator("weights")
    @classmethod
    def _weights_known(cls, value: dict[str, float]) -> dict[str, float]:
        _check_metric_keys(value)
        if value and not any(w > 0 for w in value.values()):
            raise ValueError("at least one weight must be greater than 0")
        return value

    @field_validator("thresholds")
    @classmethod
    def _thresholds_known(cls, value: dict[str, float]) -> dict[str, float]:
        _check_metric_keys(value, extra=("composite",))
        return value

    @field_validator("metrics", mode="before")
    @classmethod
    def _bare_thresholds(cls, value: object) -> object:
        # `faithfulness: 0.9` is short for `faithfulness: {threshold: 0.9}`.
        if isinstance(value, dict):
            return {k: v if isinstance(v, dict) else {"threshold": v} for k, v in value.items()}
        return value

    @field_validator("metrics")
    @classmethod
    def _metrics_known(cls, value: dict[str, MetricCheck] | None) -> dict[str, MetricCheck] | None:
        if value is not None:
            _check_metric_keys(value)
            for name, entry in value.items():
                _check_metric_params(name, entry)
        return value

    def normalised_weights(self) -> dict[str, float]:
        total = sum(self.weights.values())
        return {k: v / total for k, v in self.weights.items() if v > 0} if total else {}
