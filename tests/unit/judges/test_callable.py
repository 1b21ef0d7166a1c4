"""``CallableJudge``: any ``prompt -> text`` function is a judge. It may be sync or async and
return text or parsed JSON; a failure of the function is "not judged" with its reason; and
only a function that keeps its name from one run to the next (or a given ``model``) has an
identity the disk cache can trust."""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import pytest

from rag_eval_pytest.judges.base import JudgeOutcome
from rag_eval_pytest.judges.callable import CallableJudge, stable_name
from rag_eval_pytest.judges.questions import AnswerEquivalence, Equivalence, EquivalenceInput

INPUTS = EquivalenceInput(question="Capital?", answer="Paris", ground_truth="Paris")
SAME = {
    "same_information": True,
    "matching_facts": ["Paris"],
    "missing_facts": [],
    "wrong_or_extra_facts": [],
}


def reply_text(prompt: str) -> str:
    return json.dumps(SAME)


def ask(fn: Any, **kwargs: Any) -> JudgeOutcome[Any]:
    judge = CallableJudge(fn, passes=1, cache=False, **kwargs)
    return asyncio.run(judge.ask(AnswerEquivalence(), INPUTS))


def test_a_sync_function_returning_json_text_is_judged() -> None:
    outcome = ask(reply_text)
    assert isinstance(outcome.value, Equivalence)
    assert outcome.value.same_information is True
    assert outcome.usage.judge_calls == 1


def test_an_async_function_and_a_mapping_are_accepted() -> None:
    async def reply(prompt: str) -> dict[str, Any]:
        return SAME

    assert ask(reply).value.matching_facts == ["Paris"]


def test_the_function_sees_the_delimited_untrusted_text() -> None:
    prompts: list[str] = []

    def record(prompt: str) -> str:
        prompts.append(prompt)
        return json.dumps(SAME)

    ask(record)
    (prompt,) = prompts
    assert '<data section="GROUND TRUTH"' in prompt and "Paris" in prompt


def test_a_reply_that_is_not_text_is_not_judged_and_says_what_it_was() -> None:
    outcome = ask(lambda prompt: 42, model="my-llm")
    assert not outcome.judged
    assert "my-llm returned int; a custom judge returns text" in outcome.reason


def test_an_exception_in_the_function_is_not_judged_with_its_message() -> None:
    def broken(prompt: str) -> str:
        raise RuntimeError("backend down")

    outcome = ask(broken, model="my-llm")
    assert not outcome.judged
    assert "my-llm raised RuntimeError: backend down" in outcome.reason


def test_a_non_callable_is_refused() -> None:
    with pytest.raises(TypeError, match="CallableJudge needs a callable, got str"):
        CallableJudge("gpt-4o")  # type: ignore[arg-type]


def test_the_model_name_defaults_to_the_functions_name() -> None:
    assert CallableJudge(reply_text).model == "reply_text"
    assert CallableJudge(reply_text, model="my-llm-v2").describe() == "custom (my-llm-v2)"


def test_stable_name_only_for_top_level_functions() -> None:
    def inner(prompt: str) -> str:
        return ""

    assert stable_name(reply_text) == f"{__name__}.reply_text"
    assert stable_name(len) == "builtins.len"
    assert stable_name(lambda prompt: "") is None
    assert stable_name(inner) is None
    assert stable_name(functools.partial(reply_text)) is None


def test_only_a_stable_or_named_function_has_a_fingerprint() -> None:
    top = CallableJudge(reply_text)
    assert top.identity() is not None
    assert top.identity()["function"] == f"{__name__}.reply_text"  # type: ignore[index]
    assert CallableJudge(lambda prompt: "").fingerprint() is None  # answers not cached on disk
    named = CallableJudge(lambda prompt: "", model="my-llm-v2")
    assert named.fingerprint() is not None
    assert "function" not in (named.identity() or {})
    # Two differently named models never share answers.
    assert named.fingerprint() != CallableJudge(lambda p: "", model="my-llm-v3").fingerprint()
