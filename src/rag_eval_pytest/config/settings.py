"""Configuration: the :class:`Settings` model and how it is resolved.

Precedence, highest first: command line (``--rag-*``), pytest ini (``rag_*``), the config file
(``--rag-config``, else ``eval-config.yaml``/``.yml`` at the rootdir, else ``[tool.rag_eval]``
in ``pyproject.toml``), built-in defaults. ``${VAR}`` and ``${VAR:-default}`` in config-file
strings are replaced from the environment (a default may hold references:
``${A:-${B:-x}}``); ``$${`` is a literal ``${``, any other ``${`` that is not a whole
reference is an error, as is a key given twice in a YAML file. Unknown keys are an
error that names the key. Pytest-free: the plugin gathers the raw values and calls
:func:`resolve_settings`.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from ..data import bigints
from ..errors import ConfigError
from ..judges.settings import JudgeSettings
from ..metrics.registry import DEFAULT_WEIGHTS, registered_names
from ..redaction import MASK, display_url, is_credential_name
from ..runtime.retry import MAX_ATTEMPTS, RetrySettings
from ..values import check_header, header_line, http_url, not_a_bool, numbers_not_bools

if TYPE_CHECKING:
    from collections.abc import Mapping


def _number_text(value: float) -> str:
    """``2.0`` -> ``2``, ``0.25`` -> ``0.25``: a number as a person would type it."""
    text = repr(value)
    return text.removesuffix(".0") if text.endswith(".0") else text


def _unit_interval(value: float) -> float:
    if not 0.0 <= value <= 1.0:  # NaN included
        raise ValueError(f"{_number_text(value)} is not between 0 and 1")
    return value


UnitFloat = Annotated[float, BeforeValidator(not_a_bool), AfterValidator(_unit_interval)]
ExitCode = Annotated[int, Field(ge=1, le=255)]
CONFIG_FILE_NAMES = ("eval-config.yaml", "eval-config.yml")
_TOO_DEEP = "nested too deeply to be a configuration"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REFERENCE_HELP = "write ${NAME} or ${NAME:-default}, and $${ for a literal ${"
# Keys whose values are never repeated in a message: they may hold credentials.
_UNECHOED_KEYS = ("http.endpoint", "http.headers", "http.header_args", "judge.base_url")


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
        description="What the run is compared with, case by case: history (the last "
        "complete run of the same selection, kept under the output directory's baselines/), "
        "the path of an earlier eval_report.json (the main branch's artifact), or none.",
    )
    alpha: UnitFloat = Field(
        0.05,
        description="A change is significant when its p-value (a paired sign-flip test over "
        "the cases both runs scored) is below this.",
    )
    min_drop: UnitFloat = Field(
        0.05,
        description="A regression is a significant drop of at least this much (smaller "
        "significant drops are reported, not flagged).",
    )
    fail: bool = Field(
        False,
        description="A regression fails the run (exit 1, the metric, change and p-value in "
        "the reason); otherwise regressions are reported only.",
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
            if name == "endpoint" and value:
                yield name, display_url(value)
            elif name == "headers":
                yield name, {k: MASK for k in value}
            elif name == "header_args":
                yield name, [f"{line.partition(':')[0]}: {MASK}" for line in value]
            else:
                yield name, value


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
    from ..metrics.registry import get_metric

    if check.params:
        try:
            get_metric(name, **check.params)
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


@dataclass(frozen=True)
class Override:
    """A value from the command line or the ini file, as given (text, or a list of texts),
    with where it came from as the user would name it (``--rag-fail-under``,
    ``rag_fail_under in pytest.ini``): the model validates it, and an error starts with
    ``source``."""

    path: str
    value: Any
    source: str
    deprecated: str | None = None
    """The option is deprecated: the notice the run gives."""


@dataclass
class ConfigFile:
    path: Path | None
    # Not in the repr: the data may be huge (YAML aliases) and the secrets are secrets.
    data: dict[str, Any] = field(repr=False)
    secrets: set[str] = field(default_factory=set, repr=False)
    searched: tuple[Path, ...] = ()
    """The folders looked in for a config file (none given by --rag-config)."""

    @property
    def label(self) -> str:
        return str(self.path) if self.path else "defaults"

    def describe(self) -> str:
        """Which file configured the run, or where none was found: for the header line and
        the errors that send the user to the config."""
        if self.path is not None:
            return str(self.path)
        folders = " and ".join(str(folder) for folder in self.searched) or "the rootdir"
        return (
            f"none (no {' or '.join(CONFIG_FILE_NAMES)} or [tool.rag_eval] in "
            f"pyproject.toml in {folders})"
        )


@dataclass
class ResolvedConfig:
    settings: Settings
    file: ConfigFile
    secrets: set[str] = field(repr=False)
    deprecations: list[str] = field(default_factory=list)
    """A notice per deprecated key that was given (and converted): warnings of the run."""


# --------------------------------------------------------------------------- config file


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"Invalid configuration {path}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"Invalid configuration {path}: {_TOO_DEEP}") from None
    except ValueError as exc:  # an integer too long for Python to read
        raise ConfigError(f"Invalid configuration {path}: {exc}") from None


def _load_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"Invalid configuration {path}: not UTF-8 text") from None
    try:
        data, problem = bigints.read_yaml(text, "a configuration")
    except bigints.Unreadable as exc:
        raise ConfigError(f"Invalid configuration {path}: {exc}") from None
    if problem is not None:
        raise ConfigError(f"Invalid configuration {path}: {problem}")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"Invalid configuration {path}: expected a mapping of keys, found {type(data).__name__}"
        )
    return data


def find_config_file(
    rootpath: Path, explicit: Path | None, current: Path | None = None
) -> ConfigFile:
    """The config file in force: explicit, else eval-config.yaml (or .yml), else
    [tool.rag_eval] in pyproject.toml, looked for in the current folder (``current``, where
    pytest was started) and then in the rootdir: a config beside the tests one runs from a
    sub-folder of the project is the one meant."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"Configuration file {explicit} not found")
        if explicit.name == "pyproject.toml":
            return ConfigFile(explicit, _tool_section(explicit))
        if explicit.suffix.lower() == ".toml":
            return ConfigFile(explicit, _load_toml(explicit))
        return ConfigFile(explicit, _load_yaml(explicit))
    folders = tuple(dict.fromkeys(f for f in (current, rootpath) if f is not None))
    for folder in folders:
        for name in CONFIG_FILE_NAMES:
            candidate = folder / name
            if candidate.is_file():
                return ConfigFile(candidate, _load_yaml(candidate), searched=folders)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            section = _tool_section(pyproject)
            if section:
                return ConfigFile(pyproject, section, searched=folders)
    return ConfigFile(None, {}, searched=folders)


def _tool_section(pyproject: Path) -> dict[str, Any]:
    tool = _load_toml(pyproject).get("tool", {})
    section = tool.get("rag_eval", {}) if isinstance(tool, dict) else {}
    if not isinstance(section, dict):
        raise ConfigError(f"Invalid configuration {pyproject}: [tool.rag_eval] must be a table")
    return section


def interpolate(
    data: Any,
    env: Mapping[str, str],
    label: str,
    secrets: set[str],
    path: str = "",
    _done: dict[int, Any] | None = None,
    *,
    references: dict[str, str] | None = None,
) -> Any:
    """Replace ``${VAR}`` / ``${VAR:-default}`` in every string of ``data``.

    Values taken from variables whose names look like credentials are added to ``secrets``;
    each string that held a reference is added to ``references`` under its key, so that an
    error can say where its value came from. A list or mapping that appears several times (a
    YAML alias) is interpolated once and stays shared, so a few lines of aliases never expand
    into millions of copies.
    """
    done: dict[int, Any] = {} if _done is None else _done
    if isinstance(data, (dict, list)):
        if id(data) in done:
            return done[id(data)]
        if isinstance(data, dict):
            result: Any = {}
            done[id(data)] = result
            for k, v in data.items():
                result[k] = interpolate(
                    v,
                    env,
                    label,
                    secrets,
                    f"{path}.{k}" if path else str(k),
                    done,
                    references=references,
                )
        else:
            result = []
            done[id(data)] = result
            result.extend(
                interpolate(v, env, label, secrets, f"{path}[{i}]", done, references=references)
                for i, v in enumerate(data)
            )
        return result
    if not isinstance(data, str):
        return data
    if references is not None and "${" in data:
        references[path] = data

    return _Expansion(data, env, label, secrets, path).run()


class _Expansion:
    """The references of one config string, read left to right; a default is read to its
    closing brace, references in it included, and looked up only when it is used."""

    def __init__(
        self, text: str, env: Mapping[str, str], label: str, secrets: set[str], path: str
    ) -> None:
        self.text, self.env, self.label, self.secrets, self.path = text, env, label, secrets, path

    def fail(self, problem: str) -> ConfigError:
        return ConfigError(f"Invalid configuration {self.label}: key {self.path!r}: {problem}")

    def run(self) -> str:
        value, _ = self.expand(0, nested=False, live=True)
        return value

    def expand(self, i: int, *, nested: bool, live: bool) -> tuple[str, int]:
        """The text from ``i`` with its references replaced, and where it ends: at the end of
        the string, or (``nested``, a default) at the brace that closes the reference."""
        text, out = self.text, []
        while i < len(text):
            if text.startswith("$${", i):
                out.append("${")
                i += 3
            elif text.startswith("${", i):
                value, i = self.reference(i, live=live)
                out.append(value)
            elif nested and text[i] == "}":
                return "".join(out), i
            else:
                out.append(text[i])
                i += 1
        if nested:
            raise self.fail(f"a '${{' is never closed by '}}' ({_REFERENCE_HELP})")
        return "".join(out), i

    def reference(self, start: int, *, live: bool) -> tuple[str, int]:
        """The value of the reference at ``start`` and the index after its closing brace."""
        match = _ENV_NAME.match(self.text, start + 2)
        if match is None:
            raise self.fail(f"a '${{' is not followed by a variable name ({_REFERENCE_HELP})")
        name, i = match.group(), match.end()
        value = self.env.get(name) if live else ""
        default: str | None = None
        if self.text.startswith(":-", i):
            default, i = self.expand(i + 2, nested=True, live=live and value is None)
        if i >= len(self.text) or self.text[i] != "}":
            raise self.fail(f"the reference to {name} is not closed by '}}' ({_REFERENCE_HELP})")
        if value is None:
            if default is None:
                raise self.fail(
                    f"environment variable {name} is not set "
                    f"(write ${{{name}:-default}} to give a default)"
                )
            value = default
        elif (
            live
            and value
            and (is_credential_name(name) or is_credential_name(self.path.rpartition(".")[2]))
        ):
            self.secrets.add(value)
        return value, i + 1


# --------------------------------------------------------------------------- resolution


def _set_path(data: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    node = data
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[parts[-1]] = value


_UNION_MEMBER = re.compile(r"^(int|float|str|bool|constrained-\w+|literal\[.*\])$")


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_PROBLEMS = {
    "float_parsing": "{value} is not a number",
    "float_type": "{value} is not a number",
    "int_parsing": "{value} is not a whole number",
    "int_type": "{value} is not a whole number",
    "int_from_float": "{value} is not a whole number",
    "bool_parsing": "{value} is not true or false",
    "bool_type": "{value} is not true or false",
    "greater_than": "{value} must be greater than {gt}",
    "greater_than_equal": "{value} must be {ge} or more",
    "less_than": "{value} must be less than {lt}",
    "less_than_equal": "{value} must be {le} or less",
    "literal_error": "{value} is not one of {expected}",
}
"""Pydantic's error types, said the way the option table's messages say them."""


def _shown(value: Any) -> str:
    """A value in a message, as it was typed: numbers bare, text quoted."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return _number_text(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return repr(value if len(value) <= 80 else value[:80] + "...")
        return value.strip()
    return {dict: "a mapping", list: "a list", type(None): "null"}.get(type(value), "the value")


def _problem(err: Any, *, echo: bool) -> str:
    """What is wrong with the value, in one sentence that shows it unless it is secret."""
    msg = str(err["msg"]).removeprefix("Value error, ")
    template = _PROBLEMS.get(err["type"])
    value = err.get("input")
    if template is not None:
        ctx = {k: _shown(v) for k, v in (err.get("ctx") or {}).items()}
        if "expected" in ctx:  # "'a', 'b' or 'c'" -> "a, b, c"
            ctx["expected"] = ", ".join(re.findall(r"'([^']*)'", str(err["ctx"]["expected"])))
        return template.format(value=_shown(value) if echo else "the value", **ctx)
    if not echo or isinstance(value, (dict, list, type(None))) or _shown(value) in msg:
        return msg
    return f"{msg} (got {value!r})"


def _explain(
    exc: ValidationError,
    origin: Mapping[str, str],
    file_label: str,
    secrets: set[str],
    references: Mapping[str, str],
) -> ConfigError:
    """One line: the source of the value (the flag, the ini key and its file, or the config
    file and key) and what is wrong with it."""
    err = exc.errors()[0]
    # A value of a union (judge.passes: a number or auto) is reported per member; the first
    # member's error is the one meant, at the key itself.
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and _UNION_MEMBER.match(p)))
    # A dict-key validator reports at the dict itself; name the offending key instead.
    key = _loc(tuple(loc))
    source: str | None = None
    for prefix, label in origin.items():
        if (
            key == prefix
            or key.startswith((prefix + ".", prefix + "["))
            or prefix.startswith(key + ".")
        ):
            source = label
            break
    if err["type"] == "extra_forbidden":
        parent = Settings
        for part in loc[:-1]:
            annotation = parent.model_fields[str(part)].annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                parent = annotation  # type: ignore[assignment]
        allowed = ", ".join(parent.model_fields)
        return ConfigError(
            f"Invalid configuration {file_label}: unknown key {key!r} (allowed: {allowed})"
        )
    unechoed = any(key == k or key.startswith((k + ".", k + "[")) for k in _UNECHOED_KEYS)
    secret = isinstance(err.get("input"), str) and err["input"] in secrets
    problem = _problem(err, echo=not (unechoed or secret))
    if source is not None:
        return ConfigError(f"{source}: {problem}")
    written = references.get(key)
    where = f"key {key!r}" + (f" ({written!r} from the environment)" if written else "")
    return ConfigError(f"Invalid configuration {file_label}: {where}: {problem}")


def _replace_deprecated(data: dict[str, Any], label: str) -> list[str]:
    """Rewrite keys an earlier version accepted as the keys that replace them; one notice
    per key rewritten."""
    return _replace_no_cache(data, label) + _replace_max_retries(data, label)


def _replace_no_cache(data: dict[str, Any], label: str) -> list[str]:
    judge = data.get("judge")
    if not isinstance(judge, dict) or "no_cache" not in judge:
        return []
    value = judge.pop("no_cache")
    try:
        cache_off = TypeAdapter(bool).validate_python(value)
    except ValidationError as exc:
        msg = exc.errors()[0]["msg"]
        raise ConfigError(
            f"Invalid configuration {label}: key 'judge.no_cache': {msg} (got {value!r})"
        ) from None
    if cache_off:  # it overrode judge.cache
        judge["cache"] = False
    return [
        f"{label}: 'judge.no_cache' is deprecated: use 'judge.cache' "
        "(no_cache: true is cache: false)"
    ]


def _anchor_paths(data: dict[str, Any], base: Path) -> None:
    """Relative paths in a config file are relative to the file, not to the cwd."""
    output = data.get("output")
    if isinstance(output, dict) and isinstance(output.get("directory"), str):
        directory = Path(output["directory"])
        if not directory.is_absolute():
            output["directory"] = str(base / directory)
    judge = data.get("judge")
    if isinstance(judge, dict) and isinstance(judge.get("calibration"), str):
        calibration = Path(judge["calibration"])
        if not calibration.is_absolute():
            judge["calibration"] = str(base / calibration)
    target = data.get("target")
    if isinstance(target, str):
        module, sep, attr = target.rpartition(":")
        if sep and module.endswith(".py") and not Path(module).is_absolute():
            data["target"] = f"{base / module}:{attr}"


def _replace_max_retries(data: dict[str, Any], label: str) -> list[str]:
    judge = data.get("judge")
    if not isinstance(judge, dict) or "max_retries" not in judge:
        return []
    retries = judge.pop("max_retries")
    if isinstance(retries, str) and retries.strip().isdigit():
        retries = int(retries)  # from ${VAR}
    retry = judge.setdefault("retry", {})
    if retry is None:
        retry = judge["retry"] = {}
    if type(retries) is not int or not 0 <= retries < MAX_ATTEMPTS:
        raise ConfigError(
            f"Invalid configuration {label}: key 'judge.max_retries': should be a whole "
            f"number from 0 to {MAX_ATTEMPTS - 1}; it is deprecated: use "
            "judge.retry.max_attempts, which counts the first try"
        )
    if isinstance(retry, dict) and "max_attempts" in retry:
        raise ConfigError(
            f"Invalid configuration {label}: judge.max_retries and judge.retry.max_attempts "
            "are both given: keep judge.retry.max_attempts (max_retries is deprecated)"
        )
    if isinstance(retry, dict):  # anything else: the validation names judge.retry
        retry["max_attempts"] = retries + 1
    return [
        f"judge.max_retries in {label} is deprecated: use judge.retry.max_attempts, which "
        f"counts the first try (max_retries: {retries} is max_attempts: {retries + 1})"
    ]


def resolve_settings(
    file: ConfigFile,
    overrides: list[Override],
    env: Mapping[str, str] | None = None,
) -> ResolvedConfig:
    """Merge defaults < config file < overrides into validated :class:`Settings`."""
    env = os.environ if env is None else env
    secrets: set[str] = set()
    references: dict[str, str] = {}
    try:
        data = interpolate(file.data, env, file.label, secrets, references=references)
        deprecations = _replace_deprecated(data, file.label)
        if file.path is not None:
            _anchor_paths(data, file.path.parent)
        Settings.model_validate(data)
    except ValidationError as exc:
        raise _explain(exc, {}, file.label, secrets, references) from None
    except RecursionError:
        raise ConfigError(f"Invalid configuration {file.label}: {_TOO_DEEP}") from None
    origin: dict[str, str] = {}
    for override in overrides:
        _set_path(data, override.path, override.value)
        origin[override.path] = override.source
        if override.deprecated:
            deprecations.append(override.deprecated)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise _explain(exc, origin, file.label, secrets, references) from None
    file.secrets = secrets
    return ResolvedConfig(settings=settings, file=file, secrets=secrets, deprecations=deprecations)
