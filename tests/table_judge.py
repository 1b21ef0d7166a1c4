"""A scripted judge for the exit-code table (tests/integration/reliability/test_exit_codes.py):
the answers of :func:`tests.word_judge.word_judge`, and the fault a row of the table asks for,
the same whether it is reached as a custom callable or behind the fake Messages API.

``FAULT["mode"]`` is set by the test: ``none``; ``down`` (every request fails); ``close``
(the first request about an answer rates it 0.75, three statements of four supported, so that
a threshold of 0.7 asks for more votes; every later request about it fails).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rag_eval_pytest.judges.callable import CallableJudge
from rag_eval_pytest.judges.questions import CriterionCheck
from tests.word_judge import sections, word_judge

FAULT = {"mode": "none"}
calls: list[str] = []
CLOSE = ["supported", "supported", "supported", "not mentioned"]


class JudgeDown(RuntimeError):
    """What the scripted judge raises for a request the row makes fail."""


def answer(prompt: str) -> str:
    """The JSON text a judge answers ``prompt`` with, or :class:`JudgeDown`."""
    mode = FAULT["mode"]
    said = str(sections(prompt).get("ANSWER", ""))
    earlier = sum(said in p for p in calls)
    calls.append(prompt)
    if mode == "down" or (mode == "close" and earlier):
        raise JudgeDown("judge backend down")
    if mode == "close":
        return json.dumps(
            {
                "statements": [
                    {"statement": f"claim {i}", "verdict": v, "reason": "scripted"}
                    for i, v in enumerate(CLOSE)
                ]
            }
        )
    if "90 days" in said:  # the context says 30: every word of it is there, the number not
        return json.dumps(
            {"statements": [{"statement": said.strip(), "verdict": "contradicted", "reason": "90"}]}
        )
    return word_judge(prompt)


class TableJudge(CallableJudge):
    """A user's own judge that answers every check but a criterion in plain words."""

    def supports(self, question: type[Any]) -> bool:
        return question is not CriterionCheck


CONFTEST = """
import pytest
from tests.table_judge import TableJudge, answer

@pytest.fixture(scope="session")
def rag_judge():
    return TableJudge(answer, model="table")
"""
"""An inner run's conftest.py whose ``rag_judge`` is the scripted judge, as a custom one."""


def use(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Set the fault of the run to come (undone with ``monkeypatch``)."""
    monkeypatch.setitem(FAULT, "mode", mode)
    calls.clear()
