"""Several questions in one request: each a task of its own, with its own data sections
(``TASK K ...``) and its own answer, checked by its own question; the request counted once.
An LLM judge's runtime asks questions together when each gets one vote, and apart when they
are voted on or when the bundle's reply could not be read."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from rag_eval_pytest.judges.base import JudgeOutcome, Usage
from rag_eval_pytest.judges.bundle import bundle, parts_of
from rag_eval_pytest.judges.callable import CallableJudge
from rag_eval_pytest.judges.factory import ready
from rag_eval_pytest.judges.prompt import render
from rag_eval_pytest.judges.questions import (
    AttributionInput,
    ContextsInput,
    ContextUsefulness,
    GeneratedQuestions,
    GroundTruthAttribution,
    QuestionsInput,
    StatementsInput,
    StatementSupport,
)
from rag_eval_pytest.judges.run_config import RunShared
from rag_eval_pytest.judges.settings import JudgeSettings
from tests.word_judge import word_judge

CONTEXT = "Refunds are paid within 30 days of purchase."
ASKED: list[tuple[Any, Any]] = [
    (
        StatementSupport(),
        StatementsInput(
            question="When are refunds paid?",
            answer="Refunds are paid within 30 days.",
            contexts=[CONTEXT],
        ),
    ),
    (
        ContextUsefulness(),
        ContextsInput(
            question="When are refunds paid?",
            ground_truth="Refunds are paid within 30 days of purchase.",
            contexts=[CONTEXT, "Shipping is free."],
        ),
    ),
    (
        GroundTruthAttribution(),
        AttributionInput(
            question="When are refunds paid?",
            ground_truth_sentences=["Refunds are paid within 30 days of purchase."],
            contexts=[CONTEXT],
        ),
    ),
]


def test_each_question_of_a_bundle_is_a_task_with_its_own_data_and_answer() -> None:
    question, inputs = bundle(
        [*ASKED, (GeneratedQuestions(), QuestionsInput(answer="A.", count=2))]
    )
    prompt = render(question, inputs, mode="json")
    assert question.name == (
        "bundle:statement_support+context_usefulness+ground_truth_attribution+generated_questions"
    )
    assert "This request holds 4 tasks" in prompt.user
    assert "## Task 2 (context_usefulness)\nFor EACH of the CONTEXTS" in prompt.user
    assert '<data section="TASK 2 CONTEXTS"' in prompt.user
    assert 'items="2"' in prompt.user
    assert "- task 4 count: 2" in prompt.user  # a parameter is no data section
    assert set(prompt.schema["properties"]) == {"task_1", "task_2", "task_3", "task_4"}
    # Each task's answer is checked by its own question: one verdict per context.
    answer = question.output_model.model_validate(
        {
            "task_1": {"statements": []},
            "task_2": {"verdicts": [{"index": 0, "useful": True, "reason": "r"}]},
            "task_3": {"sentences": [{"index": 0, "attributed": True, "reason": "r"}]},
            "task_4": {"questions": ["When?"], "noncommittal": False},
        }
    )
    assert question.check(inputs, answer) == [
        "task_2: expected one verdict for each of 2 contexts, got indexes [0]"
    ]


def test_a_bundles_outcome_is_each_questions_the_request_counted_once() -> None:
    question, _ = bundle(ASKED[:2])
    value = question.output_model.model_validate(
        {
            "task_1": {"statements": []},
            "task_2": {"verdicts": [{"index": 0, "useful": True, "reason": "r"}]},
        }
    )
    usage = Usage(judge_calls=1, input_tokens=301, output_tokens=41, cost_usd=0.002)
    first, second = parts_of(JudgeOutcome(value, usage=usage, agreement=1.0), 2)
    assert first.value == value.task_1 and second.value == value.task_2  # type: ignore[attr-defined]
    assert first.usage == Usage(judge_calls=1, input_tokens=151, output_tokens=21, cost_usd=0.001)
    assert second.usage == Usage(input_tokens=150, output_tokens=20, cost_usd=0.001)
    failed = parts_of(JudgeOutcome.not_judged("down", usage, stopped="judge unreachable"), 2)
    assert [(o.value, o.reason, o.stopped) for o in failed] == [
        (None, "down", "judge unreachable")
    ] * 2


def runtime(prompts: list[str], passes: int = 1, answer: Any = word_judge) -> Any:
    def judge(prompt: str) -> str:
        prompts.append(prompt)
        return str(answer(prompt))

    settings = JudgeSettings(passes=passes, cache=False)
    return ready(CallableJudge(judge, model="words"), settings, RunShared())


def test_an_llm_judge_asks_several_questions_in_one_request() -> None:
    prompts: list[str] = []
    together = asyncio.run(runtime(prompts).ask_many(ASKED))
    assert len(prompts) == 1
    alone = [asyncio.run(runtime([]).ask(q, i)) for q, i in ASKED]
    assert [o.value for o in together] == [o.value for o in alone]
    assert [o.usage.judge_calls for o in together] == [1, 0, 0]


def test_questions_voted_on_are_asked_apart() -> None:
    prompts: list[str] = []
    outcomes = asyncio.run(runtime(prompts, passes=3).ask_many(ASKED))
    assert all(o.judged for o in outcomes)
    assert not any("This request holds" in p for p in prompts)


def test_a_bundle_the_judge_cannot_answer_is_asked_question_by_question() -> None:
    def single_tasks_only(prompt: str) -> str:
        if "This request holds" in prompt:
            return json.dumps({"verdict": "supported"})
        return word_judge(prompt)

    prompts: list[str] = []
    outcomes = asyncio.run(runtime(prompts, answer=single_tasks_only).ask_many(ASKED))
    assert all(o.judged for o in outcomes)
    assert len(prompts) == 2 + 3  # the bundle and its re-ask, then each question
    assert outcomes[0].usage.judge_calls == 3  # the bundle's two requests, and its own


def test_a_task_still_miscounted_after_the_re_ask_keeps_its_matching_verdicts() -> None:
    def one_verdict_short(prompt: str) -> str:
        answer = json.loads(word_judge(prompt).split("```json\n", 1)[1].split("\n```", 1)[0])
        answer["task_2"]["verdicts"] = answer["task_2"]["verdicts"][:1]
        return json.dumps(answer)

    prompts: list[str] = []
    outcomes = asyncio.run(runtime(prompts, answer=one_verdict_short).ask_many(ASKED))
    assert len(prompts) == 2  # the bundle and its corrective re-ask
    assert [o.judged for o in outcomes] == [True, True, True]
    assert [v.index for v in outcomes[1].value.verdicts] == [0]
    assert any("task_2: judged 1 of 2 contexts" in note for note in outcomes[1].notes)
