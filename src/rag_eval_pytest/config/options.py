"""Command-line and ini options of the plugin, declared once as data.

Each :class:`OptionSpec` becomes a ``--rag-*`` command-line option and a ``rag_*`` ini key,
and names the settings path it overrides. Stdlib only: the entry point imports this module
on every pytest run, with or without ``--rag-dataset``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..metrics.registry import METRIC_NAMES
from ..values import OptionValueError, header_line, http_url

if TYPE_CHECKING:
    from collections.abc import Callable

IniType = Literal["string", "paths", "args", "linelist", "bool"]


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise OptionValueError(f"{text!r} is not a number") from None


def unit_interval(text: str) -> float:
    """Option type: a float in [0, 1]."""
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise OptionValueError(f"{text.strip()} is not between 0 and 1")
    return value


def positive_float(text: str) -> float:
    """Option type: a float > 0 (seconds)."""
    value = _number(text)
    if not value > 0:
        raise OptionValueError(f"{text.strip()} must be greater than 0")
    return value


def tag_list(text: str) -> list[str]:
    """Option type: comma-separated tags, blanks dropped."""
    tags = [part.strip() for part in text.split(",") if part.strip()]
    if not tags:
        raise OptionValueError(f"{text!r} names no tag")
    return tags


def positive_int(text: str) -> int:
    """Option type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise OptionValueError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise OptionValueError(f"{text.strip()} must be 1 or more")
    return value


def judge_kind(text: str) -> str:
    """Option type: ``auto``, ``anthropic``, ``openai``, ``local``, ``module:attr`` or an
    entry point name."""
    text = text.strip()
    if not text or any(ch.isspace() for ch in text):
        raise OptionValueError(
            f"{text!r} is not a judge: use auto, anthropic, openai, local, module:attribute "
            "or the name of an installed judge"
        )
    return text


def shard(text: str) -> str:
    """Option type: ``I/N``."""
    from ..data.sharding import parse_shard

    try:
        return str(parse_shard(text))
    except ValueError as exc:
        raise OptionValueError(str(exc)) from None


def module_attr(text: str) -> str:
    """Option type: ``module:attr`` or ``path/to/file.py:attr``."""
    module, sep, attr = text.rpartition(":")
    if not sep or not module or not attr or not attr.replace(".", "_").isidentifier():
        raise OptionValueError(
            f"{text!r} is not of the form module:attribute (or path/to/file.py:attribute)"
        )
    return text


@dataclass(frozen=True)
class OptionSpec:
    """One option: its flag, the ini key beside it, and the settings path it overrides."""

    flag: str
    help: str
    setting: str | None
    type: Callable[[str], Any] | None = None
    action: str = "store"
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    ini_type: IniType = "string"
    turns_off: bool = False
    """A flag that sets its setting to false (``--rag-no-cache``: ``judge.cache``)."""

    def convert(self, text: str) -> Any:
        """One value as given (a string) -> the setting's value; raises OptionValueError."""
        if self.choices is not None and text not in self.choices:
            raise OptionValueError(f"{text!r} is not one of {', '.join(self.choices)}")
        return text if self.type is None else self.type(text)

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def ini_name(self) -> str:
        return self.dest


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--rag-dataset",
        "Dataset file (JSON, JSONL or YAML) whose cases parametrize tests taking rag_case. "
        "Repeatable.",
        setting=None,
        action="append",
        metavar="PATH",
        ini_type="paths",
    ),
    OptionSpec(
        "--rag-config",
        "Configuration file (default: eval-config.yaml at the rootdir, else [tool.rag_eval] "
        "in pyproject.toml)",
        setting=None,
        metavar="PATH",
    ),
    OptionSpec(
        "--rag-output-dir",
        "Directory of eval_report.md, eval_report.json and results.jsonl (default: results)",
        setting="output.directory",
        metavar="DIR",
    ),
    OptionSpec(
        "--rag-fail-under",
        "Exit 1 when the composite score of the run is below this value",
        setting="thresholds.composite",
        type=unit_interval,
        metavar="SCORE",
    ),
    *(
        OptionSpec(
            f"--rag-fail-under-{metric.replace('_', '-')}",
            f"Exit 1 when the mean {metric} of the run is below this value",
            setting=f"thresholds.{metric}",
            type=unit_interval,
            metavar="SCORE",
        )
        for metric in METRIC_NAMES
    ),
    OptionSpec(
        "--rag-dry-run",
        "Validate dataset and configuration, list the cases and metrics, call nothing",
        setting="dry_run",
        action="store_true",
        ini_type="bool",
    ),
    OptionSpec(
        "--rag-report-only",
        "Report scores without failing tests on per-case thresholds; run-level gates "
        "(thresholds:) still decide the exit code",
        setting="report_only",
        action="store_true",
        ini_type="bool",
    ),
    OptionSpec(
        "--rag-tags",
        "Run only cases with at least one of these tags (comma-separated). Repeatable.",
        setting="tags",
        type=tag_list,
        action="append",
        metavar="TAGS",
        ini_type="args",
    ),
    OptionSpec(
        "--rag-shard",
        "Run shard I of N (every N-th case, from the I-th), for CI matrices; combine the "
        "reports with `rag-eval merge`",
        setting="shard",
        type=shard,
        metavar="I/N",
    ),
    OptionSpec(
        "--rag-adapter",
        "How to reach the RAG system when no rag_adapter fixture is defined",
        setting="adapter",
        choices=("callable", "http", "langchain", "llamaindex"),
        metavar="KIND",
    ),
    OptionSpec(
        "--rag-target",
        "The RAG callable (or LangChain runnable, LlamaIndex query engine or index), as "
        "module:attr or path/to/file.py:attr",
        setting="target",
        type=module_attr,
        metavar="MODULE:ATTR",
    ),
    OptionSpec(
        "--rag-endpoint",
        "URL of the RAG system for the HTTP adapter (implies --rag-adapter http)",
        setting="http.endpoint",
        type=http_url,
        metavar="URL",
    ),
    OptionSpec(
        "--rag-header",
        'HTTP header "Name: value" for the HTTP adapter. Repeatable. Config http.headers wins '
        "over it; it wins over the RAG_AUTH_HEADER environment variable.",
        setting="http.header_args",
        type=header_line,
        action="append",
        metavar='"NAME: VALUE"',
        ini_type="linelist",
    ),
    OptionSpec(
        "--rag-timeout",
        "Seconds per HTTP attempt (default: 30), or per call of any other adapter "
        "(default: 300), before it counts as a timeout",
        setting="http.timeout",
        type=positive_float,
        metavar="SECONDS",
    ),
    OptionSpec(
        "--rag-judge",
        "Judge of the judge-based metrics: auto (Anthropic when ANTHROPIC_API_KEY is set, else "
        "the offline local judge), anthropic, openai, local, or module:attribute",
        setting="judge.kind",
        type=judge_kind,
        metavar="JUDGE",
    ),
    OptionSpec(
        "--rag-judge-model",
        "Model of the LLM judge (default: the judge's default model)",
        setting="judge.model",
        metavar="MODEL",
    ),
    OptionSpec(
        "--rag-judge-passes",
        "Ask each judge question N times and take the majority verdict (default: 3)",
        setting="judge.passes",
        type=positive_int,
        metavar="N",
    ),
    OptionSpec(
        "--rag-judge-deadline",
        "Seconds the judge may take in all, from its first request (default: 7200); then it "
        "stops, and the run ends with the fatal code naming the deadline",
        setting="judge.deadline",
        type=positive_float,
        metavar="SECONDS",
    ),
    OptionSpec(
        "--rag-device",
        "Where the local judge's models run: cpu (default), cuda, or auto (cuda when present)",
        setting="judge.local.device",
        choices=("cpu", "cuda", "auto"),
        metavar="DEVICE",
    ),
    OptionSpec(
        "--rag-no-cache",
        "Do not read or write the judge cache",
        setting="judge.cache",
        action="store_true",
        turns_off=True,
        ini_type="bool",
    ),
    OptionSpec(
        "--rag-concurrency",
        "Cases queried and judged at once, ahead of the tests (default: 8)",
        setting="concurrency.limit",
        type=positive_int,
        metavar="N",
    ),
    OptionSpec(
        "--rag-slow-threshold",
        "Flag queries slower than this many seconds (default: 5)",
        setting="slow_threshold",
        type=positive_float,
        metavar="SECONDS",
    ),
)
