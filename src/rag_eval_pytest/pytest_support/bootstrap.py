"""From a ``pytest.Config`` to a ready :class:`EvalSession`: datasets, settings, run identity.

Called once per process from ``pytest_configure`` when ``--rag-dataset`` (or the ini key) is
given. Raises :class:`RagEvalError` subclasses for user errors; the plugin turns them into
one message and the fatal exit code.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..config.files import ConfigFile, find_config_file
from ..config.options import OPTIONS, REMOVED_INI_KEYS, OptionSpec, ini_flag, removed_ini_key
from ..config.resolution import Override, ResolvedConfig, resolve_settings
from ..data.dataset import load_datasets, missing_ground_truth_notice
from ..engine.session import EvalSession
from ..errors import ConfigError
from ..redaction import Redactor
from ..reporting.payload import RunInfo

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import pytest

    from ..config.settings import Settings
    from ..data.dataset import DatasetCollection, LoadedCase
    from ..metrics.base import Requirement

WORKER_RUN_KEY = "rag_eval_run"


def _ini_base(config: pytest.Config) -> Path:
    return config.inipath.parent if config.inipath else config.rootpath


def gather_overrides(config: pytest.Config) -> list[Override]:
    """Values given on the command line, else in the ini file, as settings overrides.

    Values stay as given (text, split into items where the option says so): the settings
    model validates them, and an error names the flag or the ini key and its file."""
    refuse_removed_ini_keys(config)
    overrides: list[Override] = []
    for spec in OPTIONS:
        given = _given(config, spec) if spec.setting is not None else None
        if given is not None:
            overrides.extend(_overrides_of(spec, given))
    return overrides


class _Given(NamedTuple):
    """An option's value as given, where (the flag, or the ini key and its file), and the
    folder a relative path in it is read from."""

    value: Any
    source: str
    base: Path


def _given(config: pytest.Config, spec: OptionSpec) -> _Given | None:
    """The option's flag value, else its ini key's; ``None`` when neither is given."""
    value: Any = config.getoption(spec.dest, None) if spec.flag else None
    if value not in (None, False, []):
        return _Given(value, spec.flag or "", config.invocation_params.dir)
    value = config.getini(spec.ini_name)
    if value in (None, "", []):
        return None
    return _Given(value, _ini_source(config, spec.ini_name), _ini_base(config))


def _overrides_of(spec: OptionSpec, given: _Given) -> list[Override]:
    """The overrides one option's value makes: none for a turning-off flag left on."""
    setting = spec.setting or ""
    value = _read_ini_bool(spec, given.value)
    if spec.turns_off and value is False:
        return []
    value = _shaped(spec, value, given.base)
    if spec.keyed is not None:
        return _keyed(setting, spec.keyed, value, given.source)
    return [Override(setting, value, given.source)]


def _read_ini_bool(spec: OptionSpec, value: Any) -> Any:
    """A flag's ini key read as pytest reads it; a value that is none is left as text, for
    the settings to refuse naming the key."""
    if spec.ini_type != "bool" or not isinstance(value, str):
        return value
    flag = ini_flag(value)
    return value if flag is None else flag


def _shaped(spec: OptionSpec, value: Any, base: Path) -> Any:
    """The value as the setting takes it: false for a turning-off flag, the items of a
    repeated flag or a list ini key, a path from where it was given."""
    if spec.turns_off:
        return False if value is True else value
    if isinstance(value, list):  # a repeated flag, or a list ini key
        return _items(spec, value)
    if spec.path:
        return str(base / str(value))
    return value


def _items(spec: OptionSpec, values: list[Any]) -> list[str]:
    return [item for text in values for item in spec.items(str(text))]


def _keyed(setting: str, default: str, values: Any, source: str) -> list[Override]:
    """``KEY=VALUE`` items as overrides of ``setting.KEY`` (a bare value: ``default``); the
    key is named as typed, a metric's own name with underscores or dashes."""
    overrides = []
    for text in values if isinstance(values, list) else [values]:
        key, sep, value = str(text).partition("=")
        if not sep:  # a bare value: named as the option alone, as before
            overrides.append(Override(f"{setting}.{default}", key.strip(), source))
            continue
        name = key.strip().replace("-", "_")
        overrides.append(Override(f"{setting}.{name}", value.strip(), f"{source} {key.strip()}"))
    return overrides


def refuse_removed_ini_keys(config: pytest.Config) -> None:
    """An ini key an earlier version read is an error naming what to write instead: read
    no more, it would leave a gate or a setting silently unset."""
    name = removed_ini_key(config.getini)
    if name is not None:
        raise ConfigError(
            f"{_ini_source(config, name)}: this key was removed: use {REMOVED_INI_KEYS[name]}"
        )


def _ini_source(config: pytest.Config, name: str) -> str:
    """Where an ini key's value came from: ``-o name`` (pytest's ``--override-ini``, which
    wins over the file), else ``name in tox.ini``."""
    overrides = config.getoption("override_ini", None) or []
    if any(str(item).partition("=")[0].strip() == name for item in overrides):
        return f"-o {name}"
    return f"{name} in {_ini_label(config)}"


def _ini_label(config: pytest.Config) -> str:
    """The ini file as the user would name it: relative to the working directory when below."""
    if config.inipath is None:
        return "the ini file"
    try:
        return str(config.inipath.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(config.inipath)


def fatal_exit_code(config: pytest.Config) -> int:
    """The fatal code, readable before the config file is (it reports config errors): the
    ini's, unless invalid or equal to the critical code (then 3, or 4 if 3 is critical)."""

    def ini_code(name: str, default: int) -> int | None:
        value = config.getini(name)
        try:
            code = int(value) if value not in (None, "") else default
        except ValueError:
            return None
        return code if 2 <= code <= 255 else None

    critical = ini_code("rag_critical_exit_code", 2)
    fatal = ini_code("rag_fatal_exit_code", 3)
    return next(c for c in (fatal, 3, 4) if c is not None and c != critical)


def resolve_config(config: pytest.Config) -> ResolvedConfig:
    explicit = config.getoption("rag_config", None)
    explicit_path: Path | None = None
    if explicit:
        explicit_path = config.invocation_params.dir / explicit
    elif config.getini("rag_config"):
        explicit_path = _ini_base(config) / str(config.getini("rag_config"))
    file: ConfigFile = find_config_file(
        config.rootpath, explicit_path, config.invocation_params.dir
    )
    return resolve_settings(file, gather_overrides(config))


def new_run_info() -> RunInfo:
    started = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    return RunInfo(
        run_id=f"{started:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:6]}",
        started_at=started.isoformat().replace("+00:00", "Z"),
    )


def _metrics_needing(requirement: Requirement) -> list[str]:
    """The registered metrics (built in and custom) that need ``requirement``, in report
    order."""
    from ..metrics.registry import metric_order, registered_names, requirements

    return [
        n for n in sorted(registered_names(), key=metric_order) if requirement in requirements(n)
    ]


def build_session(config: pytest.Config, paths: list[Path]) -> EvalSession:
    resolved = resolve_config(config)
    settings = resolved.settings
    _check_connection_settings(settings)
    return EvalSession(
        settings=settings,
        datasets=_load_cases(settings, paths, resolved.file.label),
        redactor=Redactor.from_environment(resolved.secrets),
        run=_run_info(config),
        search_paths=[config.rootpath, config.invocation_params.dir],
        config_warnings=resolved.deprecations,
        config_file=resolved.file.describe(),
        calibration=_calibration(settings),
        judge_cache_dir=judge_cache_dir(config),
        notify=terminal_notice(config),
    )


def _check_connection_settings(settings: Settings) -> None:
    """The judge's base URL and the HTTP adapter's headers, checked before any case is read."""
    from ..judges.factory import check_base_url

    check_base_url(settings.judge, os.environ)
    if settings.adapter == "http" or settings.http.endpoint:
        from ..values import resolve_headers

        resolve_headers(settings.http.headers, settings.http.header_args)  # RAG_AUTH_HEADER too


def _load_cases(settings: Settings, paths: list[Path], config_file: str) -> DatasetCollection:
    """The datasets' cases this run (or this shard) evaluates, with their notices."""
    datasets = load_datasets(paths, tags=settings.tags)
    if settings.shard is not None:
        from ..data.sharding import parse_shard, select_shard

        datasets = select_shard(datasets, parse_shard(settings.shard))
    if settings.adapter == "http" or (settings.adapter is None and settings.http.endpoint):
        _check_http_conversations(settings, datasets.cases, config_file)
    notice = missing_ground_truth_notice(datasets.cases, _metrics_needing("ground_truth"))
    if notice is not None:
        datasets.warnings.append(notice)
    return datasets


def _run_info(config: pytest.Config) -> RunInfo:
    """The run's identity: on an xdist worker, the controller's; else a new one."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKER_RUN_KEY in workerinput:
        return RunInfo(**workerinput[WORKER_RUN_KEY])
    return new_run_info()


def _check_http_conversations(
    settings: Settings, cases: Sequence[LoadedCase], config_file: str
) -> None:
    """The HTTP adapter's request must carry the history when the run asks conversations."""
    from ..adapters.http import check_conversations

    asked = [c.key for c in cases if c.case.is_conversation and not c.case.has_recorded_answer]
    check_conversations(settings.http.body, asked, config_file)


def _calibration(settings: Settings) -> dict[str, Any] | None:
    """The calibration file of ``judge.calibration``, read once (a bad one is fatal)."""
    if settings.judge.calibration is None:
        return None
    from ..engine.calibration import read_calibration

    return read_calibration(Path(settings.judge.calibration))


def terminal_notice(config: pytest.Config) -> Callable[[str], None]:
    """Print a line of information on pytest's terminal, also from inside a test (where the
    output is captured); quiet under ``-qq`` and on xdist workers. Not a warning: a strict
    ``filterwarnings = error`` must not turn information into a failure."""

    def notice(line: str) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or hasattr(config, "workerinput") or config.get_verbosity() < -1:
            return
        capture = config.pluginmanager.get_plugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            reporter.ensure_newline()
            reporter.write_line(line)

    return notice


def judge_cache_dir(config: pytest.Config) -> Path | None:
    """``rag_eval_judge`` in pytest's cache directory; ``None`` with ``-p no:cacheprovider``."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    return Path(cache.mkdir("rag_eval_judge"))


def output_dir(config: pytest.Config, session: EvalSession) -> Path:
    directory = Path(session.settings.output.directory)
    return directory if directory.is_absolute() else config.invocation_params.dir / directory
