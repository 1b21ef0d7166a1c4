"""The ``judge:`` section of the configuration (``Settings.judge``).

Pydantic only, so that the configuration can import it without importing any judge.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from ..redaction import display_url
from ..runtime.retry import RetrySettings
from ..values import http_url, numbers_not_bools

ENTRY_POINT_GROUP = "rag_eval.judges"
BUILTIN_KINDS = ("auto", "anthropic", "openai", "local", "cascade")
LOCAL_CHECKS = (
    *("numbers", "times", "days", "routes", "dates", "negation", "swaps", "holders", "agents"),
    *("items", "places", "known_for"),
)
"""The local judge's checks, by name, in the order they run (``judges/local/pipeline.py``)."""
REMOVED_CHECKS = ("day_times", "names", "binding")
"""Checks the local judge had: switching each off changed no verdict of the benchmark sets'
held-out halves (``benchmarks/judge_accuracy.py --ablate``), so they were removed."""
DEFAULT_DEADLINE = 7200.0
"""Two hours of judging: a judge that hangs, or answers 429 for ever, cannot hold a CI job
until the job's own timeout kills it without a report."""


def _not_a_check(name: str) -> str:
    """Why ``name`` names no check of the local judge."""
    if name in REMOVED_CHECKS:
        return f"check {name!r} was removed: switching it off changed no measured verdict"
    return f"unknown check {name!r}"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)
    _numbers = field_validator("*", mode="before")(numbers_not_bools)


class PriceSettings(_Section):
    """USD per million tokens."""

    input: float = Field(ge=0, description="USD per million input tokens.")
    output: float = Field(ge=0, description="USD per million output tokens.")


class LocalJudgeSettings(_Section):
    """The local judge (``kind: local``): all-MiniLM-L6-v2 and deterministic checks, offline.
    The thresholds default to the values calibrated on the benchmark dev sets
    (docs/judges-local.md)."""

    support_threshold: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Support score from which a claim is supported (default: calibrated, "
        "0.39). Higher is stricter.",
    )
    ambiguous_threshold: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Support score from which a claim that is not supported is reported as "
        "'only partly supported' rather than 'not mentioned' (default: calibrated, 0.2). "
        "Either way the claim is not mentioned: only a contradiction is unsupported.",
    )
    relevance_threshold: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Relevance score from which a context sentence counts as needed for the "
        "question (context relevance; default: calibrated, 0.46).",
    )
    unsure: Literal["escalate", "pass", "fail", "not_judged"] = Field(
        "not_judged",
        description="A verdict that depends on items the local judge was unsure of (a verdict "
        "whose kind of evidence is not right often enough to decide alone, relevance ratings "
        "and context sentences included, a score in its unsure band): "
        "not_judged (reported, with a line saying how many cases need an LLM judge; the run "
        "is not green, see judge.unsupported), pass (the unsure items count as yes), fail "
        "(as no), or escalate (asked of an LLM judge; without one, not judged).",
    )
    device: Literal["cpu", "cuda", "auto"] = Field(
        "cpu", description="Where the embedding model runs: cpu, cuda, or auto (cuda if present)."
    )
    embedding_model: str | None = Field(
        None,
        description="A sentence-transformers model folder to embed with instead of the shipped "
        "all-MiniLM-L6-v2 (needs the sentence-transformers extra). The calibrated thresholds "
        "were fitted on all-MiniLM-L6-v2. Nothing is downloaded.",
    )
    nli_model: str | None = Field(
        None,
        description="A local entailment (NLI) model used beside the rules: a folder with a saved "
        "sequence-classification cross-encoder, or an .onnx file with tokenizer.json beside it. "
        "Nothing is downloaded.",
    )
    nli_labels: list[str] | None = Field(
        None,
        description="The entailment model's outputs, in order (default: id2label of its "
        "config.json, else contradiction, entailment, neutral).",
    )
    nli_threshold: float = Field(
        0.5, ge=0, le=1, description="Entailment probability from which a claim is supported."
    )
    checks: dict[str, bool] = Field(
        default_factory=dict,
        description="The local judge's checks switched on or off by name (`numbers: false`): "
        + ", ".join(LOCAL_CHECKS)
        + ". A check switched off finds nothing; the calibration and the kinds of evidence "
        "that decide alone were measured with every check on.",
    )

    @field_validator("checks")
    @classmethod
    def _known_checks(cls, value: dict[str, bool]) -> dict[str, bool]:
        unknown = [name for name in value if name not in LOCAL_CHECKS]
        if unknown:
            raise ValueError(f"{_not_a_check(unknown[0])} (the checks: {', '.join(LOCAL_CHECKS)})")
        return value

    @property
    def checks_off(self) -> frozenset[str]:
        return frozenset(name for name, on in self.checks.items() if not on)

    @model_validator(mode="after")
    def _ordered(self) -> LocalJudgeSettings:
        low, high = self.ambiguous_threshold, self.support_threshold
        if low is not None and high is not None and low > high:
            raise ValueError("ambiguous_threshold must not exceed support_threshold")
        return self


class JudgeRetrySettings(RetrySettings):
    """Retries of a judge request on timeouts, dropped connections, 408, 409, 429, 5xx and
    overload (the same policy as http.retry)."""


class JudgeSettings(_Section):
    """Which judge scores the judge-based metrics, and how."""

    kind: str = Field(
        "auto",
        description="auto (Anthropic when ANTHROPIC_API_KEY is set, else local), anthropic, "
        "openai, local, cascade (the local judge, then the LLM judge of judge.then for what "
        "it is unsure of), or a custom judge as module:attribute or an entry point name of "
        "the rag_eval.judges group.",
    )
    model: str | None = Field(None, description="The judge model (default: the kind's default).")
    base_url: str | None = Field(
        None, description="API base URL (default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL)."
    )
    api_key: SecretStr | None = Field(
        None, description="API key (default: ANTHROPIC_API_KEY / OPENAI_API_KEY); use ${VAR}."
    )
    passes: Annotated[int, Field(ge=1, le=15)] | Literal["auto"] = Field(
        "auto",
        description="Votes per question (a majority vote that stops once decided), or auto: "
        "one vote, and max_passes only for a verdict whose score is within vote_margin of "
        "its threshold (where more votes can change it).",
    )
    max_passes: int = Field(
        3, ge=2, le=15, description="passes: auto: the votes a verdict near its threshold gets."
    )
    vote_margin: float = Field(
        0.2,
        ge=0,
        le=1,
        description="passes: auto: how near its threshold a score is asked again with "
        "max_passes votes.",
    )
    cache: bool = Field(True, description="Cache judge replies on disk (false: as --rag-no-cache).")
    cache_dir: str | None = Field(
        None, description="Cache directory (default: rag_eval_judge in pytest's cache)."
    )
    cache_max_age_days: float | None = Field(
        30,
        gt=0,
        description="At the end of a run, cache entries (and sentence vectors) not used for "
        "this many days are removed. null: however old.",
    )
    cache_max_mb: float | None = Field(
        500,
        gt=0,
        description="At the end of a run, the least recently used cache entries are removed "
        "until the cache folder holds at most this many MB. null: no limit.",
    )
    timeout: float = Field(
        60.0,
        gt=0,
        description="Seconds per judge request (a custom judge's call too); 3 requests in a "
        "row that time out stop the judge (a judge that never answers ends the run in about 2 "
        "minutes).",
    )
    retry: JudgeRetrySettings = Field(default_factory=JudgeRetrySettings)
    deadline: float | None = Field(
        DEFAULT_DEADLINE,
        gt=0,
        description="Seconds the judge may take in all (or --rag-judge-deadline), from its "
        "first request, in each process (each xdist worker): then it stops, the questions "
        "left are not judged and the run ends with the fatal code. null: no limit.",
    )
    prices: dict[str, PriceSettings] = Field(
        default_factory=dict, description="Price overrides per model name (prefix)."
    )
    local: LocalJudgeSettings = Field(default_factory=LocalJudgeSettings)
    calibration: str | None = Field(
        None,
        description="A calibration file written by `rag-eval calibrate` (relative to the "
        "config file): its thresholds, chosen on your own labels, become the metrics' "
        "defaults (a test's own threshold still wins); the header says whether the run's judge "
        "is the one it was calibrated for.",
    )
    then: JudgeSettings | None = Field(
        None,
        description="kind: cascade: the LLM judge asked what the local judge (judge.local) is "
        "unsure of, and what it cannot answer, configured as the judge section is (kind, "
        "model, base_url, api_key, passes, ...). Default: anthropic when ANTHROPIC_API_KEY is "
        "set.",
    )
    unsupported: Literal["fail", "report"] | None = Field(
        None,
        description="A run in which a check could not run with the judge it got (a criterion "
        "under the local judge), or whose verdicts depended on items the local judge was "
        "unsure of (judge.local.unsure: not_judged): fail (exit 1, the default, whichever "
        "judge was chosen) or report (reported, the run may pass: for runs without the LLM "
        "judge's key, such as pull requests from forks). Never fatal: a check not judged is "
        "no outage. The test's other assertions run either way; a test whose only outcome is "
        "not judged is reported as skipped.",
    )
    max_context_tokens: int | None = Field(
        None, ge=1000, description="The judge's window; longer data is truncated with a note."
    )
    sdk_debug_logs: bool = Field(
        False,
        description="Let the DEBUG records of the anthropic, openai, httpx and httpcore "
        "loggers (whole request bodies) into pytest's log capture and live logging; "
        "off by default, even at --log-level=DEBUG.",
    )

    @field_validator("kind")
    @classmethod
    def _kind_exists(cls, value: str) -> str:
        """Refuse a judge that cannot exist before anything runs (a dry run included): a name
        that is neither built in nor an installed entry point, or a malformed
        ``module:attr``. Loads nothing: a ``module:attr`` is imported when the first judged
        metric needs it."""
        value = value.strip()
        if value in BUILTIN_KINDS:
            return value
        if ":" in value:
            return _target_kind(value)
        return _installed_kind(value)

    @field_validator("base_url")
    @classmethod
    def _base_url_valid(cls, value: str | None) -> str | None:
        return None if value is None else http_url(value)

    def __repr_args__(self) -> Any:
        """No credential in a repr (``pytest -l``): the base URL without user info or query
        string (the API key is a ``SecretStr`` already)."""
        for name, value in super().__repr_args__():
            yield name, display_url(value) if name == "base_url" and value else value

    @model_validator(mode="after")
    def _then_is_an_llm_judge(self) -> JudgeSettings:
        if self.then is not None and self.then.kind in ("cascade", "local"):
            raise ValueError(
                f"judge.then: a cascade's second tier is an LLM judge, not {self.then.kind!r}"
            )
        return self

    @property
    def fixed_passes(self) -> int:
        """The votes every question gets (1 under ``passes: auto``)."""
        return 1 if self.passes == "auto" else int(self.passes)

    def price_table(self) -> dict[str, tuple[float, float]]:
        return {name: (p.input, p.output) for name, p in self.prices.items()}


JudgeSettings.model_rebuild()  # ``then`` is a JudgeSettings itself


def unknown_judge(name: str) -> str:
    """The message for a judge name that is neither built in nor an installed entry point."""
    return (
        f"unknown judge {name!r}: use {', '.join(BUILTIN_KINDS)}, module:attribute, or the "
        f"name of an entry point in the {ENTRY_POINT_GROUP!r} group"
    )


def _target_kind(value: str) -> str:
    """A ``module:attribute`` judge, checked for its form only (it is imported when the first
    judged metric needs it)."""
    module, _, attribute = value.rpartition(":")
    if not module.strip() or not attribute.isidentifier():
        raise ValueError(f"judge {value!r}: expected module:attribute or path/to/file.py:attribute")
    return value


def _installed_kind(value: str) -> str:
    """A judge another package installs: an entry point of ours, by its name."""
    from importlib.metadata import entry_points

    if not any(ep.name == value for ep in entry_points(group=ENTRY_POINT_GROUP)):
        raise ValueError(unknown_judge(value))
    return value
