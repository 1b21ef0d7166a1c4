"""The documentation tells the truth about the options and the configuration.

Every ``--rag-*`` option named in the README and the guides exists (or is named as
removed); every configuration snippet marked ``# eval-config.yaml`` and the example suite's
config validate against the settings model; every guide the README links exists.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import yaml

from rag_eval_pytest.config.files import ConfigFile
from rag_eval_pytest.config.options import OPTIONS, REMOVED_INI_KEYS
from rag_eval_pytest.config.resolution import resolve_settings
from rag_eval_pytest.metrics.registry import METRIC_NAMES, metric_class

ROOT = Path(__file__).parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FLAGS = {spec.flag for spec in OPTIONS}
REMOVED = {"--" + name.replace("_", "-") for name in REMOVED_INI_KEYS}  # named as removed


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_option_named_in_the_docs_exists(doc: Path) -> None:
    named = set(re.findall(r"--rag-[a-z_-]*[a-z]", doc.read_text(encoding="utf-8")))
    assert sorted(named - FLAGS - REMOVED) == []


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
    # A reference with a default (${NAME:-fail}) is read with its default, as where the
    # variable is unset; one without needs the variable.
    for name in set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)\}", text)):
        monkeypatch.setenv(name, "value-from-the-environment")
    for name in set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*):-", text)):
        monkeypatch.delenv(name, raising=False)
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
    """References are `tests/dir/test_x.py::test_name`, `test_x.py::test_name` (the file of
    that name named in full earlier, else the only file of that name: a unit test and an
    integration test may share one) or a bare `test_name` of the last file named."""
    text = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    files: dict[str, list[Path]] = {}
    for found in (ROOT / "tests").rglob("test_*.py"):
        files.setdefault(found.name, []).append(found)
    named: dict[str, Path] = {}  # the files named in full so far, by their names
    current: Path | None = None
    missing = []
    for ref in re.findall(
        r"`(tests/[\w/]+\.py(?:::[\w*]+)?|test_\w+\.py(?:::[\w*]+)?|test_[\w*]+)`", text
    ):
        path, _, name = ref.partition("::")
        if path.endswith(".py"):
            if path.startswith("tests/"):
                current = named[Path(path).name] = ROOT / path
            else:
                same_name = files.get(path, [])
                current = named.get(path) or (same_name[0] if len(same_name) == 1 else None)
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


NEEDS = {  # the words of the "needs" column of docs/metrics.md for each requirement
    "contexts": "contexts",
    "expected_contexts": "expected_contexts",
    "ground_truth": "ground truth",
    "judge": "judge",
    "embeddings": "embeddings",
}


def metrics_table() -> dict[str, dict[str, str]]:
    """The rows of the table under "## The metrics" in docs/metrics.md, by metric."""
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    section = text.split("## The metrics", 1)[1].split("\n## ", 1)[0]
    table = section[section.index("\n|") + 1 :].split("\n\n", 1)[0]  # the first table
    lines = [line for line in table.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = [
        dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True))
        for line in lines[2:]
    ]
    return {row["metric"].strip("`"): row for row in rows}


def test_the_metrics_table_lists_every_built_in_metric_in_report_order() -> None:
    assert list(metrics_table()) == list(METRIC_NAMES)


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_the_metrics_table_says_what_each_metric_needs_and_its_assertion(name: str) -> None:
    import rag_eval_pytest

    row = metrics_table()[name]
    requires = metric_class(name).requires
    needs = re.sub(r"\(\+ [^)]*\)", "", row["needs"])  # "(+ embeddings)": optional
    assert {w.strip() for w in needs.split(",")} == {NEEDS[r] for r in requires}
    assert (row["judge requests per case (1 pass)"] == "0") == ("judge" not in requires)
    assertion = row["assertion"].strip("`")
    assert assertion in rag_eval_pytest.__all__
    if assertion != "assert_metric":  # the generic assertion takes every registered name
        cls = metric_class(name).__name__  # the helper asserts the metric's own class
        assert f"{cls}.name" in inspect.getsource(getattr(rag_eval_pytest, assertion))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_the_docs_import_public_names_from_the_package_root(doc: Path) -> None:
    """A guide never sends a user to a private module (docs/judges.md imported
    ``CallableJudge`` from ``rag_eval_pytest.judges.callable``)."""
    import rag_eval_pytest

    text = doc.read_text(encoding="utf-8")
    for module, names in re.findall(r"from (rag_eval_pytest[\w.]*) import ([\w, ]+)", text):
        assert module == "rag_eval_pytest", f"{doc.name}: from {module} import {names}"
        for name in names.split(","):
            assert name.strip() in rag_eval_pytest.__all__, f"{doc.name}: {name.strip()}"
