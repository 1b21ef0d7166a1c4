"""The cascade judge: the local tier answers, and only the items it is unsure of go to the
LLM tier, as the same typed question; the items it decided keep its verdicts, and the outcome
says how many items each tier decided. A question the local tier cannot answer goes whole."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rag_eval_pytest.judges.base import Judge, JudgeOutcome, Question, Usage
from rag_eval_pytest.judges.cascade import CascadeJudge, tiered
from rag_eval_pytest.judges.factory import cascade_tier
from rag_eval_pytest.judges.questions import (
    AnswerAddressesQuestion,
    AttributionInput,
    Attributions,
    CriterionCheck,
    CriterionInput,
    CriterionVerdict,
    DirectRelevance,
    DirectRelevanceInput,
    GeneratedQuestions,
    GroundTruthAttribution,
    StatementsInput,
    StatementSupport,
    StatementVerdict,
    StatementVerdicts,
)
from rag_eval_pytest.judges.settings import JudgeSettings

INPUTS = StatementsInput(
    question="When are refunds paid?",
    answer="Refunds take 30 days. They go to the card. Shipping is free.",
    contexts=["Refunds are paid within 30 days to the original card."],
)


def verdicts(*pairs: tuple[str, str]) -> StatementVerdicts:
    return StatementVerdicts(
        statements=[StatementVerdict(statement=s, verdict=v, reason="r") for s, v in pairs]  # type: ignore[arg-type]
    )


class Local(Judge):
    kind = "local"
    model = "minilm"

    def __init__(
        self, outcome: JudgeOutcome[Any] | None = None, answers: tuple[type, ...] = ()
    ) -> None:
        self.outcome = outcome
        self.answers = answers
        self.asked: list[Any] = []
        self.closed = False

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        return question in self.answers

    async def ask(self, question: Any, inputs: Any) -> JudgeOutcome[Any]:
        self.asked.append(inputs)
        assert self.outcome is not None
        return self.outcome

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]

    async def aclose(self) -> None:
        self.closed = True


class Llm(Judge):
    kind = "llm"
    model = "big"

    def __init__(self, outcome: JudgeOutcome[Any]) -> None:
        self.outcome = outcome
        self.asked: list[tuple[Any, Any]] = []
        self.closed = False

    async def ask(self, question: Any, inputs: Any) -> JudgeOutcome[Any]:
        self.asked.append((question, inputs))
        return self.outcome

    async def aclose(self) -> None:
        self.closed = True


def ask(judge: CascadeJudge, question: Any, inputs: Any) -> JudgeOutcome[Any]:
    return asyncio.run(judge.ask(question, inputs))


def test_what_the_local_tier_is_sure_of_never_reaches_the_llm() -> None:
    sure = JudgeOutcome(verdicts(("a", "supported"), ("b", "supported")))
    llm = Llm(JudgeOutcome.not_judged("never asked"))
    outcome = ask(CascadeJudge(Local(sure, (StatementSupport,)), llm), StatementSupport(), INPUTS)
    assert llm.asked == []
    assert outcome.value == sure.value
    assert outcome.tiers == (("local", 2),)


def test_only_the_unsure_statements_go_to_the_llm_and_the_rest_keep_their_verdicts() -> None:
    local_value = verdicts(
        ("Refunds take 30 days.", "supported"),
        ("They go to the card.", "not mentioned"),
        ("Shipping is free.", "not mentioned"),
    )
    local = Local(
        JudgeOutcome(local_value, notes=("local note",), unsure=(1, 2)), (StatementSupport,)
    )
    llm_value = verdicts(
        ("Refunds go to the card.", "supported"), ("Shipping is free.", "not mentioned")
    )
    llm = Llm(
        JudgeOutcome(llm_value, usage=Usage(judge_calls=1), notes=("llm note",), agreement=1.0)
    )
    outcome = ask(CascadeJudge(local, llm), StatementSupport(), INPUTS)

    ((question, asked),) = llm.asked
    assert isinstance(question, StatementSupport)
    assert asked.answer == "They go to the card. Shipping is free."  # the doubtful ones only
    assert asked.contexts == INPUTS.contexts and asked.question == INPUTS.question
    assert [(s.statement, s.verdict) for s in outcome.value.statements] == [
        ("Refunds take 30 days.", "supported"),
        ("Refunds go to the card.", "supported"),
        ("Shipping is free.", "not mentioned"),
    ]
    assert outcome.tiers == (("local", 1), ("llm", 2))
    assert outcome.notes == ("local note", "llm note")
    assert outcome.usage.judge_calls == 1
    assert outcome.agreement == 1.0


def test_the_merged_verdicts_keep_the_answers_order() -> None:
    local_value = verdicts(
        ("Refunds take 30 days.", "not mentioned"),
        ("They go to the card.", "supported"),
        ("Shipping is free.", "not mentioned"),
    )
    local = Local(JudgeOutcome(local_value, unsure=(0, 2)), (StatementSupport,))
    # Split alike: each verdict back at its own statement's place.
    llm = Llm(JudgeOutcome(verdicts(("Refunds: 30 days.", "supported"), ("Free.", "supported"))))
    outcome = ask(CascadeJudge(local, llm), StatementSupport(), INPUTS)
    assert [s.statement for s in outcome.value.statements] == [
        "Refunds: 30 days.",
        "They go to the card.",
        "Free.",
    ]
    # Split otherwise: all of them where the first unsure statement was.
    llm = Llm(JudgeOutcome(verdicts(("Refunds take 30 days, shipping is free.", "supported"))))
    outcome = ask(CascadeJudge(local, llm), StatementSupport(), INPUTS)
    assert [s.statement for s in outcome.value.statements] == [
        "Refunds take 30 days, shipping is free.",
        "They go to the card.",
    ]


def test_the_llm_failing_on_the_unsure_items_is_the_cascades_failure() -> None:
    local = Local(
        JudgeOutcome(verdicts(("a", "supported"), ("b", "not mentioned")), unsure=(1,)),
        (StatementSupport,),
    )
    llm = Llm(JudgeOutcome.not_judged("judge unreachable", stopped="HTTP 401"))
    outcome = ask(CascadeJudge(local, llm), StatementSupport(), INPUTS)
    assert not outcome.judged
    assert outcome.reason == "judge unreachable" and outcome.stopped == "HTTP 401"


def test_an_unsure_single_rating_is_asked_of_the_llm_whole() -> None:
    inputs = DirectRelevanceInput(question="q", answer="a")
    local = Local(
        JudgeOutcome(DirectRelevance(score=0.5, noncommittal=False, reason="?"), unsure=(0,)),
        (AnswerAddressesQuestion,),
    )
    llm_value = DirectRelevance(score=0.9, noncommittal=False, reason="direct")
    llm = Llm(JudgeOutcome(llm_value))
    outcome = ask(CascadeJudge(local, llm), AnswerAddressesQuestion(), inputs)
    assert llm.asked[0][1] is inputs
    assert outcome.value == llm_value
    assert outcome.tiers == (("llm", 1),)


def test_a_question_the_local_tier_cannot_answer_goes_whole_to_the_llm() -> None:
    inputs = CriterionInput(
        criterion="polite", question="q", answer="a", contexts=[], ground_truth=""
    )
    verdict = CriterionVerdict(meets="fully", violations=[], reason="polite")
    local = Local(answers=(StatementSupport,))
    llm = Llm(JudgeOutcome(verdict))
    outcome = ask(CascadeJudge(local, llm), CriterionCheck(), inputs)
    assert local.asked == []
    assert outcome.value == verdict
    assert outcome.tiers == (("llm", 1),)


def test_a_local_failure_is_returned_without_tiers() -> None:
    local = Local(JudgeOutcome.not_judged("no contexts"), (StatementSupport,))
    outcome = ask(
        CascadeJudge(local, Llm(JudgeOutcome.not_judged("x"))), StatementSupport(), INPUTS
    )
    assert outcome.reason == "no contexts" and outcome.tiers == ()
    assert tiered(JudgeOutcome.not_judged("x"), local=3).tiers == ()


def test_generated_questions_are_left_to_the_metrics_local_way() -> None:
    cascade = CascadeJudge(Local(answers=(StatementSupport,)), Llm(JudgeOutcome.not_judged("x")))
    assert cascade.supports(StatementSupport)
    assert cascade.supports(CriterionCheck)  # only an LLM can: the LLM tier answers it
    assert not cascade.supports(GeneratedQuestions)  # answer relevance rates directly instead


def test_description_identity_and_the_tiers_lifecycle() -> None:
    local, llm = Local(answers=()), Llm(JudgeOutcome.not_judged("x"))
    cascade = CascadeJudge(local, llm)
    assert cascade.describe() == "cascade (local (minilm), then llm (big))"
    assert cascade.parts() == [local, llm]
    identity = cascade.identity()
    assert identity == {
        "kind": "cascade",
        "first": local.fingerprint(),
        "then": llm.fingerprint(),
        "then_passes": "None",
    }
    assert asyncio.run(cascade.embed(["a"])) == [[1.0, 0.0]]
    asyncio.run(cascade.aclose())
    assert local.closed and llm.closed


def test_a_tier_without_a_stable_identity_leaves_the_cascade_without_one() -> None:
    class Unnamed(Llm):  # defined inside a function: no stable name
        pass

    cascade = CascadeJudge(Local(answers=()), Unnamed(JudgeOutcome.not_judged("x")))
    assert cascade.identity() is None
    assert cascade.fingerprint() is None


@pytest.mark.parametrize(
    ("outer", "then", "cache", "cache_dir"),
    [
        ({"cache": False}, {}, False, None),  # --rag-no-cache, judge.cache: false
        ({"cache": False}, {"cache": True}, False, None),
        ({"cache_dir": "shared"}, {}, True, "shared"),
        ({"cache_dir": "shared"}, {"cache_dir": "own"}, True, "own"),
    ],
)
def test_the_llm_tier_takes_the_runs_cache_settings(
    outer: dict[str, Any], then: dict[str, Any], cache: bool, cache_dir: str | None
) -> None:
    configured = JudgeSettings(kind="cascade", then={"kind": "openai", **then}, **outer)
    tier = cascade_tier(configured, env={})
    assert (tier.kind, tier.cache, tier.cache_dir) == ("openai", cache, cache_dir)
    default = cascade_tier(JudgeSettings(kind="cascade", **outer), {"ANTHROPIC_API_KEY": "k"})
    assert (default.kind, default.cache) == ("anthropic", outer.get("cache", True))
    assert default.cache_dir == outer.get("cache_dir")


def test_a_failure_the_local_tier_is_unsure_of_goes_to_the_llm_too() -> None:
    """A contradiction whose kind of evidence does not decide alone is unsure like any other
    verdict: the LLM tier decides it, and may find the claim supported."""
    local_value = verdicts(
        ("Refunds take 30 days.", "supported"), ("They go to the card.", "contradicted")
    )
    local = Local(JudgeOutcome(local_value, unsure=(1,)), (StatementSupport,))
    llm = Llm(JudgeOutcome(verdicts(("They go to the card.", "supported"))))
    outcome = ask(CascadeJudge(local, llm), StatementSupport(), INPUTS)
    ((_, asked),) = llm.asked
    assert asked.answer == "They go to the card."
    assert [s.verdict for s in outcome.value.statements] == ["supported", "supported"]
    assert outcome.tiers == (("local", 1), ("llm", 1))


def test_unsure_attributions_are_asked_of_the_llm_whole() -> None:
    local_value = Attributions.model_validate(
        {
            "sentences": [
                {"index": 0, "attributed": True, "reason": "r"},
                {"index": 1, "attributed": False, "reason": "r"},
            ]
        }
    )
    local = Local(JudgeOutcome(local_value, unsure=(1,)), (GroundTruthAttribution,))
    llm_value = Attributions.model_validate(
        {
            "sentences": [
                {"index": 0, "attributed": True, "reason": "llm"},
                {"index": 1, "attributed": True, "reason": "llm"},
            ]
        }
    )
    llm = Llm(JudgeOutcome(llm_value))
    inputs = AttributionInput(question="q", ground_truth_sentences=["a.", "b."], contexts=["c"])
    outcome = ask(CascadeJudge(local, llm), GroundTruthAttribution(), inputs)
    assert len(llm.asked) == 1
    assert outcome.value == llm_value
    assert outcome.tiers == (("llm", 2),)


class Together(Llm):
    """An LLM tier that says which questions it was asked together."""

    def __init__(self, outcome: JudgeOutcome[Any]) -> None:
        super().__init__(outcome)
        self.together: list[list[str]] = []

    async def ask_many(self, asked: Any) -> list[JudgeOutcome[Any]]:
        self.together.append([inputs.question for _, inputs in asked])
        return await super().ask_many(asked)


class Slow(Local):
    """A local tier unsure of its one rating, that takes a while over some questions."""

    async def ask(self, question: Any, inputs: Any) -> JudgeOutcome[Any]:
        await asyncio.sleep(0.01 * len(inputs.answer))
        return await super().ask(question, inputs)


def test_a_cases_questions_for_the_llm_tier_are_asked_together() -> None:
    """The questions of one case (its question text) wait for each other, the slowest
    included, and reach the LLM tier in one call; another case's go in a call of their own."""
    rating = DirectRelevance(score=0.5, noncommittal=False, reason="?")
    local = Slow(JudgeOutcome(rating, unsure=(0,)), (AnswerAddressesQuestion,))
    llm = Together(JudgeOutcome(DirectRelevance(score=1.0, noncommittal=False, reason="llm")))
    cascade = CascadeJudge(local, llm)
    asked = [("refunds?", "a"), ("refunds?", "aaaaa"), ("refunds?", "aa"), ("shipping?", "a")]

    async def every() -> list[JudgeOutcome[Any]]:
        return list(
            await asyncio.gather(
                *(
                    cascade.ask(
                        AnswerAddressesQuestion(), DirectRelevanceInput(question=q, answer=a)
                    )
                    for q, a in asked
                )
            )
        )

    outcomes = asyncio.run(every())
    assert [o.value.score for o in outcomes] == [1.0] * 4
    assert sorted(llm.together) == [["refunds?"] * 3, ["shipping?"]]


def test_a_question_asked_again_with_more_votes_goes_alone() -> None:
    from rag_eval_pytest.judges.base import VOTES

    rating = DirectRelevance(score=0.5, noncommittal=False, reason="?")
    local = Local(JudgeOutcome(rating, unsure=(0,)), (AnswerAddressesQuestion,))
    llm = Together(JudgeOutcome(DirectRelevance(score=1.0, noncommittal=False, reason="llm")))
    inputs = DirectRelevanceInput(question="q", answer="a")

    async def revote() -> JudgeOutcome[Any]:
        VOTES.set(3)
        return await CascadeJudge(local, llm).ask(AnswerAddressesQuestion(), inputs)

    assert asyncio.run(revote()).judged
    assert llm.together == [] and len(llm.asked) == 1


def _rating_cascade() -> tuple[CascadeJudge, Together]:
    """A cascade whose local tier is unsure of every rating, and the LLM tier it asks."""
    rating = DirectRelevance(score=0.5, noncommittal=False, reason="?")
    local = Local(JudgeOutcome(rating, unsure=(0,)), (AnswerAddressesQuestion,))
    llm = Together(
        JudgeOutcome(
            DirectRelevance(score=1.0, noncommittal=False, reason="llm"),
            usage=Usage(judge_calls=1, input_tokens=100),
        )
    )
    return CascadeJudge(local, llm), llm


def _rate(cascade: CascadeJudge, answer: str) -> Any:
    inputs = DirectRelevanceInput(question="refunds?", answer=answer)
    return cascade.ask(AnswerAddressesQuestion(), inputs)


async def _guessed(cascade: CascadeJudge, ride: asyncio.Event) -> JudgeOutcome[Any]:
    from rag_eval_pytest.judges.gathering import GUESSED

    GUESSED.set(ride)  # this task's context only
    return await _rate(cascade, "guessed")


def test_a_guess_waits_for_a_question_of_its_case_that_comes_later_and_rides_with_it() -> None:
    """A question asked on a guess that reaches the LLM tier first (its metric was quicker)
    waits, while the evaluation it was started beside runs, for the case's asked question:
    one request, counted on the asked question."""
    cascade, llm = _rating_cascade()

    async def run() -> list[JudgeOutcome[Any]]:
        ride = asyncio.Event()
        guess = asyncio.ensure_future(_guessed(cascade, ride))
        await asyncio.sleep(0.05)  # the guess waits alone, long past the settling turns
        asked = await _rate(cascade, "asked")
        ride.set()
        return [await guess, asked]

    guess, asked = asyncio.run(run())
    assert llm.together == [["refunds?", "refunds?"]]
    assert (guess.value.score, asked.value.score) == (1.0, 1.0)
    assert guess.usage == Usage()
    assert (asked.usage.judge_calls, asked.usage.input_tokens) == (2, 200)


def test_a_guess_left_alone_when_its_evaluation_ends_is_not_asked() -> None:
    from rag_eval_pytest.judges.gathering import NotAsked

    cascade, llm = _rating_cascade()

    async def run() -> JudgeOutcome[Any]:
        ride = asyncio.Event()
        guess = asyncio.ensure_future(_guessed(cascade, ride))
        await asyncio.sleep(0.05)
        ride.set()
        return await guess

    with pytest.raises(NotAsked):
        asyncio.run(run())
    assert llm.together == [] and llm.asked == []
