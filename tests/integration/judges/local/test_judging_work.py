"""What the local judge computes once instead of once per case: the passages of contexts that
several cases share, and each question's vector. Loads the model; the windows' vectors and
words are checked without it in tests/unit/judges/local/test_support.py."""

from __future__ import annotations

import asyncio
from typing import Any

SENTENCES = [
    "Full-time staff receive 12 days of paid sick leave annually.",
    "Unused sick leave carries over, up to 3 days per year.",
    "Part-time staff receive leave pro rata.",
    "Requests go to the HR portal.",
]


def test_cases_that_share_contexts_share_their_passages(local_judge: Any) -> None:
    contexts = [" ".join(SENTENCES), "Holidays are set by the works council."]
    question = "How many sick days do staff get?"

    async def run() -> list[Any]:
        first = await local_judge.support(["Staff get 12 days of sick leave."], contexts, question)
        before = local_judge.embedder.encoded
        second = await local_judge.support(["Staff get 15 days of sick leave."], contexts, question)
        again = await local_judge.support(["Staff get 12 days of sick leave."], contexts, question)
        # Only the new claim was encoded: the contexts' sentences and the question were known.
        assert local_judge.embedder.encoded - before == 1
        return [first[0], second[0], again[0]]

    first, second, again = asyncio.run(run())
    assert first == again
    assert first.verdict == "supported", first.reason
    assert second.verdict == "contradicted", second.reason
