"""Every command in the README and the guides works as written.

``pytest`` commands run for real with ``--rag-dry-run`` added (options, dataset and config are
validated; nothing is called) in a directory where the datasets they name exist. ``pip
install`` lines name extras that exist; ``make`` lines name targets of the Makefile (``make
demo`` and ``make test`` themselves are what CI runs).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).parents[3]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def commands() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in re.findall(r"```(?:console|bash|sh|shell)\n(.*?)```", text, re.S):
            joined = re.sub(r"\\\n\s*", " ", block)
            for line in joined.splitlines():
                line = line.strip().removeprefix("$ ")
                line = line.split("  #", 1)[0].strip()
                if line and not line.startswith("#"):
                    found.append((doc.name, line))
    return found


def words(command: str) -> list[str]:
    parts = shlex.split(command)
    while parts and re.match(r"^[A-Z_]+=", parts[0]):  # VAR=value before the command
        parts.pop(0)
    return parts


PYTEST = [(d, c) for d, c in commands() if words(c)[:1] == ["pytest"]]
OTHERS = [(d, c) for d, c in commands() if words(c)[:1] != ["pytest"]]


def test_the_docs_have_commands() -> None:
    assert len(PYTEST) >= 5
    assert any("make demo" in c for _, c in OTHERS)


@pytest.mark.parametrize(("doc", "command"), PYTEST, ids=[f"{d}:{c[:50]}" for d, c in PYTEST])
def test_pytest_commands_in_the_docs_are_valid(
    pytester: pytest.Pytester, doc: str, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = words(command)[1:]
    monkeypatch.setenv("RAG_API_TOKEN", "token-for-the-docs-test")
    dataset = {"test_cases": [{"id": "a", "question": "q?", "ground_truth": "g"}]}
    for i, arg in enumerate(args):
        if i > 0 and args[i - 1] == "--rag-dataset":
            path = pytester.path / arg
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(dataset))
        elif not arg.startswith("-") and "/" in arg and "." not in arg and ":" not in arg:
            (pytester.path / arg).mkdir(parents=True, exist_ok=True)  # a test directory
    result = pytester.runpytest(*args, "--rag-dry-run")
    assert result.ret == 0, f"{doc}: {command}\n{result.stdout.str()}\n{result.stderr.str()}"
    result.stdout.fnmatch_lines(["rag-eval dry run: dataset and configuration are valid*"])


def test_install_lines_name_real_extras_and_make_lines_real_targets() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = set(project["optional-dependencies"])
    makefile = (ROOT / "Makefile").read_text()
    for doc, command in OTHERS:
        parts = words(command)
        if parts[:2] == ["pip", "install"]:
            for part in parts[2:]:
                match = re.fullmatch(r"rag-eval-pytest(?:\[([\w,]+)\])?", part)
                if match and match.group(1):
                    assert set(match.group(1).split(",")) <= extras, (doc, command)
        elif parts[:1] == ["make"]:
            assert re.search(rf"^{parts[1]}:", makefile, re.M), (doc, command)
