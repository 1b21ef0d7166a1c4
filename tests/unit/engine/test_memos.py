"""Each measurement once per case, metric parameters and judge identity; retrieval metrics
shared whatever the judge; embeddings given only to metrics that embed; a case's memos let
go on release; and, under ``judge.passes: auto``, a verdict near its threshold asked again
with more votes, its first vote's cost kept."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rag_eval_pytest.data.dataset import Case, LoadedCase
from rag_eval_pytest.data.response import RAGResponse
from rag_eval_pytest.engine.judging import JudgeRegistry
from rag_eval_pytest.engine.memos import MetricMemos, more_votes
from rag_eval_pytest.judges.base import VOTES, Judge, JudgeOutcome, Usage
from rag_eval_pytest.judges.questions import StatementVerdict, StatementVerdicts
from rag_eval_pytest.metrics.answer_similarity import AnswerSimilarity
from rag_eval_pytest.metrics.faithfulness import Faithfulness
from rag_eval_pytest.metrics.retrieval import RetrievalRecall
from tests.unit.engine.fakes import Session

LOADED = LoadedCase(
    key="c1",
    index=0,
    case=Case(question="q?", ground_truth="g", expected_contexts=["a.md"]),
    dataset=Path("d.json"),
)
RESPONSE = RAGResponse(answer="One. Two.", contexts=[{"text": "ctx", "source": "a.md"}])


class Counting(Judge):
    """Half the statements supported with one vote, all of them with more votes."""

    kind = "counting"

    def __init__(self, model: str = "m", **votes: Any) -> None:
        self.model = model
        self.asked: list[int | None] = []
        for name, value in votes.items():
            setattr(self, name, value)

    async def ask(self, question: Any, inputs: Any) -> JudgeOutcome[Any]:
        votes = VOTES.get()
        self.asked.append(votes)
        second = "supported" if votes else "not mentioned"
        value = StatementVerdicts(
            statements=[
                StatementVerdict(statement="One.", verdict="supported", reason="r"),
                StatementVerdict(statement="Two.", verdict=second, reason="r"),  # type: ignore[arg-type]
            ]
        )
        return JudgeOutcome(value, usage=Usage(judge_calls=votes or 1))

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


def memos() -> tuple[MetricMemos, Session]:
    session = Session(cache=False)
    return MetricMemos(session, JudgeRegistry(session)), session  # type: ignore[arg-type]


def test_a_measurement_is_made_once_per_case_parameters_and_judge() -> None:
    async def scenario() -> None:
        memo, session = memos()
        judge = Counting()
        services = memo.services("c1", judge, [Faithfulness()])
        first = memo.task(LOADED, RESPONSE, Faithfulness(), services)
        again = memo.task(LOADED, RESPONSE, Faithfulness(), services)
        assert again is first
        assert (await first).score == 0.5
        assert judge.asked == [None]
        assert session.progress.usage.judge_calls == 1  # counted once
        other = memo.task(LOADED, RESPONSE, Faithfulness(mode="deepeval"), services)
        assert other is not first
        assert (await other).score == 1.0  # "not mentioned" is faithful in deepeval mode
        another_judge = Counting(model="other")
        theirs = memo.task(
            LOADED, RESPONSE, Faithfulness(), memo.services("c1", another_judge, [Faithfulness()])
        )
        assert theirs is not first
        await theirs
        assert another_judge.asked == [None]

    asyncio.run(scenario())


def test_retrieval_metrics_are_shared_whatever_the_judge() -> None:
    async def scenario() -> None:
        memo, _ = memos()
        mine = memo.task(LOADED, RESPONSE, RetrievalRecall(), memo.services("c1", Counting(), []))
        theirs = memo.task(
            LOADED, RESPONSE, RetrievalRecall(), memo.services("c1", Counting(model="x"), [])
        )
        assert theirs is mine
        assert (await mine).score == 1.0

    asyncio.run(scenario())


def test_embeddings_are_given_only_to_metrics_that_embed() -> None:
    memo, _ = memos()
    judge = Counting()
    assert memo.services("c1", judge, [Faithfulness()]).embed is None
    services = memo.services("c1", judge, [Faithfulness(), AnswerSimilarity()])
    assert services.embed is not None
    assert services.judge is judge
    assert services.judge_id == memo.judges.identity(judge)
    # The case's judge answers are shared by its services.
    assert memo.services("c1", judge, []).memo is services.memo
    assert memo.services("c2", judge, []).memo is not services.memo


def test_a_released_case_is_measured_afresh() -> None:
    async def scenario() -> None:
        memo, _ = memos()
        judge = Counting()
        services = memo.services("c1", judge, [Faithfulness()])
        first = memo.task(LOADED, RESPONSE, Faithfulness(), services)
        await first
        memo.release("c1")
        memo.release("never-seen")  # nothing to let go: no error
        fresh = memo.services("c1", judge, [Faithfulness()])
        second = memo.task(LOADED, RESPONSE, Faithfulness(), fresh)
        assert second is not first
        await second
        assert judge.asked == [None, None]

    asyncio.run(scenario())


def test_more_votes_only_under_passes_auto() -> None:
    assert more_votes(None) is None
    assert more_votes(Counting()) is None
    assert more_votes(Counting(passes=3, max_passes=3)) is None
    assert more_votes(Counting(passes=1, max_passes=5, vote_margin=0.1)) == (5, 0.1)


def test_a_verdict_near_its_threshold_is_asked_again_with_more_votes() -> None:
    async def scenario() -> None:
        memo, _ = memos()
        judge = Counting(passes=1, max_passes=3, vote_margin=0.2)
        metrics = [Faithfulness(), RetrievalRecall()]
        services = memo.services("c1", judge, metrics)
        # 0.5 is within 0.2 of 0.6: asked again with 3 votes; recall is not judged.
        near = await memo.measure_all(LOADED, RESPONSE, metrics, [0.6, 0.6], services)
        assert judge.asked == [None, 3]
        assert near[0].score == 1.0
        assert near[0].details["votes"] == 3
        assert near[0].usage.judge_calls == 1 + 3  # the first vote's cost stays counted
        assert near[1].score == 1.0 and "votes" not in near[1].details
        # Far from its threshold, one vote decides.
        far = await memo.measure_all(LOADED, RESPONSE, [Faithfulness()], [0.95], services)
        assert judge.asked == [None, 3]
        assert far[0].score == 0.5

    asyncio.run(scenario())
