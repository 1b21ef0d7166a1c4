"""A judge's runtime, configured in one place: built around a copy of its backend from the
run's settings and what the run's judges share, the backend's own keyword arguments winning
over the run's settings; a cascade's LLM tier wrapped alike; and the backend the user built
never changed by the run that asks through it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from rag_eval_pytest.judges.backend import Given
from rag_eval_pytest.judges.base import Judge, JudgeOutcome
from rag_eval_pytest.judges.cache import JudgeCache
from rag_eval_pytest.judges.callable import CallableJudge
from rag_eval_pytest.judges.cascade import CascadeJudge
from rag_eval_pytest.judges.factory import ready
from rag_eval_pytest.judges.openai import OpenAIJudge
from rag_eval_pytest.judges.questions import StatementsInput, StatementSupport
from rag_eval_pytest.judges.run_config import JudgeDeadline, RunConfig, RunShared
from rag_eval_pytest.judges.runtime import JudgeRuntime
from rag_eval_pytest.judges.settings import JudgeSettings
from rag_eval_pytest.redaction import Redactor
from rag_eval_pytest.runtime.limits import AdaptiveLimiter
from rag_eval_pytest.runtime.retry import RetryPolicy
from tests.word_judge import word_judge

RUN = JudgeSettings(passes=3, timeout=30, retry={"max_attempts": 2}, max_context_tokens=9_000)
INPUTS = StatementsInput(
    question="When are refunds paid?",
    answer="Refunds are paid within 30 days.",
    contexts=["Refunds are paid within 30 days of purchase."],
)
SUPPORTED = (
    '{"statements": [{"statement": "Refunds are paid within 30 days.", '
    '"verdict": "supported", "reason": "the context says so"}]}'
)


def state(judge: Judge) -> dict[str, str]:
    """What a user sees of their judge object: each attribute, as it prints."""
    return {name: repr(value) for name, value in vars(judge).items()}


def test_what_a_backend_was_not_given_is_the_runs(tmp_path: Path) -> None:
    shared = RunShared(
        cache_dir=tmp_path,
        limiter=AdaptiveLimiter(4),
        redactor=Redactor(),
        deadline=JudgeDeadline(600),
    )
    runtime = JudgeRuntime.around(CallableJudge(word_judge, model="words"), RUN, shared)
    config = runtime.config
    assert (config.passes, config.timeout, config.max_context_tokens) == (3, 30, 9_000)
    assert config.retry == RetryPolicy(max_attempts=2)
    assert isinstance(config.cache, JudgeCache) and config.cache.directory == tmp_path
    assert (config.limiter, config.redactor, config.deadline) == (
        shared.limiter,
        shared.redactor,
        shared.deadline,
    )
    assert runtime.backend.timeout == 30  # the run's copy times its requests out so


def test_a_backends_own_keyword_arguments_win_over_the_runs_settings(tmp_path: Path) -> None:
    """As before the runtime was a wrapper of its own: what a constructor is given is what
    the judge does, whatever the run's settings (``cache=False``: no disk cache)."""
    retry = RetryPolicy(max_attempts=5)
    own = CallableJudge(
        word_judge,
        model="words",
        passes=1,
        timeout=5,
        retry=retry,
        cache=False,
        max_context_tokens=3_000,
    )
    runtime = JudgeRuntime.around(own, RUN, RunShared(cache_dir=tmp_path))
    config = runtime.config
    assert (config.passes, config.timeout, config.retry, config.cache) == (1, 5, retry, None)
    assert config.max_context_tokens == 3_000
    assert runtime.backend.timeout == 5


def test_passes_auto_gives_more_votes_near_a_threshold_to_any_backend() -> None:
    auto = JudgeSettings(passes="auto", max_passes=5, vote_margin=0.1)
    runtime = JudgeRuntime.around(CallableJudge(word_judge, model="w"), auto, RunShared())
    assert (runtime.passes, runtime.max_passes, runtime.vote_margin) == (1, 5, 0.1)
    given = JudgeRuntime.around(CallableJudge(word_judge, model="w", passes=3), auto, RunShared())
    assert (given.passes, given.max_passes) == (3, 5)


def test_outside_a_run_a_backend_asks_with_what_it_was_given_and_the_defaults() -> None:
    own = CallableJudge(word_judge, model="words", passes=3)
    assert own.given == Given(passes=3)
    assert RunConfig().under(own.given) == RunConfig(passes=3)
    outcome = asyncio.run(own.ask(StatementSupport(), INPUTS))
    assert outcome.judged and outcome.agreement == 1.0


def test_a_run_asks_through_a_copy_and_never_changes_the_backend_it_was_given(
    tmp_path: Path,
) -> None:
    own = CallableJudge(word_judge, model="words")
    before = state(own)
    runtime = JudgeRuntime.around(own, RUN, RunShared(cache_dir=tmp_path, redactor=Redactor()))
    outcome = asyncio.run(runtime.ask(StatementSupport(), INPUTS))
    asyncio.run(runtime.aclose())
    assert outcome.judged and outcome.usage.judge_calls == 2  # 3 passes: two agree
    assert runtime.backend is not own
    assert runtime.fingerprint() == own.fingerprint()  # the same answers, the same cache
    assert state(own) == before


def test_what_a_runs_copy_learns_of_its_server_stays_on_the_copy() -> None:
    """A server without response formats: the run's copy asks the rest in text; the judge
    the user built still asks for a response format, and has no client of the run's."""
    own = OpenAIJudge(api_key="sk-test-0123456789abcdef", model="m")
    before = state(own)
    runtime = JudgeRuntime.around(own, JudgeSettings(passes=1), RunShared())
    copy = runtime.backend
    assert isinstance(copy, OpenAIJudge)
    bodies: list[dict[str, Any]] = []

    def serve(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        if "response_format" in bodies[-1]:
            return httpx.Response(400, json={"error": {"message": "response_format: no"}})
        reply = {"choices": [{"message": {"content": SUPPORTED}}], "usage": {}}
        return httpx.Response(200, json=reply)

    async def ask() -> JudgeOutcome[Any]:
        copy._client = httpx.AsyncClient(transport=httpx.MockTransport(serve))
        try:
            return await runtime.ask(StatementSupport(), INPUTS)
        finally:
            await runtime.aclose()

    assert asyncio.run(ask()).judged
    assert ["response_format" in body for body in bodies] == [True, False]
    assert copy.response_format is False
    assert own.response_format is True and state(own) == before


class Local(Judge):
    kind = "local"

    async def ask(self, question: Any, inputs: Any) -> JudgeOutcome[Any]:
        return JudgeOutcome.not_judged("unused")


def test_a_cascades_llm_tier_is_wrapped_like_any_backend_and_the_cascade_kept() -> None:
    first, then = Local(), CallableJudge(word_judge, model="words")
    given = CascadeJudge(first, then)
    before = state(given)
    built = ready(given, RUN, RunShared())
    assert isinstance(built, CascadeJudge) and built is not given
    assert built.first is first
    assert isinstance(built.then, JudgeRuntime) and built.then.backend is not then
    assert built.then.passes == 3
    assert state(given) == before and given.then is then
