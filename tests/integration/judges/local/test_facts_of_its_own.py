"""A claim that copies a sentence of the context and adds facts of two kinds the contexts
never state (a name and a number) is not supported, however much wording it shares; with
one of them stated by the context, it is. Loads the model."""

from __future__ import annotations

import asyncio
from typing import Any

CONTEXT = (
    "Customer data is encrypted at rest with AES-256. Security incidents must be reported to "
    "security@example.com within 24 hours. Passwords are never sent by email."
)


def test_an_added_clause_with_a_new_name_and_number_is_not_supported(local_judge: Any) -> None:
    claim = "Customer data is encrypted at rest with AES-256 and in transit with TLS 1.3."
    [verdict] = asyncio.run(local_judge.support([claim], [CONTEXT]))
    assert verdict.verdict == "not mentioned", verdict.reason
    assert "names TLS" in verdict.reason and "1.3" in verdict.reason


def test_the_copied_sentence_alone_is_supported(local_judge: Any) -> None:
    claim = "Customer data is encrypted at rest with AES-256."
    [verdict] = asyncio.run(local_judge.support([claim], [CONTEXT]))
    assert verdict.verdict == "supported", verdict.reason


def test_the_same_clause_is_supported_when_the_context_states_it(local_judge: Any) -> None:
    context = CONTEXT + " Data in transit is protected with TLS 1.3."
    claim = "Customer data is encrypted at rest with AES-256 and in transit with TLS 1.3."
    [verdict] = asyncio.run(local_judge.support([claim], [context]))
    assert verdict.verdict == "supported", verdict.reason
