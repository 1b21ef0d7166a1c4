"""LocalJudge without the model: how its thresholds and unsure bands follow what it is
given, what it answers and what it says it cannot, the answers it rates without encoding
anything, the contexts' passages kept for the cases that share them, and an entailment model
beside the rules. The encoder is a stand-in (tests/unit/judges/local/fakes.py); verdicts on
real text are tests/integration/judges/local/test_judge.py's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rag_eval_pytest.judges.local import judge as judge_module
from rag_eval_pytest.judges.local.entailment import Entailment
from rag_eval_pytest.judges.local.judge import (
    NOT_INSTALLED,
    LocalJudge,
    stable_repr,
    statements_of,
)
from rag_eval_pytest.judges.local.relevance import SENTENCE_RELEVANCE
from rag_eval_pytest.judges.local.support import DEFAULT_CALIBRATION
from rag_eval_pytest.judges.questions import (
    AnswerAddressesQuestion,
    ContextSentenceRelevance,
    CriterionCheck,
    DirectRelevanceInput,
    GeneratedQuestions,
    QuestionsInput,
    RelevanceInput,
    StatementSupport,
)
from tests.unit.judges.local.fakes import Encoder, embedder

CONTEXTS = ["Refunds are possible within 14 days. Shipping is free.", "Support answers by mail."]


def local(encoder: Encoder | None = None, **settings: Any) -> LocalJudge:
    return LocalJudge(embedder=embedder(encoder), **settings)


def encoded(encoder: Encoder) -> list[str]:
    return [text for call in encoder.calls for text in call]


# ----------------------------------------------------------------- thresholds


def test_without_the_local_extra_the_judge_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(judge_module, "shared_embedder", lambda device, model: None)
    with pytest.raises(ImportError) as missing:
        LocalJudge()
    assert str(missing.value) == NOT_INSTALLED
    assert "pip install 'rag-eval-pytest[local]'" in NOT_INSTALLED


def test_the_default_thresholds_are_the_calibrations() -> None:
    made = local()
    assert made.calibration == DEFAULT_CALIBRATION
    assert made.relevance_threshold == SENTENCE_RELEVANCE.support


def test_a_lower_support_threshold_lowers_the_ambiguous_one_and_the_band_holds_it() -> None:
    low = local(support_threshold=0.02)
    assert (low.calibration.support, low.calibration.ambiguous) == (0.02, 0.02)
    assert low.calibration.unsure == (0.02, DEFAULT_CALIBRATION.unsure[1])
    high = local(support_threshold=0.9, ambiguous_threshold=0.5)
    assert (high.calibration.ambiguous, high.calibration.unsure) == (
        0.5,
        (DEFAULT_CALIBRATION.unsure[0], 0.9),
    )


def test_an_ambiguous_threshold_above_the_support_threshold_is_refused() -> None:
    with pytest.raises(ValueError, match="must not exceed the support threshold"):
        local(support_threshold=0.5, ambiguous_threshold=0.6)


def test_a_relevance_threshold_moves_the_sentences_cut_and_band() -> None:
    made = local(relevance_threshold=0.95)
    assert made.relevance_threshold == 0.95
    assert made.sentence_model.support == 0.95
    band = made.sentence_model.unsure
    assert band is None or band[0] <= 0.95 <= band[1]


class Nli:
    """An entailment model that finds every claim entailed."""

    name = "nli-deberta"

    def __init__(self, entailment: float = 0.99) -> None:
        self.entailment = entailment
        self.pairs: list[tuple[str, str]] = []

    async def apredict(self, pairs: list[tuple[str, str]]) -> list[Entailment]:
        self.pairs.extend(pairs)
        return [Entailment(self.entailment, 0.0) for _ in pairs]


def test_its_name_and_identity_say_what_decides_its_verdicts() -> None:
    plain = local()
    assert plain.describe() == "local (all-MiniLM-L6-v2 + rules)"
    with_nli = local(entailment=Nli(), nli_threshold=0.7)
    assert with_nli.model == "all-MiniLM-L6-v2 + rules + nli-deberta"
    identity = with_nli.identity()
    assert identity is not None
    assert identity["thresholds"] == "relevance=0.46 nli=0.7"
    assert identity["calibration"] == stable_repr(with_nli.calibration)
    assert identity != local(support_threshold=0.5).identity()


# ----------------------------------------------------------------- questions


def test_it_answers_the_questions_it_can_and_says_so_of_the_others() -> None:
    made = local()
    assert made.supports(StatementSupport) and made.supports(AnswerAddressesQuestion)
    assert not made.supports(GeneratedQuestions) and not made.supports(CriterionCheck)
    outcome = asyncio.run(made.ask(GeneratedQuestions(), QuestionsInput(answer="a")))
    assert outcome.unsupported and outcome.value is None
    assert outcome.reason == (
        f"the local judge cannot answer {GeneratedQuestions().name} (it writes no text)"
    )


def test_a_declining_answer_is_rated_0_without_encoding_anything() -> None:
    encoder = Encoder()
    inputs = DirectRelevanceInput(question="When do you open?", answer="I don't know.")
    outcome = asyncio.run(local(encoder).ask(AnswerAddressesQuestion(), inputs))
    assert (outcome.value.score, outcome.value.noncommittal) == (0.0, True)
    assert encoder.calls == []
    # An answer that declines is rated on too few held-out rows to decide alone: unsure.
    assert outcome.unsure == (0,) and outcome.value.bounds == (0, 1)
    assert outcome.value.reason.startswith("unsure (not relevant: declines:")


def test_a_context_without_sentences_is_rated_without_encoding_anything() -> None:
    encoder = Encoder()
    inputs = RelevanceInput(question="When do you open?", context_sentences=[])
    outcome = asyncio.run(local(encoder).ask(ContextSentenceRelevance(), inputs))
    assert outcome.value.sentences == [] and encoder.calls == []


def test_a_bare_yes_states_the_question_it_answers_and_nothing_without_one() -> None:
    (stated,) = statements_of("Yes.", "Is the shop open on Sundays?")
    assert stated != "Yes." and "open on Sundays" in stated
    assert statements_of("Yes.", "When does the shop open?") == []
    assert statements_of("It opens at 9 am. It closes at 5 pm.", "When?") == [
        "It opens at 9 am.",
        "It closes at 5 pm.",
    ]


# ----------------------------------------------------------------- passages kept


def support(made: LocalJudge, claims: list[str], contexts: list[str]) -> Any:
    return asyncio.run(made.support(claims, contexts, "How long do refunds take?"))


def test_no_claim_means_nothing_encoded() -> None:
    encoder = Encoder()
    assert support(local(encoder), [], CONTEXTS) == []
    assert encoder.calls == []


def test_cases_that_share_their_contexts_encode_them_once() -> None:
    encoder = Encoder()
    made = local(encoder)
    first = support(made, ["Refunds take 14 days."], CONTEXTS)
    sentences = len(encoded(encoder)) - 1
    assert sentences >= 3  # every sentence of both contexts
    second = support(made, ["Refunds take 14 days.", "Shipping costs 5 EUR."], CONTEXTS)
    assert encoded(encoder)[sentences + 1 :] == ["Shipping costs 5 EUR."]
    assert second[0] == first[0]


def test_the_passages_of_the_least_recently_used_contexts_are_let_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(judge_module, "EVIDENCE_KEPT", 2)
    made = local()
    for contexts in (["one."], ["two."], ["one."], ["three."]):
        support(made, ["A claim of its own."], contexts)
    assert list(made._evidence) == [("one.",), ("three.",)]


def test_an_entailment_model_revises_the_rules_verdicts() -> None:
    nli = Nli()
    made = local(entailment=nli, nli_threshold=0.9)
    (verdict,) = support(made, ["Something no context says."], CONTEXTS)
    assert verdict.verdict == "supported" and verdict.reason.startswith("entailed by")
    assert nli.pairs == [(verdict.evidence, "Something no context says.")]
    (not_enough,) = support(local(entailment=Nli(0.5), nli_threshold=0.9), ["Claim."], CONTEXTS)
    assert not_enough.verdict == "not mentioned"


def test_passages_are_read_in_composed_unicode() -> None:
    encoder = Encoder()
    made = local(encoder)
    decomposed = "Cafe\u0301 opens at 9."
    support(made, ["The café opens at 9."], [decomposed])
    assert "Café opens at 9." in encoded(encoder)
    assert decomposed not in encoded(encoder)
