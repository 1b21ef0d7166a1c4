"""Stand-ins for the pytest objects the plugin's hooks read, and a small evaluation session.

:class:`Config` subclasses ``pytest.Config`` without running its ``__init__``, so the hook
guard finds it by type, and holds only what a test gives: ini keys, options, plugins,
verbosity, an xdist worker's ``workerinput``. :class:`Terminal` keeps the lines written to
it. :func:`eval_session` is a real :class:`EvalSession` over a dataset written to a folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.data.dataset import load_datasets
from rag_eval_pytest.engine.session import EvalSession
from rag_eval_pytest.redaction import Redactor
from rag_eval_pytest.reporting.payload import RunInfo

RUN = RunInfo(run_id="20260101T000000Z-abcdef", started_at="2026-01-01T00:00:00Z")


class Terminal:
    """The terminal reporter: what was written, line by line, the sections opened, and the
    reports it keeps by category (``stats``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.sections: list[str] = []
        self.stats: dict[str, list[Any]] = {}

    def write_line(self, line: str, **markup: Any) -> None:
        self.lines.append(line)

    def line(self, line: str = "", **markup: Any) -> None:
        self.lines.append(line)

    def section(self, title: str, sep: str = "=", **markup: Any) -> None:
        self.sections.append(title)

    def ensure_newline(self) -> None:
        pass


class Plugins:
    """The plugin manager: plugins by name."""

    def __init__(self, plugins: dict[str, Any]) -> None:
        self.plugins = plugins

    def get_plugin(self, name: str) -> Any:
        return self.plugins.get(name)

    def register(self, plugin: Any, name: str | None = None) -> str:
        key = name or str(id(plugin))
        self.plugins[key] = plugin
        return key

    def is_blocked(self, name: str) -> bool:
        return False


class Config(pytest.Config):
    """A ``pytest.Config`` made of the values a test gives; unset ini keys read ``None``, as
    the plugin registers them."""

    def __init__(
        self,
        root: Path,
        *,
        ini: dict[str, Any] | None = None,
        options: dict[str, Any] | None = None,
        plugins: dict[str, Any] | None = None,
        verbose: int = 0,
        tbstyle: str = "auto",
        workerinput: dict[str, Any] | None = None,
        args: tuple[str, ...] = (),
        inipath: Path | None = None,
        invocation_dir: Path | None = None,
    ) -> None:
        self._rootpath = root
        self._inipath = inipath
        self.invocation_params = SimpleNamespace(dir=invocation_dir or root, args=args)
        self.ini = {"filterwarnings": [], **(ini or {})}
        self.options = dict(options or {})
        self.option = SimpleNamespace(verbose=verbose, tbstyle=tbstyle)
        self.known_args_namespace = SimpleNamespace(pythonwarnings=None)
        self.stash = pytest.Stash()
        self.terminal = Terminal()
        self.pluginmanager = Plugins({"terminalreporter": self.terminal, **(plugins or {})})
        self.recorded: list[Any] = []  # the warnings pytest would list in its summary
        self.hook = SimpleNamespace(
            pytest_warning_recorded=SimpleNamespace(
                call_historic=lambda kwargs: self.recorded.append(kwargs["warning_message"])
            )
        )
        if workerinput is not None:
            self.workerinput = workerinput

    def getini(self, name: str) -> Any:
        return self.ini.get(name)

    def getoption(self, name: str, default: Any = None, skip: bool = False) -> Any:
        return self.options.get(name, default)

    def get_verbosity(self, verbosity_type: str | None = None) -> int:
        return int(self.option.verbose)

    def get_terminal_writer(self) -> Any:
        return self.terminal

    def addinivalue_line(self, name: str, line: str) -> None:
        self.ini.setdefault(name, []).append(line)


def write_dataset(folder: Path, *cases: dict[str, Any], name: str = "qa.json") -> Path:
    """A JSON dataset of ``cases`` (each with a question and ground truth unless given)."""
    full = [{"question": f"Question {c['id']}?", "ground_truth": "g", **c} for c in cases]
    path = folder / name
    path.write_text(json.dumps({"test_cases": full}), encoding="utf-8")
    return path


def eval_session(folder: Path, *cases: dict[str, Any], **settings: Any) -> EvalSession:
    """The session of a run over ``cases`` (two plain ones when none are given), those of
    the ``tags`` setting selected."""
    path = write_dataset(folder, *(cases or ({"id": "a"}, {"id": "b"})))
    return EvalSession(
        settings=Settings(**settings),
        datasets=load_datasets([path], tags=settings.get("tags", ())),
        redactor=Redactor(),
        run=RUN,
    )
