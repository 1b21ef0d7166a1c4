"""Command-line and ini options of the plugin, declared once as data.

Each :class:`OptionSpec` names a ``--rag-*`` command-line option, the ``rag_*`` ini key beside
it and the settings path it overrides: what a CI job sets per run. A knob set once per project
(the local judge's device, the regression gate's tuning, retries) is a key of the config file
alone; :data:`REMOVED_INI_KEYS` names what replaces the options an earlier version read.

The table checks no value: the raw text goes to the settings model
(:func:`~rag_eval_pytest.config.resolution.resolve_settings`), which validates every value
once, wherever it came from, and names its source in the error. Stdlib only: the entry point
imports this module on every pytest run, with or without ``--rag-dataset``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..metrics.registry import METRIC_NAMES

if TYPE_CHECKING:
    from collections.abc import Callable

IniType = Literal["string", "paths", "args", "linelist", "bool"]

_TRUE = frozenset({"y", "yes", "t", "true", "on", "1"})
_FALSE = frozenset({"n", "no", "f", "false", "off", "0"})


def ini_flag(value: object) -> bool | None:
    """The truth value of a ``bool`` ini key as pytest reads one (``true``, ``yes``, ``1``,
    ``off``, ... in any case), ``None`` when it is not one: the settings then refuse it by
    name, with the fatal code (pytest would end the run with its usage error)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in _TRUE else False if text in _FALSE else None


@dataclass(frozen=True)
class OptionSpec:
    """One option: its flag, the ini key beside it, and the settings path it overrides."""

    flag: str | None
    """``None``: an ini key only (``ini`` names it)."""
    help: str
    setting: str | None
    action: str = "store"
    metavar: str | None = None
    ini_type: IniType = "string"
    ini: str | None = None
    """The ini key, when it is not the flag's name (``--rag-x-y``: ``rag_x_y``)."""
    split: str | None = None
    """A value is a list of items joined by this separator (``--rag-tags a,b``)."""
    path: bool = False
    """The value is a path, relative to where it was given (the working directory for a
    flag, the ini file's directory for an ini key)."""
    turns_off: bool = False
    """A flag that sets its setting to false (``--rag-no-cache``: ``judge.cache``)."""
    keyed: str | None = None
    """Each value is ``KEY=VALUE`` for the setting's entry ``KEY``, a bare value for the entry
    named here (``--rag-fail-under faithfulness=0.8``; ``--rag-fail-under 0.8``: composite)."""

    @property
    def dest(self) -> str:
        return self.ini or (self.flag or "").lstrip("-").replace("-", "_")

    @property
    def ini_name(self) -> str:
        return self.dest

    @property
    def registered_ini_type(self) -> IniType:
        """The type pytest reads the ini key as: a flag's key as text, which
        :func:`ini_flag` reads, so that a bad value is the plugin's to name."""
        return "string" if self.ini_type == "bool" else self.ini_type

    def items(self, text: str) -> list[str]:
        """One value as given -> its items: split at ``split`` (blanks dropped), else itself.
        A value that holds only separators stays one blank item, which the settings refuse."""
        if self.split is None:
            return [text]
        return [part.strip() for part in text.split(self.split) if part.strip()] or [""]


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
        "Configuration file (default: eval-config.yaml in the current folder, then at the "
        "rootdir, else [tool.rag_eval] in pyproject.toml)",
        setting=None,
        metavar="PATH",
    ),
    OptionSpec(
        "--rag-output-dir",
        "Directory of eval_report.md, eval_report.json, eval_report.html and results.jsonl "
        "(default: results)",
        setting="output.directory",
        metavar="DIR",
        path=True,
    ),
    OptionSpec(
        "--rag-fail-under",
        "Exit 1 when a run mean is below SCORE: METRIC=SCORE for a metric "
        "(faithfulness=0.8), a bare SCORE for the composite. Repeatable.",
        setting="thresholds",
        action="append",
        metavar="[METRIC=]SCORE",
        ini_type="linelist",
        keyed="composite",
    ),
    OptionSpec(
        "--rag-dry-run",
        "Validate dataset and configuration, list the cases and metrics, call nothing",
        setting="dry_run",
        action="store_true",
        ini_type="bool",
    ),
    OptionSpec(
        "--rag-baseline",
        "What the run is compared with, case by case: history (each case's last run with "
        "the same judge that was not flagged as a regression), PATH to an earlier "
        "eval_report.json, or none",
        setting="regression.baseline",
        metavar="history|PATH|none",
    ),
    OptionSpec(
        "--rag-fail-on-regression",
        "Fail the run (exit 1) when a metric dropped since the baseline by more than the "
        "judge's noise (p < regression.alpha) and by at least regression.min_drop (config "
        "file keys), or a case newly fails with stable verdicts; a baseline that cannot be "
        "used is fatal (exit 3)",
        setting="regression.fail",
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
        action="append",
        split=",",
        metavar="TAGS",
        ini_type="args",
    ),
    OptionSpec(
        "--rag-shard",
        "Run shard I of N (every N-th case, from the I-th), for CI matrices; combine the "
        "reports with `rag-eval merge`",
        setting="shard",
        metavar="I/N",
    ),
    OptionSpec(
        "--rag-adapter",
        "How to reach the RAG system when no rag_adapter fixture is defined",
        setting="adapter",
        metavar="KIND",
    ),
    OptionSpec(
        "--rag-target",
        "The RAG callable (or LangChain runnable, LlamaIndex query engine or index), as "
        "module:attr or path/to/file.py:attr",
        setting="target",
        metavar="MODULE:ATTR",
    ),
    OptionSpec(
        "--rag-endpoint",
        "URL of the RAG system for the HTTP adapter (implies --rag-adapter http)",
        setting="http.endpoint",
        metavar="URL",
    ),
    OptionSpec(
        "--rag-header",
        'HTTP header "Name: value" for the HTTP adapter. Repeatable. Config http.headers wins '
        "over it; it wins over the RAG_AUTH_HEADER environment variable.",
        setting="http.header_args",
        action="append",
        metavar='"NAME: VALUE"',
        ini_type="linelist",
    ),
    OptionSpec(
        "--rag-timeout",
        "Seconds per HTTP attempt (default: 30), or per call of any other adapter "
        "(default: 300), before it counts as a timeout",
        setting="http.timeout",
        metavar="SECONDS",
    ),
    OptionSpec(
        "--rag-judge",
        "Judge of the judge-based metrics: auto (Anthropic when ANTHROPIC_API_KEY is set, else "
        "the offline local judge), anthropic, openai, local, or module:attribute",
        setting="judge.kind",
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
        "Votes per judge question, a majority that stops once decided; auto (default): one, "
        "and judge.max_passes (3) only for a score near its threshold",
        setting="judge.passes",
        metavar="N|auto",
    ),
    OptionSpec(
        "--rag-judge-deadline",
        "Seconds the judge may take in all, from its first request (default: 7200); then it "
        "stops, and the run ends with the fatal code naming the deadline",
        setting="judge.deadline",
        metavar="SECONDS",
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
        metavar="N",
    ),
    OptionSpec(
        "--rag-slow-threshold",
        "Flag queries slower than this many seconds (default: 5)",
        setting="slow_threshold",
        metavar="SECONDS",
    ),
    OptionSpec(
        None,
        "Exit code when a critical case fails (default 2)",
        setting="exit_codes.critical",
        ini="rag_critical_exit_code",
    ),
    OptionSpec(
        None,
        "Exit code for fatal errors (default 3)",
        setting="exit_codes.fatal",
        ini="rag_fatal_exit_code",
    ),
)

_CONFIG_FILE = "in the config file (eval-config.yaml, or [tool.rag_eval] in pyproject.toml)"

REMOVED_INI_KEYS: dict[str, str] = {
    **{f"rag_fail_under_{m}": f"rag_fail_under = {m}=SCORE" for m in METRIC_NAMES},
    "rag_device": f"judge.local.device {_CONFIG_FILE}",
    "rag_regression_alpha": f"regression.alpha {_CONFIG_FILE}",
    "rag_regression_min_drop": f"regression.min_drop {_CONFIG_FILE}",
    "rag_flaky": f"regression.flaky {_CONFIG_FILE}",
    "rag_flaky_window": f"regression.flaky_window {_CONFIG_FILE}",
}
"""Ini keys an earlier version read (with their flags: ``--rag-fail-under-<metric>``,
``--rag-device``), each with what to write instead. They stay declared to pytest, so that a
value given is an error naming the replacement rather than pytest's warning of an unknown
key, which a run would pass with the gate or setting silently gone."""


def removed_ini_key(getini: Callable[[str], object]) -> str | None:
    """The first removed ini key that is given a value (``getini``: pytest's), else ``None``."""
    return next((name for name in REMOVED_INI_KEYS if getini(name) not in (None, "", [])), None)
