"""The public names of ``rag_eval_pytest`` agree in the three places they are written: the
imports for type checkers, the table of lazy imports, and ``__all__``; each loads."""

from __future__ import annotations

import ast
from pathlib import Path

import rag_eval_pytest

INIT = Path(rag_eval_pytest.__file__)


def type_checking_imports() -> dict[str, str]:
    """Name -> module (relative, ``.engine.case``) of the ``if TYPE_CHECKING:`` imports."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    return {
        alias.asname or alias.name: "." * stmt.level + (stmt.module or "")
        for stmt in block.body
        if isinstance(stmt, ast.ImportFrom)
        for alias in stmt.names
    }


def test_the_lazy_table_all_and_the_type_checking_imports_agree() -> None:
    exports = rag_eval_pytest._EXPORTS
    assert type_checking_imports() == exports
    assert sorted(rag_eval_pytest.__all__) == sorted(exports)
    assert len(set(rag_eval_pytest.__all__)) == len(rag_eval_pytest.__all__)


def test_every_public_name_loads() -> None:
    for name in rag_eval_pytest.__all__:
        assert getattr(rag_eval_pytest, name) is not None, name
