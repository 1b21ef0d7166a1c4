"""The rooms stay small and hold their own state: the entry module keeps options, configure
and the fixtures; the engine is a façade; the run's state lives on the role objects; the
reports share their wording, not their renderers; a judge is configured in its runtime, never
by writing on the judge object a user built."""

from __future__ import annotations

import ast
from pathlib import Path

from rag_eval_pytest.config.options import OPTIONS
from tests.unit.structure import function_sizes
from tests.unit.structure.function_sizes import Size

SRC = Path(__file__).resolve().parents[3] / "src" / "rag_eval_pytest"


def _long_functions(path: Path, most: int) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > most
    ]


def test_the_entry_module_is_small_with_short_functions() -> None:
    plugin = SRC / "plugin.py"
    assert len(plugin.read_text().splitlines()) <= 250
    assert _long_functions(plugin, 25) == []


def test_the_entry_module_holds_no_hook_but_configure() -> None:
    tree = ast.parse((SRC / "plugin.py").read_text())
    hooks = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("pytest_")
    ]
    assert sorted(hooks) == ["pytest_addoption", "pytest_configure"]


def test_the_engine_is_a_facade() -> None:
    assert len((SRC / "engine" / "engine.py").read_text().splitlines()) <= 300


def _config_stash_users() -> list[str]:
    return sorted(
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if "config.stash" in path.read_text()
    )


def test_no_run_state_in_the_config_stash() -> None:
    """Only the hook guard keeps one thing there: the message of a hook that failed while
    pytest collected, until collection ends. The rest lives on the role objects."""
    assert _config_stash_users() == ["pytest_support/guard.py"]


def test_the_long_function_check_finds_one(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(30))
    module = tmp_path / "m.py"
    module.write_text(f"def long():\n{body}\n")
    assert _long_functions(module, 25) == ["long (31 lines)"]


def test_at_most_22_rag_flags() -> None:
    """What a CI job sets per run is a flag; a knob set once per project is a config key."""
    flags = [spec.flag for spec in OPTIONS if spec.flag is not None]
    assert all(flag.startswith("--rag-") for flag in flags)
    assert len(set(flags)) == len(flags) <= 22, flags
    assert not any(flag.startswith("--rag-fail-under-") for flag in flags)


RENDERERS = frozenset(
    f"reporting.{name}" for name in ("markdown", "html_report", "terminal", "step_summary")
)


def _module_path(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(root: Path, module: str) -> set[str]:
    """The modules of the package at ``root`` that ``module`` imports (dotted from the root):
    at its top, in a function or for type checking alike."""
    path = _module_path(root, module)
    if path is None:
        return set()
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {_within(root, alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _dotted(*package[: len(package) - node.level + 1], node.module or "")
            else:
                base = _within(root, node.module or "")
            found |= {base, *(_dotted(base, alias.name) for alias in node.names)}
    return {name for name in found if name and _module_path(root, name) is not None}


def _dotted(*parts: str) -> str:
    return ".".join(part for part in parts if part)


def _within(root: Path, name: str) -> str:
    """An absolute module name, dotted from the package's root ("" outside the package)."""
    return name.removeprefix(f"{root.name}.") if name.startswith(f"{root.name}.") else ""


def _reached(root: Path, module: str) -> set[str]:
    """Every module of the package that importing ``module`` imports, directly or not."""
    seen: set[str] = set()
    pending = [module]
    while pending:
        for name in _imports(root, pending.pop()) - seen:
            seen.add(name)
            pending.append(name)
    return seen


def test_no_renderer_imports_another_and_the_assertions_import_none() -> None:
    """What a score, a status or a vote line says lives in ``reporting/wording.py``: the
    Markdown, HTML, terminal and step summary renderers, and the assertions' messages, take
    it from there, never from a renderer (not even through another module)."""
    for renderer in sorted(RENDERERS):
        assert _reached(SRC, renderer) & RENDERERS == set(), renderer
    assert _reached(SRC, "engine.assertions") & RENDERERS == set()


def test_the_import_check_finds_a_renderer_imported_later_or_for_type_checking(
    tmp_path: Path,
) -> None:
    root = tmp_path / "pkg"
    (root / "reporting").mkdir(parents=True)
    for name in ("__init__", "reporting/__init__", "reporting/markdown", "reporting/wording"):
        (root / f"{name}.py").write_text("")
    (root / "reporting" / "terminal.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .wording import x\n"
    )
    (root / "reporting" / "wording.py").write_text("def f():\n    from . import markdown\n")
    assert _reached(root, "reporting.terminal") == {
        "reporting",
        "reporting.wording",
        "reporting.markdown",
    }


def test_a_users_judge_object_is_unchanged_by_a_run() -> None:
    """A judge is configured in one place, the runtime the run builds around a copy of it:
    the object a ``rag_judge`` fixture returns keeps every attribute it had."""
    from rag_eval_pytest.judges.callable import CallableJudge
    from tests.unit.engine.fakes import TestItem, engine_over, loaded, rag_system, take_case
    from tests.word_judge import word_judge

    policy = "Refunds are paid within 30 days."
    refund = loaded("refund", question="Refunds?")
    judge = CallableJudge(word_judge, model="words")
    before = {name: repr(value) for name, value in vars(judge).items()}
    rag = rag_system({"Refunds?": (policy, [policy])})
    with engine_over(refund, judge={"cache": False, "passes": 3}) as engine:
        case, end = take_case(engine, TestItem(case="refund", rag_adapter=rag, rag_judge=judge))
        (result,) = case.evaluate_many([("faithfulness", 0.5, {})])
        end()
    assert result.score == 1.0 and result.details["agreement"] == 1.0
    assert {name: repr(value) for name, value in vars(judge).items()} == before


def test_every_function_is_small_or_in_the_budget_that_only_shrinks() -> None:
    """At most a complexity of 6 and 40 lines, or no more than ``function_budget.json``
    records for a function still over them. After a split, lower the budget with
    ``python -m tests.unit.structure.function_sizes --write-budget`` (which never raises a
    number or adds a function)."""
    sizes = function_sizes.package_sizes()
    budget = function_sizes.read_budget()
    assert function_sizes.budget_problems(sizes, budget) == []


KNOWN = """\
class Shelf:
    def pick(self, items, wanted):
        \"\"\"Eight decisions: 1 + 8 = 9.\"\"\"
        for item in items:  # 1
            if item in wanted and item or not item:  # 1 + 2
                return [i for i in items if i if i]  # 1 + 2
        return (lambda x: x if x else None)(items)  # 1 (a lambda counts where it is)

        def later(x):  # on its own: 1 + 1
            assert x

def pick(x):
    match x:
        case 1:
            return 1
        case _:
            try:
                return 2
            except ValueError:
                return 3

class Box:
    @property
    def size(self):
        return 1

    @size.setter
    def size(self, value):
        self.value = value
"""


def test_the_size_check_counts_a_known_function(tmp_path: Path) -> None:
    module = tmp_path / "shelf.py"
    module.write_text(KNOWN)
    assert function_sizes.module_sizes(module, "shelf.py") == {
        "shelf.py::Shelf.pick": Size(complexity=9, lines=9),
        "shelf.py::Shelf.pick.<locals>.later": Size(complexity=2, lines=2),
        "shelf.py::pick": Size(complexity=4, lines=9),
        "shelf.py::Box.size": Size(complexity=1, lines=2),
        "shelf.py::Box.size#2": Size(complexity=1, lines=2),
    }


def test_the_budget_lets_no_function_grow_and_only_shrinks() -> None:
    over, grown, fits = Size(8, 50), Size(9, 50), Size(6, 40)
    budget = {"a.py::kept": (8, 50), "a.py::grown": (8, 50), "a.py::split": (8, 50)}
    budget["a.py::gone"] = (7, 41)
    sizes = {"a.py::kept": over, "a.py::grown": grown, "a.py::split": fits, "a.py::new": over}
    assert function_sizes.budget_problems(sizes, budget) == [
        "a.py::gone: no such function now: remove it from the budget",
        "a.py::grown: complexity 9, 50 lines, past its budget of [8, 50]: split it",
        "a.py::new: complexity 8, 50 lines: split it (at most 6 and 40)",
        "a.py::split: complexity 6, 40 lines fit now: remove it from the budget",
    ]
    # Writing the budget again lowers what shrank and raises or adds nothing.
    shrunk = sizes | {"a.py::kept": Size(7, 45)}
    assert function_sizes.lowered(shrunk, budget) == {"a.py::kept": (7, 45), "a.py::grown": (8, 50)}
