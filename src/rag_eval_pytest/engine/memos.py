"""Each metric measured once per case, parameter set and judge identity, and each judge
question asked once per case; the memos of a case let go after its last test."""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

from ..judges.base import SETTLED, VOTES
from ..judges.gathering import NotAsked
from .session import make_sample, measure

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..data.dataset import LoadedCase
    from ..data.response import Message, RAGResponse
    from ..judges.base import Judge, Question
    from ..metrics.base import Embed, Measurement, Metric, Sample, Services
    from .judging import JudgeRegistry
    from .session import EvalSession

MemoKey = tuple[str, Any, str]
"""A measurement's key: the case, the metric with its parameters, what else it depends on."""


class MetricMemos:
    """The measurements of one process's cases, shared by every test and by the work done
    ahead of them, until :meth:`release`."""

    def __init__(self, session: EvalSession, judges: JudgeRegistry) -> None:
        self.session = session
        self.judges = judges
        self._measurements: dict[MemoKey, asyncio.Future[Measurement]] = {}
        # The questions asked of judges, per case (a repeat within the case is answered from
        # memory; across cases the judge's disk cache answers it).
        self._questions: dict[str, dict[tuple[str, str, str], asyncio.Future[Any]]] = {}
        self._keys: dict[str, list[MemoKey]] = {}

    def services(self, case: str, judge: Judge | None, metrics: list[Metric]) -> Services:
        """What ``metrics`` of ``case`` may use: the judge, and embeddings only when one of
        them embeds (the embedding model is loaded for nothing else)."""
        from ..metrics.base import Services

        embed: Embed | None = None
        if any("embeddings" in m.requires | m.optional for m in metrics):
            embed = self.judges.embedder(judge)
        return Services(
            judge=judge,
            judge_id=self.judges.identity(judge),
            embed=embed,
            memo=self._questions.setdefault(case, {}),
            scrub=self.session.redactor.data,
        )

    def task(
        self,
        loaded: LoadedCase,
        response: RAGResponse,
        metric: Metric,
        services: Services,
        votes: int | None = None,
        history: Sequence[Message] = (),
        threshold: float | None = None,
    ) -> asyncio.Future[Measurement]:
        """The (memoised) measurement of a metric on a case (a conversation's turn, with its
        ``history``), with ``votes`` per question when a verdict is asked again
        (``judge.passes: auto``). Call on the loop."""
        key = self._key(loaded, metric, services, votes, threshold)
        task = self._measurements.get(key)
        if task is None:
            sample = make_sample(loaded, response, history)
            task = asyncio.ensure_future(
                measure(metric, sample, services)
                if votes is None
                else measured_with_votes(metric, sample, services, votes, threshold)
            )
            task.add_done_callback(self._count_usage)
            task.add_done_callback(functools.partial(self._forget_unasked, key))
            self._measurements[key] = task
            self._keys.setdefault(loaded.owner, []).append(key)
        return task

    async def read(
        self,
        loaded: LoadedCase,
        response: RAGResponse,
        metric: Metric,
        services: Services,
        history: Sequence[Message] = (),
    ) -> Measurement:
        """The measurement of a metric on a case, measured again where it was started on a
        guess and its questions were not asked (:class:`~..judges.gathering.NotAsked`)."""
        task = self.task(loaded, response, metric, services, history=history)
        try:
            return await asyncio.shield(task)
        except NotAsked:
            self._forget_unasked(self._key(loaded, metric, services), task)
            task = self.task(loaded, response, metric, services, history=history)
            return await asyncio.shield(task)

    def _key(
        self,
        loaded: LoadedCase,
        metric: Metric,
        services: Services,
        votes: int | None = None,
        threshold: float | None = None,
    ) -> MemoKey:
        depends = self._depends_on(metric, services.judge)
        if votes:  # the votes stop where no further one can change the verdict at threshold
            depends += f" votes={votes} at={threshold}"
        return (loaded.key, metric.cache_key(), depends)

    def _forget_unasked(self, key: MemoKey, task: asyncio.Future[Measurement]) -> None:
        """Let go of a measurement started on a guess whose questions were not asked: the
        next read measures it again."""
        if self._measurements.get(key) is task and _not_asked(task):
            del self._measurements[key]

    async def measure_all(
        self,
        loaded: LoadedCase,
        response: RAGResponse,
        metrics: list[Metric],
        thresholds: list[float],
        services: Services,
        history: Sequence[Message] = (),
    ) -> list[Measurement]:
        """``metrics`` measured concurrently; under ``judge.passes: auto`` a judged verdict
        near its threshold is asked again with more votes, where they can change it (the
        others keep their one vote)."""
        measured = list(
            await asyncio.gather(
                *(self.read(loaded, response, m, services, history) for m in metrics)
            )
        )
        votes = more_votes(services.judge)
        if votes is None:
            return measured
        again = _near_threshold(metrics, measured, thresholds, votes[1])
        revoted = await asyncio.gather(
            *(
                asyncio.shield(
                    self.task(
                        loaded, response, metrics[i], services, votes[0], history, thresholds[i]
                    )
                )
                for i in again
            )
        )
        return _with_revotes(measured, again, revoted)

    def release(self, key: str) -> None:
        """Let go of a case's measurements and judge answers (a conversation's: its turns'
        too, kept under its key). Call on the loop."""
        for memo_key in self._keys.pop(key, ()):
            self._measurements.pop(memo_key, None)
        self._questions.pop(key, None)

    def _depends_on(self, metric: Metric, judge: Judge | None) -> str:
        """What a measurement depends on besides the case and the metric: the judge of a
        judged metric, the embedding model of an embedding metric (the judge's own or the
        offline one), nothing for the others. A test module with its own rag_judge gets its
        own results; retrieval metrics are shared by all."""
        if "judge" in metric.requires:
            return self.judges.identity(judge)
        if "embeddings" in metric.requires:
            return self.judges.identity(judge) if self.judges.embeds_itself(judge) else "model"
        return ""

    def _count_usage(self, task: asyncio.Future[Measurement]) -> None:
        if not task.cancelled() and task.exception() is None:
            self.session.progress.add_usage(task.result().usage)


def _not_asked(task: asyncio.Future[Measurement]) -> bool:
    return not task.cancelled() and isinstance(task.exception(), NotAsked)


def _near_threshold(
    metrics: list[Metric], measured: list[Measurement], thresholds: list[float], margin: float
) -> list[int]:
    """The judged measurements (by position) whose score is within ``margin`` of its
    threshold: more votes may change their verdict."""
    return [
        i
        for i, (m, measurement, threshold) in enumerate(
            zip(metrics, measured, thresholds, strict=True)
        )
        if "judge" in m.requires
        and measurement.score is not None
        and abs(measurement.score - threshold) <= margin
    ]


def _with_revotes(
    measured: list[Measurement], again: list[int], revoted: list[Measurement]
) -> list[Measurement]:
    """The measurements with those asked ``again`` replaced by their revote; the first
    vote's cost stays counted beside the votes added to it."""
    for i, measurement in zip(again, revoted, strict=True):
        usage = measured[i].usage + measurement.usage
        measured[i] = measurement.model_copy(update={"usage": usage})
    return measured


def more_votes(judge: Judge | None) -> tuple[int, float] | None:
    """``(votes, margin)`` when the judge asks a verdict near its threshold again with more
    votes (an LLM judge under ``judge.passes: auto``), else ``None``."""
    most = getattr(judge, "max_passes", None)
    if most is None or most <= (getattr(judge, "passes", None) or 1):
        return None
    return int(most), float(getattr(judge, "vote_margin", 0.0))


class VerdictCheck:
    """Whether every possible answer to a question gives ``metric`` the same verdict at
    ``threshold`` (``SETTLED``): a vote that could not change it is not asked."""

    def __init__(self, metric: Metric, threshold: float | None) -> None:
        self.metric = metric
        self.threshold = threshold
        self.key = f"settled {metric.result_name} at {threshold}"

    def __call__(self, question: Question[Any, Any], answers: list[Any]) -> bool:
        if self.threshold is None:
            return False
        scores = [self.metric.score_of(question, answer) for answer in answers]
        return _one_verdict(scores, self.threshold)


def _one_verdict(scores: list[float | None], threshold: float) -> bool:
    """Whether every score gives the same verdict at ``threshold`` (not when one is
    missing)."""
    if not scores or any(score is None for score in scores):
        return False
    return len({score >= threshold for score in scores if score is not None}) == 1


async def measured_with_votes(
    metric: Metric, sample: Sample, services: Services, votes: int, threshold: float | None
) -> Measurement:
    """The metric measured with ``votes`` per judge question (its first vote kept, the later
    ones only while they can change its verdict at ``threshold``), and the votes recorded
    in its details."""
    token = VOTES.set(votes)
    check = SETTLED.set(VerdictCheck(metric, threshold))
    try:
        measured = await measure(metric, sample, services)
    finally:
        SETTLED.reset(check)
        VOTES.reset(token)
    return measured.model_copy(update={"details": {**measured.details, "votes": votes}})
