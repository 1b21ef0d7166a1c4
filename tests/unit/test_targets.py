"""``load_target``: ``module:attr`` and ``path/to/file.py:attr`` (found in the search paths),
dotted attributes, and one ``ConfigError`` naming the target for every way it can be wrong."""

from __future__ import annotations

import os.path
import sys
from pathlib import Path

import pytest

from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.targets import load_target


def test_a_module_attribute_and_a_dotted_attribute() -> None:
    assert load_target("os.path:join") is os.path.join
    assert load_target("os:path.join") is os.path.join


def test_a_file_is_found_in_the_search_paths_and_imports_its_neighbours(
    tmp_path: Path,
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "helper_for_target_test.py").write_text("VALUE = 41\n")
    (app / "rag.py").write_text(
        "import helper_for_target_test\n\ndef answer():\n"
        "    return helper_for_target_test.VALUE + 1\n"
    )
    path_before = list(sys.path)
    fn = load_target("app/rag.py:answer", [tmp_path / "elsewhere", tmp_path])
    assert fn() == 42
    assert sys.path == path_before  # the file's folder is on the path only while importing
    sys.modules.pop("helper_for_target_test", None)


def test_a_module_in_a_search_path_is_imported_and_the_path_restored(tmp_path: Path) -> None:
    (tmp_path / "target_test_module_xyz.py").write_text("def f():\n    return 'ok'\n")
    path_before = list(sys.path)
    try:
        assert load_target("target_test_module_xyz:f", [tmp_path])() == "ok"
    finally:
        sys.modules.pop("target_test_module_xyz", None)
    assert sys.path == path_before


@pytest.mark.parametrize("spec", ["module_only", ":attr", "module:", "a/b.py"])
def test_a_spec_without_module_and_attribute_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_target(spec)
    assert str(info.value) == f"target {spec!r} is not of the form module:attribute"


def test_a_missing_file_module_or_attribute_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"target 'nowhere/rag\.py:f': file nowhere/rag\.py not"):
        load_target("nowhere/rag.py:f", [tmp_path])
    with pytest.raises(ConfigError, match=r"module 'no_such_module_here' not found"):
        load_target("no_such_module_here.sub:f")
    with pytest.raises(ConfigError) as info:
        load_target("os:path.no_such_thing")
    assert (
        str(info.value)
        == "target 'os:path.no_such_thing': os has no attribute 'path.no_such_thing'"
    )
