"""Resolution: the validated :class:`~.settings.Settings` of a run, from its sources.

Precedence, highest first: command line (``--rag-*``), pytest ini (``rag_*``), the config file
(:mod:`.files`), built-in defaults. ``${VAR}`` references in the config file are expanded
(:mod:`.expansion`), keys an earlier version accepted are rewritten (:mod:`.deprecations`), and
an invalid value is one line that names its source (:mod:`.wording`). Unknown keys are an
error that names the key. Pytest-free: the plugin gathers the raw values and calls
:func:`resolve_settings`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..errors import ConfigError
from .deprecations import replace_deprecated
from .expansion import interpolate
from .files import TOO_DEEP, ConfigFile, anchor_paths
from .settings import Settings
from .wording import explain

if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True)
class Override:
    """A value from the command line or the ini file, as given (text, or a list of texts),
    with where it came from as the user would name it (``--rag-fail-under``,
    ``rag_fail_under in pytest.ini``): the model validates it, and an error starts with
    ``source``."""

    path: str
    value: Any
    source: str


@dataclass
class ResolvedConfig:
    settings: Settings
    file: ConfigFile
    secrets: set[str] = field(repr=False)
    deprecations: list[str] = field(default_factory=list)
    """A notice per deprecated key that was given (and converted): warnings of the run."""


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


def resolve_settings(
    file: ConfigFile,
    overrides: list[Override],
    env: Mapping[str, str] | None = None,
) -> ResolvedConfig:
    """Merge defaults < config file < overrides into validated :class:`Settings`."""
    env = os.environ if env is None else env
    secrets: set[str] = set()
    references: dict[str, str] = {}
    data, deprecations = _file_data(file, env, secrets, references)
    origin = _override(data, overrides)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise explain(exc, origin, file.label, secrets, references) from None
    file.secrets = secrets
    return ResolvedConfig(settings=settings, file=file, secrets=secrets, deprecations=deprecations)


def _file_data(
    file: ConfigFile, env: Mapping[str, str], secrets: set[str], references: dict[str, str]
) -> tuple[dict[str, Any], list[str]]:
    """The config file's data, expanded, its deprecated keys rewritten (with their notices)
    and its paths anchored, valid on its own."""
    try:
        data = interpolate(file.data, env, file.label, secrets, references=references)
        deprecations = replace_deprecated(data, file.label)
        if file.path is not None:
            anchor_paths(data, file.path.parent)
        Settings.model_validate(data)
    except ValidationError as exc:
        raise explain(exc, {}, file.label, secrets, references) from None
    except RecursionError:
        raise ConfigError(f"Invalid configuration {file.label}: {TOO_DEEP}") from None
    return data, deprecations


def _override(data: dict[str, Any], overrides: list[Override]) -> dict[str, str]:
    """The overrides set in ``data``; where each value came from, by its key."""
    origin: dict[str, str] = {}
    for override in overrides:
        _set_path(data, override.path, override.value)
        origin[override.path] = override.source
    return origin
