"""The config file: which one is in force (``--rag-config``, else ``eval-config.yaml``/``.yml``
in the folder pytest was started in or at the rootdir, else ``[tool.rag_eval]`` in
``pyproject.toml``), reading it as TOML or YAML, and its relative paths made relative to it."""

from __future__ import annotations

import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..data import bigints
from ..errors import ConfigError

CONFIG_FILE_NAMES = ("eval-config.yaml", "eval-config.yml")
TOO_DEEP = "nested too deeply to be a configuration"


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
        raise ConfigError(f"Invalid configuration {path}: {TOO_DEEP}") from None
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
        return _explicit(explicit)
    folders = tuple(dict.fromkeys(f for f in (current, rootpath) if f is not None))
    for folder in folders:
        found = _in_folder(folder, folders)
        if found is not None:
            return found
    return ConfigFile(None, {}, searched=folders)


def _explicit(path: Path) -> ConfigFile:
    """The config file given: pyproject.toml's section, a TOML or a YAML file."""
    problem = _not_a_file(path)
    if problem is not None:
        raise ConfigError(f"Configuration file {path} {problem}")
    if path.name == "pyproject.toml":
        return ConfigFile(path, _tool_section(path))
    if path.suffix.lower() == ".toml":
        return ConfigFile(path, _load_toml(path))
    return ConfigFile(path, _load_yaml(path))


def _in_folder(folder: Path, folders: tuple[Path, ...]) -> ConfigFile | None:
    """The config file of ``folder``: eval-config.yaml (or .yml), else a pyproject.toml with
    a [tool.rag_eval] section; ``None`` when it has neither."""
    for name in CONFIG_FILE_NAMES:
        candidate = folder / name
        if candidate.is_file():
            return ConfigFile(candidate, _load_yaml(candidate), searched=folders)
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        section = _tool_section(pyproject)
        if section:
            return ConfigFile(pyproject, section, searched=folders)
    return None


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_a_file(path: Path) -> str | None:
    """Why ``path`` is no config file to read (``None`` when it is a regular file): not
    found, or what it is instead (``/dev/null`` is a character device, not an empty file)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "not found"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "something else")
    return f"is not a regular file: it is {kind}; give the path of a YAML or TOML file"


def _tool_section(pyproject: Path) -> dict[str, Any]:
    tool = _load_toml(pyproject).get("tool", {})
    section = tool.get("rag_eval", {}) if isinstance(tool, dict) else {}
    if not isinstance(section, dict):
        raise ConfigError(f"Invalid configuration {pyproject}: [tool.rag_eval] must be a table")
    return section


def anchor_paths(data: dict[str, Any], base: Path) -> None:
    """Relative paths in a config file are relative to the file, not to the cwd."""
    _anchor(data.get("output"), "directory", base)
    _anchor(data.get("judge"), "calibration", base)
    target = data.get("target")
    if isinstance(target, str) and _script_target(target):
        module, _, attr = target.rpartition(":")
        data["target"] = f"{base / module}:{attr}"


def _anchor(section: object, key: str, base: Path) -> None:
    """A section's relative path made relative to ``base``."""
    if isinstance(section, dict) and isinstance(section.get(key), str):
        path = Path(section[key])
        if not path.is_absolute():
            section[key] = str(base / path)


def _script_target(target: str) -> bool:
    """Whether a target names a script by a relative path (``app/rag.py:answer``)."""
    module, sep, _ = target.rpartition(":")
    return bool(sep) and module.endswith(".py") and not Path(module).is_absolute()
