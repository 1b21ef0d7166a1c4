"""Optional extras: a missing one is a ``ConfigError`` carrying the exact ``pip install`` line,
and whether one is installed is answered without importing it."""

from __future__ import annotations

import sys

import pytest

from rag_eval_pytest import extras
from rag_eval_pytest.errors import ConfigError


def test_the_install_line_names_the_extra() -> None:
    assert extras.install_line("local") == "pip install 'rag-eval-pytest[local]'"


def test_installed_answers_without_importing() -> None:
    assert extras.installed("json")
    assert not extras.installed("no_such_package_rag_eval")
    assert not extras.installed("no_such_package_rag_eval.child")  # a missing parent
    assert extras.missing(("json", "no_such_package_rag_eval")) == ["no_such_package_rag_eval"]
    sys.modules.pop("this", None)
    assert extras.installed("this")
    assert "this" not in sys.modules  # `import this` would print the Zen of Python


def test_a_missing_adapter_framework_names_its_distribution_and_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(extras.EXTRAS, "langchain", ("no_such_package_rag_eval", "langchain-core"))
    with pytest.raises(ConfigError) as info:
        extras.require_extra("langchain")
    assert str(info.value) == (
        "the langchain adapter needs langchain-core, which is not installed: "
        "pip install 'rag-eval-pytest[langchain]'"
    )


def test_an_installed_extra_is_its_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(extras.EXTRAS, "json", ("json", "json"))
    assert extras.require_extra("json") is sys.modules["json"]


def test_the_local_judge_names_what_it_lacks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "LOCAL_MODULES", ("json", "no_such_torch", "no_such_numpy"))
    assert not extras.local_available()
    message = extras.local_not_installed()
    assert message.startswith("the local judge needs no_such_torch, no_such_numpy: ")
    assert "pip install 'rag-eval-pytest[local]'" in message
    monkeypatch.setattr(extras, "LOCAL_MODULES", ("json",))
    assert extras.local_available()


def test_missing_sdks_are_config_errors_with_their_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(extras, "installed", lambda module: False)
    with pytest.raises(ConfigError, match=r"anthropic SDK.*\[anthropic\]'$"):
        extras.require_anthropic()
    with pytest.raises(ConfigError) as info:
        extras.require_sentence_transformers("judge.embedding_model")
    assert str(info.value).startswith("judge.embedding_model needs sentence-transformers")
    assert str(info.value).endswith("pip install 'rag-eval-pytest[sentence-transformers]'")
