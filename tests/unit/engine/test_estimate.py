"""The pre-run estimate: the prompts each judged metric would send for each case (a recorded
answer as it is, a typical size otherwise), the passes of an agreeing vote, priced at the
judge's model; nothing to estimate without a judged metric."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.data.dataset import Case, LoadedCase
from rag_eval_pytest.engine.estimate import TYPICAL_ANSWER, TYPICAL_CONTEXTS, estimate_run
from rag_eval_pytest.judges.cost import PRICES
from rag_eval_pytest.judges.prompt import estimate_tokens, render
from rag_eval_pytest.judges.questions import StatementsInput, StatementSupport
from rag_eval_pytest.judges.settings import JudgeSettings


def loaded(key: str, **fields: Any) -> LoadedCase:
    case = Case.model_validate({"question": f"Question {key}?", **fields})
    return LoadedCase(key=key, index=0, case=case, dataset=Path("d.json"))


RECORDED = loaded("a", ground_truth="g", answer="Paris.", contexts=[{"text": "Paris is big."}])


def faithfulness_tokens(question: str, answer: str, contexts: list[str]) -> int:
    inputs = StatementsInput(question=question, answer=answer, contexts=contexts)
    return estimate_tokens(render(StatementSupport(), inputs, mode="json").text)


def test_nothing_to_estimate_without_a_judged_metric() -> None:
    settings = JudgeSettings(kind="openai", model="gpt-4o")
    assert estimate_run(settings, [RECORDED], ["retrieval_recall"], env={}) is None
    assert estimate_run(settings, [RECORDED], ["my_custom_metric"], env={}) is None


def test_a_recorded_answer_is_priced_at_the_judges_model_with_the_agreeing_passes() -> None:
    settings = JudgeSettings(kind="openai", model="gpt-4o", passes=3)
    result = estimate_run(settings, [RECORDED], ["faithfulness"], env={})
    assert result is not None
    tokens = faithfulness_tokens("Question a?", "Paris.", ["Paris is big."])
    # 3 votes: 2 agreeing passes are the least a vote costs.
    assert (result.calls, result.input_tokens, result.output_tokens) == (2, 2 * tokens, 800)
    price_in, price_out = PRICES["gpt-4o"]
    assert result.cost_usd == pytest.approx((2 * tokens * price_in + 800 * price_out) / 1e6)


def test_an_unanswered_case_is_estimated_at_a_typical_size() -> None:
    settings = JudgeSettings(kind="openai", model="gpt-4o")
    result = estimate_run(settings, [loaded("b")], ["faithfulness"], env={})
    assert result is not None and result.calls == 1
    assert result.input_tokens == faithfulness_tokens(
        "Question b?", TYPICAL_ANSWER, TYPICAL_CONTEXTS
    )


def test_a_case_without_ground_truth_costs_nothing_for_metrics_that_need_one() -> None:
    settings = JudgeSettings(kind="openai", model="gpt-4o")
    no_truth = loaded("c", answer="x", contexts=[{"text": "y"}])
    both = estimate_run(settings, [no_truth], ["faithfulness", "context_recall"], env={})
    alone = estimate_run(settings, [no_truth], ["faithfulness"], env={})
    assert both == alone


def test_the_local_judge_costs_nothing() -> None:
    result = estimate_run(
        JudgeSettings(kind="local"), [RECORDED, loaded("b")], ["faithfulness"], env={}
    )
    assert result is not None
    assert (result.calls, result.input_tokens, result.output_tokens, result.cost_usd) == (
        2,
        0,
        0,
        0.0,
    )


def test_auto_with_a_key_is_anthropic_and_an_unknown_model_has_no_cost() -> None:
    auto = estimate_run(
        JudgeSettings(model="claude-haiku-4-5"),
        [RECORDED],
        ["faithfulness"],
        env={"ANTHROPIC_API_KEY": "k"},
    )
    assert auto is not None and auto.cost_usd is not None and auto.cost_usd > 0
    custom = estimate_run(
        JudgeSettings(kind="mymodule:judge"), [RECORDED], ["faithfulness"], env={}
    )
    assert custom is not None and custom.calls == 1 and custom.cost_usd is None


def test_a_cascade_costs_at_most_its_llm_tier_alone() -> None:
    tier = JudgeSettings(kind="openai", model="gpt-4o")
    cascade = JudgeSettings(kind="cascade", then=tier)
    assert estimate_run(cascade, [RECORDED], ["faithfulness"], env={}) == estimate_run(
        tier, [RECORDED], ["faithfulness"], env={}
    )
    # Without an LLM tier there is nothing to price (the run itself says what is missing).
    assert estimate_run(JudgeSettings(kind="cascade"), [RECORDED], ["faithfulness"], env={}) is None


def test_a_conversation_counts_each_turn_and_the_retention_question_after_a_fact() -> None:
    settings = JudgeSettings(kind="openai", model="gpt-4o")
    turns = [
        {"question": "Where is my parcel?", "answer": "On its way.", "contexts": ["x"]},
        {"question": "My order number is 4417. When?", "answer": "Soon.", "contexts": ["x"]},
        {"question": "Are you sure?", "answer": "Yes, tomorrow.", "contexts": ["x"]},
    ]
    case = Case.model_validate({"id": "chat", "turns": turns})
    chat = LoadedCase(key="chat", index=0, case=case, dataset=Path("d.json"))
    faithful = estimate_run(settings, [chat], ["faithfulness"], env={})
    assert faithful is not None and faithful.calls == 3  # one per turn, not one per case
    assert faithful.input_tokens == sum(
        faithfulness_tokens(q, a, ["x"])
        for q, a in [
            ("Where is my parcel?", "On its way."),
            ("My order number is 4417. When?", "Soon."),
            ("Are you sure?", "Yes, tomorrow."),
        ]
    )
    # Knowledge retention asks only where an earlier user message stated a fact: turn 3.
    retained = estimate_run(settings, [chat], ["knowledge_retention"], env={})
    assert retained is not None and retained.calls == 1
    single = estimate_run(settings, [RECORDED], ["knowledge_retention"], env={})
    assert single is not None and single.calls == 0
