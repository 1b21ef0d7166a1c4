"""The public names of ``rag_eval_pytest``: written once (the imports type checkers read),
loaded lazily from there, listed in ``__all__``, and each the object of its own module."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

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


def test_each_public_name_is_written_once() -> None:
    source = INIT.read_text(encoding="utf-8")
    names = type_checking_imports()
    assert sorted(rag_eval_pytest.__all__) == sorted(names)
    assert len(set(rag_eval_pytest.__all__)) == len(rag_eval_pytest.__all__)
    for name in names:
        lines = [line for line in source.splitlines() if re.search(rf"\b{name}\b", line)]
        assert lines == [f"    from {names[name]} import {name} as {name}"], name


def test_every_public_name_loads_from_its_module() -> None:
    for name, module in type_checking_imports().items():
        own = getattr(importlib.import_module(module, "rag_eval_pytest"), name)
        assert getattr(rag_eval_pytest, name) is own, name
    assert set(rag_eval_pytest.__all__) <= set(dir(rag_eval_pytest))


def test_a_judge_of_your_own_is_made_from_the_package_root() -> None:
    from rag_eval_pytest import CallableJudge, Judge
    from rag_eval_pytest.judges.base import Judge as BaseJudge

    judge = CallableJudge(lambda prompt: "{}", model="my-llm-v2")
    assert Judge is BaseJudge and isinstance(judge, Judge)
    assert judge.describe() == "custom (my-llm-v2)"
    star: dict[str, object] = {}
    exec("from rag_eval_pytest import *", star)
    assert star["Judge"] is Judge and star["CallableJudge"] is CallableJudge


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError) as missing:
        rag_eval_pytest.NoSuchName  # noqa: B018
    assert str(missing.value) == "module 'rag_eval_pytest' has no attribute 'NoSuchName'"
