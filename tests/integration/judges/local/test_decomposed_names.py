"""A name that the context spells with decomposed accents still supports the claim that
composes them: the whole local judge, with its model."""

from __future__ import annotations

import asyncio
import unicodedata
from typing import Any

CONTEXT = "Francis I was the first King of France from the Angoulême branch of the House of Valois."


def test_a_claim_whose_name_the_context_spells_decomposed_is_supported(local_judge: Any) -> None:
    context = unicodedata.normalize("NFD", CONTEXT)
    [verdict] = asyncio.run(
        local_judge.support(
            ["Francis I was the first King of France from the Angoulême branch."], [context]
        )
    )
    assert verdict.verdict == "supported", verdict.reason
