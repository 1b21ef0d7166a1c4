"""HttpAdapter's configuration, checked before any request: the scheme, the response paths
and a GET body."""

from __future__ import annotations

import pytest

from rag_eval_pytest.adapters.http import HttpAdapter
from rag_eval_pytest.errors import ConfigError


def test_bad_configuration_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not an http"):
        HttpAdapter("ftp://example/x")
    with pytest.raises(ConfigError, match=r"invalid response path 'data\.\.answer'"):
        HttpAdapter("http://127.0.0.1:9/", answer="data..answer")
    with pytest.raises(ConfigError, match="GET request sends flat query parameters"):
        HttpAdapter("http://127.0.0.1:9/", method="GET", body={"q": {"nested": 1}})
