"""A correct answer read against text taken from a PDF or a web page (ligatures, words broken
at a line's end, digits grouped by a thin space, invisible characters) is supported, and a
wrong one is still caught: the whole local judge, with its model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

EXTRACTED = [
    pytest.param(
        "Refunds are issued with-\nin 30 days of pur-\nchase by the finance depart-\nment.",
        "Refunds are issued within 30 days of purchase by the finance department.",
        "Refunds are issued within 60 days of purchase by the finance department.",
        id="words broken at a line's end",
    ),
    pytest.param(
        "The cancellation fee is 1\u202f000 euros for group bookings.",
        "The cancellation fee for group bookings is 1,000 euros.",
        "The cancellation fee for group bookings is 2,000 euros.",
        id="digits grouped by a thin space",
    ),
    pytest.param(
        "The \ufb01nal \ufb01ling deadline for the \ufb02exible plan is 30 June.",
        "The final filing deadline for the flexible plan is 30 June.",
        "The final filing deadline for the flexible plan is 30 July.",
        id="ligatures",
    ),
    pytest.param(
        "Our inter\u00adnational ship\u200bping takes \uff17 business days.",
        "International shipping takes 7 business days.",
        "International shipping takes 3 business days.",
        id="soft hyphens, zero-width spaces and full-width digits",
    ),
]


@pytest.mark.parametrize(("context", "right", "wrong"), EXTRACTED)
def test_an_answer_read_against_extracted_text_is_judged_on_its_words(
    local_judge: Any, context: str, right: str, wrong: str
) -> None:
    supported, contradicted = asyncio.run(local_judge.support([right, wrong], [context]))
    assert supported.verdict == "supported", supported.reason
    assert contradicted.verdict == "contradicted", contradicted.reason
