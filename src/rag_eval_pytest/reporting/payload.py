"""The per-case payload that travels on a test report, from the process that ran the test to
the process that writes the reports (the same process without xdist; worker to controller with
it). JSON-safe builtins only: xdist serialises report attributes with execnet.
"""

from __future__ import annotations

from typing import Any, TypedDict

PAYLOAD_SCHEMA = 1
REPORT_ATTRIBUTE = "rag_eval"


class ContextPayload(TypedDict):
    text: str
    source: str | None


class _CaseFields(TypedDict):
    schema: int
    key: str
    id: str
    index: int
    dataset: str
    question: str
    ground_truth: str
    critical: bool
    tags: list[str]
    expected_contexts: list[str] | None
    recorded: bool
    answer: str | None
    contexts: list[ContextPayload] | None
    sources: list[str]
    latency: float | None
    error: str | None
    adapter: str | None
    judge: str | None
    metrics: list[dict[str, Any]]


class CasePayload(_CaseFields, total=False):
    setup_error: str | None
    """A setup error the test met (a judge that cannot be built): the run is fatal."""


def is_payload(value: object) -> bool:
    return isinstance(value, dict) and value.get("schema") == PAYLOAD_SCHEMA and "key" in value
