"""Which adapter the settings build: an endpoint implies HTTP, a target implies a callable,
an explicit kind without a target says which target it needs, and no configuration at all
says every way to give one (and which config file was read)."""

from __future__ import annotations

import pytest

from rag_eval_pytest.adapters.callable import CallableAdapter
from rag_eval_pytest.adapters.factory import adapter_from_settings
from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.errors import ConfigError


def test_a_target_alone_means_the_callable_adapter() -> None:
    adapter = adapter_from_settings(Settings(target="json:dumps"))
    assert isinstance(adapter, CallableAdapter)
    assert adapter.describe() == "callable json:dumps"


def test_an_endpoint_alone_means_the_http_adapter() -> None:
    adapter = adapter_from_settings(Settings(http={"endpoint": "http://127.0.0.1:9/ask"}))
    assert adapter.kind == "http"


def test_an_explicit_kind_wins_over_what_the_other_settings_imply() -> None:
    settings = Settings(
        adapter="callable", target="json:dumps", http={"endpoint": "http://127.0.0.1:9/"}
    )
    assert isinstance(adapter_from_settings(settings), CallableAdapter)


def test_nothing_configured_names_every_way_and_the_config_file() -> None:
    with pytest.raises(ConfigError) as info:
        adapter_from_settings(Settings(), config_file="/repo/eval-config.yaml")
    message = str(info.value)
    assert message.startswith("no RAG adapter configured")
    assert "rag_adapter fixture" in message
    assert "--rag-target" in message and "--rag-endpoint" in message
    assert message.endswith("; config file in force: /repo/eval-config.yaml")
    with pytest.raises(ConfigError) as without_file:
        adapter_from_settings(Settings())
    assert "config file in force" not in str(without_file.value)


@pytest.mark.parametrize(
    ("kind", "shape"),
    [
        ("callable", "module:function"),
        ("langchain", "module:chain"),
        ("llamaindex", "module:query_engine"),
    ],
)
def test_a_kind_without_a_target_says_which_target_it_needs(kind: str, shape: str) -> None:
    with pytest.raises(ConfigError) as info:
        adapter_from_settings(Settings(adapter=kind))
    assert str(info.value) == f"the {kind} adapter needs a target: --rag-target {shape}"


def test_the_http_adapter_without_an_endpoint_says_how_to_give_one() -> None:
    with pytest.raises(ConfigError) as info:
        adapter_from_settings(Settings(adapter="http"))
    assert "--rag-endpoint URL" in str(info.value)
