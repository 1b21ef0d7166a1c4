"""How big each function of the package is: its cyclomatic complexity and its length, and the
budget of the functions still over the limits.

Complexity is 1 plus one for each decision: ``if``, ``for``, ``while``, ``except``,
``assert``, a conditional expression, each ``case`` of a ``match``, each ``for`` and ``if`` of
a comprehension, and each ``and`` or ``or`` after the first of a chain. A function nested in
another is measured on its own; a lambda's decisions count toward the function it is in.
Length is the lines from ``def`` to the function's last line, its docstring included.

A function is over the limits above a complexity of 6 or 40 lines. ``function_budget.json``
lists the ones still over (``"path::qualname": [complexity, lines]``, the path relative to
the package): none may grow, and the budget only shrinks. After splitting one, lower the
budget with::

    python -m tests.unit.structure.function_sizes --write-budget

which records the functions' smaller numbers and drops those that now fit; it never raises a
number or adds a function (that is what the check refuses), except when it writes a budget
where there is none.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src" / "rag_eval_pytest"
BUDGET = Path(__file__).with_name("function_budget.json")
MOST_COMPLEX = 6
MOST_LINES = 40

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DECISIONS = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.IfExp,
    ast.ExceptHandler,
    ast.Assert,
    ast.match_case,
)

Budget = dict[str, tuple[int, int]]


@dataclass(frozen=True)
class Size:
    complexity: int
    lines: int

    def fits(self) -> bool:
        return self.complexity <= MOST_COMPLEX and self.lines <= MOST_LINES

    def within(self, recorded: tuple[int, int]) -> bool:
        return self.complexity <= recorded[0] and self.lines <= recorded[1]


def _decisions(node: ast.AST) -> int:
    if isinstance(node, _DECISIONS):
        return 1
    if isinstance(node, ast.comprehension):
        return 1 + len(node.ifs)
    if isinstance(node, ast.BoolOp):
        return len(node.values) - 1
    return 0


def complexity(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """1 plus the function's decisions, leaving out those of the functions nested in it."""
    count = 1
    pending: list[ast.AST] = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, _FUNCTIONS):
            continue
        count += _decisions(node)
        pending.extend(ast.iter_child_nodes(node))
    return count


def _named(
    tree: ast.AST, prefix: str = ""
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function under ``tree`` with its qualified name (``Aggregator.finish``,
    ``outer.<locals>.inner``), in the order of the source."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, _FUNCTIONS):
            found.append((prefix + node.name, node))
            found += _named(node, f"{prefix}{node.name}.<locals>.")
        elif isinstance(node, ast.ClassDef):
            found += _named(node, f"{prefix}{node.name}.")
        else:
            found += _named(node, prefix)
    return found


def module_sizes(path: Path, name: str) -> dict[str, Size]:
    """Each function of the module at ``path`` by ``name::qualname``. A second function of
    one qualified name (a property's setter, an overload) is ``qualname#2``."""
    sizes: dict[str, Size] = {}
    seen: dict[str, int] = {}
    for qualname, node in _named(ast.parse(path.read_text(encoding="utf-8"))):
        seen[qualname] = seen.get(qualname, 0) + 1
        key = f"{name}::{qualname}" + (f"#{seen[qualname]}" if seen[qualname] > 1 else "")
        lines = (node.end_lineno or node.lineno) - node.lineno + 1
        sizes[key] = Size(complexity(node), lines)
    return sizes


def package_sizes(root: Path = SRC) -> dict[str, Size]:
    sizes: dict[str, Size] = {}
    for path in sorted(root.rglob("*.py")):
        sizes |= module_sizes(path, path.relative_to(root).as_posix())
    return sizes


def read_budget(path: Path = BUDGET) -> Budget:
    raw = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return {key: (int(value[0]), int(value[1])) for key, value in raw.items()}


def budget_problems(sizes: dict[str, Size], budget: Budget) -> list[str]:
    """One line for each function over the limits and not in the budget, each one grown past
    its budget, each one in the budget that now fits, and each budget entry of no function."""
    problems = [
        f"{key}: no such function now: remove it from the budget"
        for key in budget
        if key not in sizes
    ]
    for key, size in sorted(sizes.items()):
        problem = _problem(size, budget.get(key))
        if problem:
            problems.append(f"{key}: complexity {size.complexity}, {size.lines} lines{problem}")
    return problems


def _problem(size: Size, recorded: tuple[int, int] | None) -> str:
    if recorded is None:
        return "" if size.fits() else f": split it (at most {MOST_COMPLEX} and {MOST_LINES})"
    if size.fits():
        return " fit now: remove it from the budget"
    if not size.within(recorded):
        return f", past its budget of {list(recorded)}: split it"
    return ""


def lowered(sizes: dict[str, Size], budget: Budget) -> Budget:
    """The budget with each function's smaller numbers, without those that fit now or are
    gone; a function over its numbers, or over the limits and unlisted, keeps (or lacks) its
    entry, for the check to refuse."""
    kept: Budget = {}
    for key, recorded in budget.items():
        size = sizes.get(key)
        if size is not None and not size.fits():
            kept[key] = (min(recorded[0], size.complexity), min(recorded[1], size.lines))
    return kept


def first_budget(sizes: dict[str, Size]) -> Budget:
    return {key: (size.complexity, size.lines) for key, size in sizes.items() if not size.fits()}


def write_budget(path: Path = BUDGET, root: Path = SRC) -> Budget:
    sizes = package_sizes(root)
    budget = lowered(sizes, read_budget(path)) if path.is_file() else first_budget(sizes)
    rows = [f"  {json.dumps(key)}: [{c}, {n}]" for key, (c, n) in sorted(budget.items())]
    path.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")
    return budget


def main(argv: list[str]) -> int:
    if argv != ["--write-budget"]:
        print(__doc__)
        return 2
    budget = write_budget()
    problems = budget_problems(package_sizes(), budget)
    print(f"{BUDGET.name}: {len(budget)} functions over the limits")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
