"""The layering contract in pyproject.toml holds, and it catches an import against the layers.

``lint-imports`` (run by ``make lint``, so by ``.ci/run``) reads the contract. Here it runs on
a copy of the package: unchanged, the contract is kept; with one import added that goes up a
layer, or that closes a cycle inside a subpackage, the run fails and names that import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

ROOT = Path(__file__).parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _copy_project(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "src" / "rag_eval_pytest",
        tmp_path / "src" / "rag_eval_pytest",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(project / "pyproject.toml"), "--no-cache"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _add_import(module: Path, line: str) -> None:
    text = module.read_text(encoding="utf-8")
    head = "from __future__ import annotations\n"
    assert head in text
    module.write_text(text.replace(head, head + "\n" + line + "\n", 1), encoding="utf-8")


def test_the_package_keeps_its_layers(tmp_path: Path) -> None:
    result = _lint_imports(_copy_project(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "added", "named"),
    [
        pytest.param(
            "data/dataset.py",
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from ..engine.session import EvalSession",
            "rag_eval_pytest.data.dataset -> rag_eval_pytest.engine.session",
            id="upward-through-type-checking",
        ),
        pytest.param(
            "judges/base.py",
            "from ..metrics import registry",
            "rag_eval_pytest.judges.base -> rag_eval_pytest.metrics.registry",
            id="upward",
        ),
        pytest.param(
            "engine/session.py",
            "from . import engine",
            # the planted edge, among those that would make the package acyclic
            "No cycles are allowed in rag_eval_pytest.engine.|- .session -> .engine",
            id="cycle-inside-a-subpackage",
        ),
    ],
)
def test_an_import_against_the_layers_fails_the_lint(
    tmp_path: Path, module: str, added: str, named: str
) -> None:
    project = _copy_project(tmp_path)
    _add_import(project / "src" / "rag_eval_pytest" / module, added)

    result = _lint_imports(project)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "BROKEN" in result.stdout
    for line in named.split("|"):
        assert line in result.stdout, result.stdout
