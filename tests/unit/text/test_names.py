"""Names a text gives."""

from __future__ import annotations

from rag_eval_pytest.text.names import names


def test_names_end_at_a_comma() -> None:
    assert names("We do ship to the UK, Norway and Switzerland.") == ["UK", "Norway", "Switzerland"]
