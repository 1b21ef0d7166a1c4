"""Each question the metrics ask, answered by the local judge on short realistic inputs: the
verdicts a user would see in a report, and the reasons that explain them."""

from __future__ import annotations

import asyncio
import math
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
    QuestionsInput,
    RelevanceInput,
    StatementsInput,
    StatementSupport,
)

from .conftest import ask

POLICY = (
    "Full-time employees receive 20 days paid time off annually. Part-time employees "
    "receive a prorated amount. Unused days cannot be carried over to the next year."
)
REFUNDS = (
    "Refunds are accepted within 30 days of purchase with a receipt. Gift cards cannot be "
    "refunded. Refunds are paid to the original payment method."
)
SHIPPING = "Standard shipping takes 3 to 5 business days. Express shipping costs $15."


def verdicts(judge: Any, answer: str, contexts: list[str], question: str = "") -> list[Any]:
    inputs = StatementsInput(question=question, answer=answer, contexts=contexts)
    return list(ask(judge, StatementSupport(), inputs).statements)


def test_a_wrong_number_is_unsupported_with_both_numbers_in_the_reason(local_judge: Any) -> None:
    [verdict] = verdicts(local_judge, "Full-time employees get 30 days of paid time off.", [POLICY])
    assert verdict.verdict == "contradicted"
    assert "claims 30 days; the context says 20 days" in verdict.reason


def test_a_faithful_answer_is_supported_claim_by_claim(local_judge: Any) -> None:
    answer = (
        "Full-time employees receive 20 days of paid time off each year. "
        "Part-time employees get a prorated amount."
    )
    result = verdicts(local_judge, answer, [POLICY, SHIPPING], "How much time off do we get?")
    assert [v.verdict for v in result] == ["supported", "supported"]
    assert "context 1" in result[0].reason


def test_a_negated_claim_is_unsupported(local_judge: Any) -> None:
    [verdict] = verdicts(local_judge, "Unused days can be carried over to the next year.", [POLICY])
    assert verdict.verdict == "contradicted"
    assert "cannot" in verdict.reason


def test_a_claim_from_outside_the_contexts_is_not_mentioned(local_judge: Any) -> None:
    result = verdicts(
        local_judge,
        "Refunds are accepted within 30 days of purchase. Refunds are also available as "
        "cryptocurrency through our partner Coinbase.",
        [REFUNDS],
    )
    assert [v.verdict for v in result] == ["supported", "not mentioned"]
    assert "Coinbase" in result[1].reason and "not mentioned" in result[1].reason


def test_an_answer_about_something_else_is_not_supported_by_an_unrelated_context(
    local_judge: Any,
) -> None:
    # No word in common and a similarity near 0: the support model's own score (no hand rule
    # on top) is the reason, and the verdict is left to an LLM judge.
    [verdict] = verdicts(
        local_judge,
        "Banana.",
        ["Orders are delivered within 3 to 5 business days."],
        "How do I get a refund?",
    )
    assert verdict.verdict == "not mentioned"
    assert "not mentioned in the contexts" in verdict.reason
    assert verdict.reason.startswith("unsure (score "), verdict.reason


def test_a_wrong_name_in_a_short_answer_is_unsupported(local_judge: Any) -> None:
    context = "The Eiffel Tower was designed by the engineering company of Gustave Eiffel."
    question = "Whose company designed the Eiffel Tower?"
    [right] = verdicts(local_judge, "Gustave Eiffel", [context], question)
    [wrong] = verdicts(local_judge, "Alexandre Dumas", [context], question)
    assert right.verdict == "supported"
    assert wrong.verdict == "contradicted"
    assert "Alexandre Dumas" in wrong.reason


def test_an_answer_that_declines_has_no_statements(local_judge: Any) -> None:
    assert verdicts(local_judge, "I don't know.", [POLICY]) == []


def test_empty_contexts_support_nothing(local_judge: Any) -> None:
    [verdict] = verdicts(local_judge, "Employees get 20 days off.", [])
    assert verdict.verdict == "not mentioned"
    assert verdict.reason == "the contexts are empty"


def test_context_usefulness_per_context(local_judge: Any) -> None:
    inputs = ContextsInput(
        question="Can gift cards be refunded?",
        ground_truth="No, gift cards cannot be refunded.",
        contexts=[SHIPPING, REFUNDS],
    )
    value = ask(local_judge, ContextUsefulness(), inputs)
    assert [(v.index, v.useful) for v in value.verdicts] == [(0, False), (1, True)]
    assert "supports 1 of 1" in value.verdicts[1].reason


def test_ground_truth_attribution_per_sentence(local_judge: Any) -> None:
    inputs = AttributionInput(
        question="What is the refund policy?",
        ground_truth_sentences=[
            "Refunds are accepted within 30 days of purchase.",
            "Refunds are processed within 48 hours.",
        ],
        contexts=[REFUNDS],
    )
    value = ask(local_judge, GroundTruthAttribution(), inputs)
    assert [s.attributed for s in value.sentences] == [True, False]
    assert "48 hours" in value.sentences[1].reason


def test_context_sentence_relevance(local_judge: Any) -> None:
    inputs = RelevanceInput(
        question="How long does standard shipping take?",
        context_sentences=[
            "Standard shipping takes 3 to 5 business days.",
            "Our company was founded in 1998 in Ohio by two brothers.",
        ],
    )
    value = ask(local_judge, ContextSentenceRelevance(), inputs)
    assert [s.relevant for s in value.sentences] == [True, False]


def test_answer_relevance_rates_on_topic_answers_above_off_topic_ones(local_judge: Any) -> None:
    question = "When did the Eiffel Tower open?"

    def rate(answer: str) -> Any:
        return ask(
            local_judge,
            AnswerAddressesQuestion(),
            DirectRelevanceInput(question=question, answer=answer),
        )

    good = rate("The Eiffel Tower opened to the public in March 1889.")
    vague = rate("The Eiffel Tower is a wrought-iron lattice tower in Paris.")
    off = rate("Bananas are rich in potassium.")
    evasive = rate("I'm sorry, I don't know.")
    assert good.score >= 0.7 > off.score
    assert good.score > vague.score > off.score
    assert all(math.isfinite(r.score) and 0 <= r.score <= 1 for r in (good, vague, off))
    assert evasive.noncommittal and evasive.score == 0.0


def test_answer_equivalence_by_claims_in_both_directions(local_judge: Any) -> None:
    inputs = EquivalenceInput(
        question="What is the refund policy?",
        answer="Refunds are accepted within 60 days of purchase. Gift cards cannot be refunded.",
        ground_truth=(
            "Refunds are accepted within 30 days of purchase. Gift cards cannot be refunded."
        ),
    )
    value = ask(local_judge, AnswerEquivalence(), inputs)
    assert not value.same_information
    assert value.matching_facts == ["Gift cards cannot be refunded."]
    assert value.missing_facts == ["Refunds are accepted within 30 days of purchase."]
    assert value.wrong_or_extra_facts == ["Refunds are accepted within 60 days of purchase."]
    same = ask(
        local_judge,
        AnswerEquivalence(),
        inputs.model_copy(update={"answer": inputs.ground_truth}),
    )
    assert same.same_information


def test_generated_questions_are_declined_not_faked(local_judge: Any) -> None:
    assert not local_judge.supports(GeneratedQuestions)
    assert local_judge.supports(StatementSupport)
    outcome = asyncio.run(local_judge.ask(GeneratedQuestions(), QuestionsInput(answer="Paris.")))
    assert not outcome.judged
    assert "cannot answer" in outcome.reason


def test_embeddings_are_unit_length_and_tell_topics_apart(local_judge: Any) -> None:
    a, b, c = asyncio.run(
        local_judge.embed(
            ["Employees get 20 days off.", "Staff receive twenty days of leave.", "Bananas."]
        )
    )
    assert len(a) == 384
    assert math.isclose(sum(x * x for x in a), 1.0, rel_tol=1e-4)
    dot = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731
    assert dot(a, b) > 0.6 > 0.2 > dot(a, c)


def test_concurrent_cases_share_batches_and_never_encode_a_text_twice(local_judge: Any) -> None:
    embedder = local_judge.embedder
    texts = [f"Case {i} says the office opens at {i} o'clock." for i in range(40)]

    async def run() -> None:
        await asyncio.gather(*(embedder.vectors([t, texts[0]]) for t in texts))

    before = embedder.encoded
    asyncio.run(run())
    assert embedder.encoded - before == 40
    asyncio.run(run())
    assert embedder.encoded - before == 40


def test_the_header_names_the_model(local_judge: Any) -> None:
    assert local_judge.describe() == "local (all-MiniLM-L6-v2 + rules)"


def test_importing_the_local_judge_loads_neither_torch_nor_the_model() -> None:
    code = (
        "import sys; import rag_eval_pytest.judges.local as m; m.LocalJudge; "
        "print(sorted(n for n in ('torch', 'sentence_transformers', 'transformers') "
        "if n in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_a_cancelled_case_does_not_cancel_the_encoding_other_cases_wait_for(
    local_judge: Any,
) -> None:
    embedder = local_judge.embedder
    texts = [f"Cancellation probe {i}: the warehouse ships on weekdays." for i in range(8)]

    async def run() -> list[Any]:
        first = asyncio.ensure_future(embedder.vectors(texts))
        second = asyncio.ensure_future(embedder.vectors(texts))
        await asyncio.sleep(0)
        first.cancel()
        return await second

    vectors = asyncio.run(run())
    assert len(vectors) == 8
    assert all(abs(float(v @ v) - 1.0) < 1e-4 for v in vectors)
