"""A judge a ``rag_judge`` fixture returns, through real pytest runs: the run asks it through
a runtime built from the run's settings (votes, cache, retries) around a copy of it, so what
the run learns of a server (a model without sampling parameters, a server without response
formats) stays on the copy, and the object the user built keeps every attribute it had."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest import CallableJudge, Judge
from rag_eval_pytest.judges.anthropic import AnthropicJudge
from rag_eval_pytest.judges.openai import OpenAIJudge
from tests import word_judge
from tests.helpers import case, read_report
from tests.servers.fake_llm import FakeLLMServer, Step, anthropic_tool, openai_error, openai_message

KEY = "sk-fixture-judge-0123456789abcdef"
CONTEXT = "Refunds are given within 30 days."
ANSWER = f"{CONTEXT} Refunds are paid in gold."
CASES = [case("refund", "Refunds?", answer=ANSWER, contexts=[CONTEXT])]
SUPPORT = {
    "statements": [
        {"statement": CONTEXT, "verdict": "supported", "reason": "the context says so"},
        {"statement": "Refunds are paid in gold.", "verdict": "unsupported", "reason": "no"},
    ]
}
USER_JUDGE: list[Judge] = []
"""The judge object the test built, which the inner run's ``rag_judge`` fixture returns."""
CONFTEST = """
import pytest
from tests.integration.judges.test_fixture_judges import USER_JUDGE

@pytest.fixture(scope="session")
def rag_judge():
    return USER_JUDGE[0]
"""
TESTS = """
from rag_eval_pytest import assert_faithful

def test_faithful(rag_case):
    assert_faithful(rag_case, threshold=0.4)
"""


def state(judge: Judge) -> dict[str, str]:
    """What a user sees of their judge object: each attribute, as it prints."""
    return {name: repr(value) for name, value in vars(judge).items()}


@pytest.fixture
def project(pytester: pytest.Pytester, write_dataset: Callable[..., Path]) -> pytest.Pytester:
    write_dataset(CASES)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rag=TESTS)
    return pytester


def run_with(project: pytest.Pytester, judge: Judge, *args: str) -> pytest.RunResult:
    USER_JUDGE[:] = [judge]
    try:
        return project.runpytest("--rag-dataset=dataset.json", "-p", "no:randomly", *args)
    finally:
        USER_JUDGE.clear()


def test_a_callable_judge_gets_the_runs_votes_and_cache_and_is_left_as_built(
    project: pytest.Pytester,
) -> None:
    judge = CallableJudge(word_judge.word_judge, model="words")
    before = state(judge)
    word_judge.calls.clear()
    run_with(project, judge, "--rag-judge-passes=3").assert_outcomes(passed=1)
    # Three votes, the run's: the first two agree, the third is never asked.
    assert len(word_judge.calls) == 2
    assert read_report(project)["summary"]["usage"]["judge_calls"] == 2
    run_with(project, judge, "--rag-judge-passes=3").assert_outcomes(passed=1)
    assert len(word_judge.calls) == 2  # the run's disk cache answered
    assert state(judge) == before


TEMPERATURE = {
    "type": "error",
    "error": {"type": "invalid_request_error", "message": "temperature: not for this model"},
}


def anthropic(server: FakeLLMServer) -> tuple[Judge, str]:
    """A judge whose model takes no sampling parameters: its run asks again without."""
    server.push(Step(status=400, body=TEMPERATURE), anthropic_tool(SUPPORT))
    return AnthropicJudge(api_key=KEY, base_url=server.url), "temperature"


def openai(server: FakeLLMServer) -> tuple[Judge, str]:
    """A judge whose server has no response formats: its run asks again in text."""
    server.push(
        openai_error(400, "response_format is not supported"),
        openai_message(json.dumps(SUPPORT)),
    )
    return OpenAIJudge(api_key=KEY, base_url=f"{server.url}/v1", model="m"), "response_format"


@pytest.mark.parametrize("built", [anthropic, openai])
def test_a_provider_judge_built_by_the_user_is_left_as_built(
    project: pytest.Pytester,
    fake_llm: FakeLLMServer,
    built: Callable[[FakeLLMServer], tuple[Judge, str]],
) -> None:
    judge, learned = built(fake_llm)
    before = state(judge)
    result = run_with(project, judge, "--rag-judge-passes=1", "--rag-no-cache")
    result.assert_outcomes(passed=1)
    assert read_report(project)["cases"][0]["metrics"]["faithfulness"]["score"] == 0.5
    # The run's copy learned to leave the field out; the user's judge would still send it.
    first, second = (request.body for request in fake_llm.requests)
    assert learned in first and learned not in second
    assert state(judge) == before
    assert KEY not in result.stdout.str()
