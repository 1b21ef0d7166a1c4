"""The local judge's unsure bands for relevance: with a model whose every kind of evidence
decides, an answer's rating and each context sentence's verdict are decided outside the band
and a best guess inside it; the shipped models trust only the kinds of relevance evidence
measured right often enough, so every other verdict is a best guess. The metrics report the
unsure items through the same channel as faithfulness's unsure claims, so
``judge.local.unsure`` and the cascade judge apply to them. No model: a stand-in embedder
gives each text a vector at a chosen similarity to the question."""

from __future__ import annotations

import asyncio
import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.judges.base import Judge, JudgeOutcome
from rag_eval_pytest.judges.cascade import CascadeJudge
from rag_eval_pytest.judges.local import LocalJudge, trust
from rag_eval_pytest.judges.local.relevance import (
    RELEVANCE,
    SENTENCE_RELEVANCE,
    LogisticModel,
    direct_answer,
)
from rag_eval_pytest.judges.questions import (
    ContextSentenceRelevance,
    RelevanceInput,
    SentenceRelevances,
)
from rag_eval_pytest.metrics.base import MetricResult, Sample, Services
from rag_eval_pytest.metrics.registry import default_threshold, get_metric

QUESTION = "When does the store open?"


class Embedder:
    """Vectors at a set cosine similarity to the question's (unit vectors in the plane)."""

    name = "stand-in"

    def __init__(self, similarity: dict[str, float]) -> None:
        self.similarity = similarity

    async def vectors(self, texts: list[str]) -> list[np.ndarray]:
        found = []
        for text in texts:
            cosine = 1.0 if text == QUESTION else self.similarity[text]
            found.append(np.array([cosine, math.sqrt(1 - cosine**2)], dtype=np.float32))
        return found

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in await self.vectors(texts)]


def judge(similarity: dict[str, float], **models: LogisticModel) -> LocalJudge:
    return LocalJudge(embedder=Embedder(similarity), **models)  # type: ignore[arg-type]


def sample(answer: str = "", contexts: list[str] | None = None) -> Sample:
    return Sample(
        case_key="c1",
        question=QUESTION,
        ground_truth="",
        answer=answer,
        contexts=[Context(text=c) for c in contexts or []],
        sources=[],
        expected_contexts=None,
    )


def measured(metric: str, rated_by: Judge, case: Sample) -> Any:
    return asyncio.run(measure(get_metric(metric), case, Services(judge=rated_by)))


# The answers: "9 am" is what "when" asks for, and they hold the question's words, so the
# similarity decides (probability 0.82, 0.58 and 0.13).
RELEVANT = "The store opens at 9 am."
# On the question's topic without the time it asks for: no direct answer, so the model's
# probability (here in its band) rates it.
BORDERLINE = "The store opens early for members."
UNRELATED = "Bananas are yellow."
# A model whose every kind of evidence decides: the band alone leaves a rating unsure.
DECIDING = replace(RELEVANCE, trusted=None)
RATINGS = judge({RELEVANT: 0.9, BORDERLINE: 0.7, UNRELATED: 0.1}, answer_model=DECIDING)


def test_a_short_answer_with_what_is_asked_is_relevant_however_far_in_meaning() -> None:
    far = judge({"At 9 am.": 0.05, "The store opens at 9 am on weekdays.": 0.2})
    for answer in ("At 9 am.", "The store opens at 9 am on weekdays."):
        result = measured("answer_relevance", far, sample(answer))
        assert result.score >= default_threshold("answer_relevance"), answer
        assert "gives what the question asks for" in result.reason
    # The kind of thing asked for alone, off the question's topic, is no direct answer.
    # An answer that opens with the value leaves the question's subject out, as a fragment.
    opens = "At 9 am every day except Sunday."
    assert direct_answer(QUESTION, opens)
    founded = "Our founder was born in 1970."
    off = measured("answer_relevance", judge({founded: 0.2}), sample(founded))
    assert off.score < default_threshold("answer_relevance")


def test_a_name_on_the_topic_is_no_direct_answer_to_who() -> None:
    # What answers "who" is read from any name ("Customer", "AES-256"): too loose to decide.
    question = "Who do I tell about a data breach, and how fast?"
    answer = "Customer data is encrypted at rest with AES-256."
    assert not direct_answer(question, answer)
    assert direct_answer("How long do I have to report a data breach?", "Within 24 hours.")


def test_the_bands_are_around_the_models_cuts() -> None:
    for model in (RELEVANCE, BANDED):
        assert model.unsure is not None
        assert model.unsure[0] < model.support < model.unsure[1]
    assert RELEVANCE.shown(RELEVANCE.support) == default_threshold("answer_relevance")


def test_a_clearly_relevant_answer_is_decided_relevant() -> None:
    result = measured("answer_relevance", RATINGS, sample(RELEVANT))
    assert result.score > default_threshold("answer_relevance")
    assert (result.unsure, result.bounds) == (0, None)
    assert result.evidence[0].verdict is None


def test_a_clearly_irrelevant_answer_is_decided_irrelevant() -> None:
    result = measured("answer_relevance", RATINGS, sample(UNRELATED))
    assert result.score < 0.3
    assert (result.unsure, result.bounds) == (0, None)


def test_a_borderline_answer_is_unsure_between_the_scores_of_the_bands_edges() -> None:
    result = measured("answer_relevance", RATINGS, sample(BORDERLINE))
    low, high = (RELEVANCE.shown(edge) for edge in RELEVANCE.unsure or ())
    assert result.unsure == 1
    assert result.bounds == (low, high)
    assert low < default_threshold("answer_relevance") <= high
    assert low <= result.score < high  # the best guess is still given
    assert result.evidence[0].verdict == "unsure"
    assert result.reason.startswith(f"unsure (score {result.score:.2f} is between {low:.2f}")


def test_a_declining_answer_is_decided_by_a_model_whose_kinds_all_decide() -> None:
    result = measured("answer_relevance", judge({}, answer_model=DECIDING), sample("I don't know."))
    assert (result.score, result.unsure) == (0.0, 0)
    # The shipped model rates it 0 too, unsure: declines are too few to be measured.
    shipped = measured("answer_relevance", judge({}), sample("I don't know."))
    assert (shipped.score, shipped.unsure, shipped.bounds) == (0.0, 1, (0.0, 1.0))


@pytest.mark.parametrize(
    ("threshold", "policy", "status", "cause"),
    [
        (None, "not_judged", "not_judged", "unsure"),  # the default threshold, 0.7
        (None, "escalate", "not_judged", "unsure"),  # no LLM judge to ask
        (None, "pass", "passed", None),
        (None, "fail", "failed", None),
        (0.3, "not_judged", "passed", None),  # below the band: passes either way
        (0.95, "not_judged", "failed", None),  # above it: fails either way
    ],
)
def test_the_unsure_policy_decides_a_verdict_that_depends_on_an_unsure_rating(
    threshold: float | None, policy: str, status: str, cause: str | None
) -> None:
    measurement = measured("answer_relevance", RATINGS, sample(BORDERLINE))
    result = MetricResult.from_measurement(
        "c1",
        "answer_relevance",
        measurement,
        default_threshold("answer_relevance") if threshold is None else threshold,
        policy,  # type: ignore[arg-type]
    )
    assert (result.status, result.cause) == (status, cause)
    low, high = measurement.bounds
    if policy == "pass":
        assert result.score == high
    elif policy == "fail":
        assert result.score == low
    elif status == "not_judged":
        assert result.undecided
        assert result.details["decided_score"] == measurement.score
    else:
        assert result.score == measurement.score


# Context sentences that share no word with the question: the similarity decides
# (probability 0.62, 0.47 and 0.23).
NEEDED = "Doors are unlocked at nine each morning."
MAYBE = "Staff arrive early to prepare."
UNNEEDED = "Bananas are yellow."
# The band of a sentence's probability the fit prints (0.35 to 0.49): not shipped, as no kind
# of sentence evidence decides alone, but a calibration may set one.
BANDED = replace(SENTENCE_RELEVANCE, unsure=(0.35, 0.49), trusted=None)
SENTENCES = judge({NEEDED: 0.95, MAYBE: 0.65, UNNEEDED: 0.1}, sentence_model=BANDED)


def test_each_context_sentence_is_decided_or_unsure() -> None:
    result = measured("context_relevance", SENTENCES, sample(contexts=[f"{NEEDED} {MAYBE}"]))
    verdicts = [(e.text, e.verdict) for e in result.evidence]
    assert verdicts == [(NEEDED, "relevant"), (MAYBE, "unsure")]
    # Scored on the decided sentence; 1/2 if the unsure one is not needed, 2/2 if it is.
    assert (result.score, result.unsure, result.bounds) == (1.0, 1, (0.5, 1.0))
    assert result.reason == (
        "1 of 1 context sentences needed for the question (1 of 1 context holds one); "
        f'1 sentence unsure: "{MAYBE}"'
    )
    # Passing needs one needed sentence in ten: it passes whatever the unsure one is.
    decided = MetricResult.from_measurement("c1", "context_relevance", result, 0.1)
    assert decided.status == "passed"


def test_a_context_whose_verdict_depends_on_an_unsure_sentence_follows_the_policy() -> None:
    result = measured("context_relevance", SENTENCES, sample(contexts=[f"{UNNEEDED} {MAYBE}"]))
    assert [e.verdict for e in result.evidence] == ["not relevant", "unsure"]
    assert (result.score, result.bounds) == (0.0, (0.0, 0.5))
    unsure = MetricResult.from_measurement("c1", "context_relevance", result, 0.1)
    assert (unsure.status, unsure.cause) == ("not_judged", "unsure")
    counted = MetricResult.from_measurement("c1", "context_relevance", result, 0.1, "pass")
    assert (counted.status, counted.score) == ("passed", 0.5)


def test_without_a_band_and_with_every_kind_trusted_every_sentence_is_decided() -> None:
    assert SENTENCE_RELEVANCE.unsure is None
    every = replace(SENTENCE_RELEVANCE, trusted=None)
    forced = judge({NEEDED: 0.95, MAYBE: 0.65, UNNEEDED: 0.1}, sentence_model=every)
    result = measured("context_relevance", forced, sample(contexts=[f"{UNNEEDED} {MAYBE}"]))
    assert [e.verdict for e in result.evidence] == ["not relevant", "relevant"]
    assert (result.score, result.unsure, result.bounds) == (0.5, 0, None)


def test_the_shipped_models_decide_only_the_measured_kinds_of_relevance() -> None:
    """One kind of relevance evidence is right on 95 % of the held-out rows it decides: an
    answer close to its question that holds its words and what it asks for. Every other
    rating (one far below the cut too), and every context sentence, is a best guess."""
    assert RELEVANCE.trusted == {trust.RESTATES_QUESTION}
    assert SENTENCE_RELEVANCE.trusted == frozenset()
    shipped = judge({RELEVANT: 0.9, NEEDED: 0.95, UNNEEDED: 0.1, UNRELATED: 0.1})
    rated = measured("answer_relevance", shipped, sample(RELEVANT))
    assert rated.score > default_threshold("answer_relevance")
    assert (rated.unsure, rated.bounds) == (0, None)
    unrelated = measured("answer_relevance", shipped, sample(UNRELATED))
    assert unrelated.score < 0.3  # its best guess: not relevant
    assert (unrelated.unsure, unrelated.bounds) == (1, (0.0, 1.0))
    assert unrelated.reason.startswith("unsure (not relevant: score far below the cut: ")
    # A short direct answer far from the question in meaning is relevant, but unsure.
    direct = measured("answer_relevance", judge({"At 9 am.": 0.05}), sample("At 9 am."))
    assert direct.score >= default_threshold("answer_relevance")
    assert (direct.unsure, direct.bounds) == (1, (0.0, 1.0))
    assert direct.reason.startswith("unsure (relevant: a direct answer: a kind of evidence")
    # A score in the band is no nearer to a decision: beyond its edges nothing decides either.
    borderline = measured("answer_relevance", judge({BORDERLINE: 0.7}), sample(BORDERLINE))
    assert borderline.reason.startswith("unsure (score ")
    assert borderline.bounds == (0.0, 1.0)
    needed = measured("context_relevance", shipped, sample(contexts=[f"{NEEDED} {UNNEEDED}"]))
    assert [e.verdict for e in needed.evidence] == ["unsure", "unsure"]
    assert needed.bounds == (0.0, 1.0)


def test_the_band_holds_a_relevance_threshold_set_outside_it() -> None:
    strict = LocalJudge(
        embedder=Embedder({}),  # type: ignore[arg-type]
        relevance_threshold=0.9,
        sentence_model=BANDED,
    )
    assert strict.sentence_model.unsure == (0.35, 0.9)
    assert strict.sentence_model.support == strict.relevance_threshold == 0.9


class Sentences(Judge):
    """An LLM judge stand-in: every sentence it is asked about is needed."""

    kind = "stand-in"

    def __init__(self) -> None:
        self.asked: list[RelevanceInput] = []

    async def ask(self, question: Any, inputs: Any) -> JudgeOutcome[Any]:
        assert isinstance(question, ContextSentenceRelevance)
        self.asked.append(inputs)
        verdicts = [{"index": i, "relevant": True} for i in range(len(inputs.context_sentences))]
        return JudgeOutcome(SentenceRelevances.model_validate({"sentences": verdicts}))


def test_the_cascade_asks_the_llm_judge_about_the_unsure_sentences_only() -> None:
    llm = Sentences()
    cascade = CascadeJudge(SENTENCES, llm)
    context = f"{UNNEEDED} {MAYBE} {NEEDED}"
    result = measured("context_relevance", cascade, sample(contexts=[context]))
    assert [a.context_sentences for a in llm.asked] == [[MAYBE]]
    verdicts = [(e.text, e.verdict) for e in result.evidence]
    assert verdicts == [(UNNEEDED, "not relevant"), (MAYBE, "relevant"), (NEEDED, "relevant")]
    assert (result.score, result.unsure) == (pytest.approx(2 / 3), 0)
    assert result.details["tiers"] == {"local": 2, "llm": 1}
