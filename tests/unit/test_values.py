"""Headers for the RAG endpoint: which source wins (config, then the command line, then
RAG_AUTH_HEADER), and a malformed header that never shows its value."""

from __future__ import annotations

import pytest

from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.values import resolve_headers


def test_header_precedence_config_over_cli_over_env() -> None:
    headers = resolve_headers(
        {"authorization": "Bearer from-config"},
        ["Authorization: Bearer from-cli", "X-Tenant: cli-tenant"],
        {"RAG_AUTH_HEADER": "X-Tenant: env-tenant"},
    )
    assert headers == {"authorization": "Bearer from-config", "X-Tenant": "cli-tenant"}
    assert resolve_headers({}, [], {"RAG_AUTH_HEADER": "X-Api-Key: k-env"}) == {
        "X-Api-Key": "k-env"
    }


def test_malformed_env_header_does_not_echo_its_value() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_headers({}, [], {"RAG_AUTH_HEADER": "Bearer-only-secret-value"})
    assert "RAG_AUTH_HEADER" in str(info.value)
    assert "secret" not in str(info.value)
