"""A conversation's metrics: each turn measured with the turns before it as its history, all
turns at once, and the conversation's result of each metric made from its turns' (the
minimum, or the mean: ``metrics/conversation.py``). A case that is no conversation is
measured the same way, as one turn without history."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, TypeVar

from ..judges.gathering import GUESSED
from ..metrics.base import MetricResult
from ..metrics.conversation import conversation_result
from ..metrics.registry import get_metric

if TYPE_CHECKING:
    from collections.abc import Awaitable, Sequence

    from ..judges.base import Judge
    from ..metrics.base import Measurement, Metric
    from ..metrics.conversation import Aggregate
    from .memos import MetricMemos
    from .queries import Turn
    from .requests import MetricRequest, PlannedMetric
    from .session import EvalSession

T = TypeVar("T")


def measure_turns(
    session: EvalSession,
    memos: MetricMemos,
    turns: list[Turn],
    requests: list[MetricRequest],
    judge: Judge | None,
    guessed: Sequence[PlannedMetric] = (),
) -> list[list[MetricResult]]:
    """Each request measured (through the memos) on each turn and judged against its
    threshold, the metric's default when the test gave none: per turn, in request order;
    the ``guessed`` ones (:meth:`~.ahead.Scheduler.guesses`) start with them, unread."""
    metrics = [get_metric(metric, **params) for metric, _, params in requests]
    thresholds = _thresholds(session, metrics, requests)

    async def measure_all() -> list[list[Measurement]]:
        measured = asyncio.gather(
            *(
                memos.measure_all(
                    loaded,
                    response,
                    metrics,
                    thresholds,
                    memos.services(loaded.owner, judge, metrics),
                    history,
                )
                for loaded, response, history in turns
            )
        )
        return list(
            await _beside_guesses(memos, turns, _guessed(guessed, metrics), judge, measured)
        )

    unsure = session.settings.judge.local.unsure
    return [
        [
            MetricResult.from_measurement(loaded.key, m.result_name, measured, threshold, unsure)
            for m, threshold, measured in zip(metrics, thresholds, measurements, strict=True)
        ]
        for (loaded, _, _), measurements in zip(turns, session.loop.run(measure_all()), strict=True)
    ]


def conversation_results(
    key: str, by_turn: list[list[MetricResult]], aggregates: list[Aggregate]
) -> list[MetricResult]:
    """The conversation ``key``'s result of each request, from its turns' results."""
    return [
        conversation_result(key, [measured[i] for measured in by_turn], first.threshold, aggregate)
        for i, (first, aggregate) in enumerate(zip(by_turn[0], aggregates, strict=True))
    ]


def _thresholds(
    session: EvalSession, metrics: list[Metric], requests: list[MetricRequest]
) -> list[float]:
    """Each request's threshold, the metric's default where the test gave none."""
    return [
        session.default_threshold(metric) if threshold is None else threshold
        for metric, (_, threshold, _) in zip(metrics, requests, strict=True)
    ]


def _guessed(guessed: Sequence[PlannedMetric], measured: list[Metric]) -> list[Metric]:
    """The ``guessed`` metrics that are not among those ``measured``."""
    keys = {metric.cache_key() for metric in measured}
    metrics = [get_metric(name, **params) for name, params in guessed]
    return [metric for metric in metrics if metric.cache_key() not in keys]


async def _beside_guesses(
    memos: MetricMemos,
    turns: list[Turn],
    metrics: list[Metric],
    judge: Judge | None,
    measured: Awaitable[T],
) -> T:
    """``measured``, with ``metrics`` started on each turn on a guess beside it, for later
    requests to find in the memos: their tasks keep :data:`GUESSED`, the end of ``measured``,
    until which their questions wait for its own."""
    ride = asyncio.Event()
    guessing = GUESSED.set(ride)
    try:
        for loaded, response, history in turns:
            services = memos.services(loaded.owner, judge, metrics)
            for metric in metrics:
                memos.task(loaded, response, metric, services, history=history)
    finally:
        GUESSED.reset(guessing)
    try:
        return await measured
    finally:
        ride.set()
