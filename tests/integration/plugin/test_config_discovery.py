"""Where the plugin looks for ``eval-config.yaml``: the folder pytest is started from, then
the rootdir; the header line says which file is in force, and the error that sends a user to
the config says which one that was."""

from __future__ import annotations

import json

import pytest

from tests.helpers import case

TESTS = "from rag_eval_pytest import assert_retrieval\n\n" + (
    "def test_recall(rag_case):\n    assert_retrieval(rag_case, recall=1.0)\n"
)


@pytest.fixture
def project(pytester: pytest.Pytester, rag_app: str) -> pytest.Pytester:
    """A project whose rootdir (the ini file) is a parent of the folder the tests run from."""
    pytester.makeini("[pytest]\n")
    sub = pytester.mkdir("rag")
    dataset = {
        "test_cases": [case("c1", "What is the refund policy?", expected_contexts=["policy.md"])]
    }
    (sub / "dataset.json").write_text(json.dumps(dataset))
    (sub / "test_rag.py").write_text(TESTS)
    return pytester


def test_a_config_in_the_current_folder_is_used_when_the_rootdir_is_a_parent(
    project: pytest.Pytester, rag_app: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It used to be ignored, and the error then said to set 'target' in eval-config.yaml."""
    sub = project.path / "rag"
    (sub / "eval-config.yaml").write_text(f"target: {rag_app}\n")
    monkeypatch.chdir(sub)
    result = project.runpytest("--rag-dataset=dataset.json", "-p", "no:randomly")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"rag-eval: dataset dataset.json *| config {sub}/eval-config.yaml"]
    )


def test_without_a_config_the_error_says_where_it_looked(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = project.path / "rag"
    monkeypatch.chdir(sub)
    result = project.runpytest("--rag-dataset=dataset.json", "-p", "no:randomly")
    assert result.ret == 3
    assert (
        "config file in force: none (no eval-config.yaml or eval-config.yml or [tool.rag_eval] "
        f"in pyproject.toml in {sub} and {project.path})" in result.stdout.str()
    )
