"""The configuration reference in docs/ is generated from the settings model and kept current."""

from __future__ import annotations

from pathlib import Path

from rag_eval_pytest.config.reference import render
from rag_eval_pytest.config.settings import Settings

DOC = Path(__file__).parents[3] / "docs" / "configuration-reference.md"


def test_configuration_reference_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/configuration-reference.md is stale: regenerate it with "
        "`python -m rag_eval_pytest.config.reference > docs/configuration-reference.md`"
    )


def test_every_setting_is_documented() -> None:
    text = render()
    undocumented = [line for line in text.splitlines() if line.endswith("|  |")]
    assert undocumented == []
    for name in Settings.model_fields:
        assert f"| `{name}` |" in text
