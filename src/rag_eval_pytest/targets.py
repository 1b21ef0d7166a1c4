"""Import a user's object named ``module:attr`` or ``path/to/file.py:attr``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType


def load_target(spec: str, search_paths: Sequence[Path] = ()) -> Any:
    """Import ``module:attr`` or ``path/to/file.py:attr`` (dotted attrs allowed)."""
    module_part, sep, attr = spec.rpartition(":")
    if not sep or not module_part or not attr:
        raise ConfigError(f"target {spec!r} is not of the form module:attribute")
    if module_part.endswith(".py"):
        module = _file_module(spec, module_part, search_paths)
    else:
        module = _named_module(spec, module_part, search_paths)
    return _attribute(spec, module, module_part, attr)


def _attribute(spec: str, module: ModuleType, module_part: str, attr: str) -> Any:
    """The module's attribute at the dotted path ``attr``."""
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"target {spec!r}: {module_part} has no attribute {attr!r}") from None
    return obj


def _found(module_part: str, search_paths: Sequence[Path]) -> Path:
    """A relative file's path under the first search path that has it, else as given."""
    path = Path(module_part)
    if path.is_absolute():
        return path
    for base in search_paths:
        if (base / path).is_file():
            return base / path
    return path


def _file_module(spec: str, module_part: str, search_paths: Sequence[Path]) -> ModuleType:
    """The module of a ``.py`` file, run with its folder importable."""
    path = _found(module_part, search_paths)
    if not path.is_file():
        raise ConfigError(f"target {spec!r}: file {module_part} not found")
    name = f"rag_eval_target_{abs(hash(str(path.resolve())))}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ConfigError(f"target {spec!r}: cannot import {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        module_spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent.resolve()))
    return module


def _named_module(spec: str, module_part: str, search_paths: Sequence[Path]) -> ModuleType:
    """An importable module, the search paths on ``sys.path`` while it is imported."""
    added = [str(p) for p in search_paths if str(p) not in sys.path]
    sys.path[:0] = added
    try:
        return importlib.import_module(module_part)
    except ModuleNotFoundError as exc:
        raise ConfigError(f"target {spec!r}: module {exc.name!r} not found") from None
    finally:
        for p in added:
            sys.path.remove(p)
