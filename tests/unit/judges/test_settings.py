"""The local judge's settings (judge.local) refuse bad values with the reason, before any
model is loaded."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from rag_eval_pytest.judges.settings import JudgeSettings


@pytest.mark.parametrize(
    ("local", "message"),
    [
        ({"support_threshold": 0.5, "ambiguous_threshold": 0.7}, "must not exceed"),
        ({"support_threshold": 1.5}, "less than or equal to 1"),
        ({"device": "tpu"}, "'cpu', 'cuda' or 'auto'"),
        ({"nli_treshold": 0.5}, "Extra inputs are not permitted"),
        ({"checks": {"numbrs": False}}, "unknown check 'numbrs' \\(the checks: numbers, times"),
        ({"checks": {"binding": False}}, "check 'binding' was removed: switching it off"),
    ],
)
def test_bad_local_settings_are_refused_with_the_reason(
    local: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        JudgeSettings(kind="local", local=local)


def test_the_checks_switched_off_are_the_pipelines_by_name() -> None:
    from rag_eval_pytest.judges.local.pipeline import CHECK_NAMES
    from rag_eval_pytest.judges.settings import LOCAL_CHECKS

    assert CHECK_NAMES == LOCAL_CHECKS
    settings = JudgeSettings(kind="local", local={"checks": {"numbers": False, "dates": True}})
    assert settings.local.checks_off == frozenset({"numbers"})
