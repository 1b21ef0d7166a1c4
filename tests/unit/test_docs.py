"""The documentation tells the truth about the options and the configuration.

Every ``--rag-*`` option named in the README and the guides exists; every configuration
snippet marked ``# eval-config.yaml`` and the example suite's config validate against the
settings model; every guide the README links exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from rag_eval_pytest.config import ConfigFile, resolve_settings
from rag_eval_pytest.options import METRIC_NAMES, OPTIONS

ROOT = Path(__file__).parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FLAGS = {spec.flag for spec in OPTIONS}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_option_named_in_the_docs_exists(doc: Path) -> None:
    named = set(re.findall(r"--rag-[a-z-]*[a-z]", doc.read_text(encoding="utf-8")))
    generic = {"--rag-fail-under-"}  # written as --rag-fail-under-<metric>
    unknown = sorted(n for n in named - FLAGS if n not in generic)
    assert unknown == []
    for metric in METRIC_NAMES:
        assert f"--rag-fail-under-{metric.replace('_', '-')}" in FLAGS


def config_snippets() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", text, re.S)):
            if block.startswith("# eval-config.yaml"):
                found.append((f"{doc.name}#{i}", block))
    found.append(("examples/eval-config.yaml", (ROOT / "examples/eval-config.yaml").read_text()))
    return found


@pytest.mark.parametrize(("where", "text"), config_snippets(), ids=lambda v: str(v)[:40])
def test_config_snippets_in_the_docs_are_valid(
    where: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", text)):
        monkeypatch.setenv(name, "value-from-the-environment")
    data = yaml.safe_load(text)
    settings = resolve_settings(ConfigFile(path=ROOT / "eval-config.yaml", data=data), []).settings
    assert settings is not None, where


def test_every_guide_the_readme_links_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?:docs|benchmarks)/[^)#]+)", readme)
    assert links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert missing == []


def test_every_test_the_reliability_guide_names_exists() -> None:
    """References are `tests/dir/test_x.py::test_name`, `test_x.py::test_name` (a file named
    before in the same row or earlier) or a bare `test_name` of the last file named."""
    text = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    files = {p.name: p for p in (ROOT / "tests").rglob("test_*.py")}
    current: Path | None = None
    missing = []
    for ref in re.findall(
        r"`(tests/[\w/]+\.py(?:::[\w*]+)?|test_\w+\.py(?:::[\w*]+)?|test_[\w*]+)`", text
    ):
        path, _, name = ref.partition("::")
        if path.endswith(".py"):
            current = ROOT / path if path.startswith("tests/") else files.get(path)
            if current is None or not current.exists():
                missing.append(path)
                continue
        else:
            name = ref
        if name and current is not None:
            pattern = name.replace("*", r"\w*")
            if not re.search(rf"def {pattern}\(", current.read_text(encoding="utf-8")):
                missing.append(f"{current.name}::{name}")
    assert missing == []
