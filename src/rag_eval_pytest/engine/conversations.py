"""A conversation's metrics: each turn measured with the turns before it as its history, all
turns at once, and the conversation's result of each metric made from its turns' (the
minimum, or the mean: ``metrics/conversation.py``). A case that is no conversation is
measured the same way, as one turn without history."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..judges.gathering import GUESSED
from ..metrics.base import MetricResult
from ..metrics.conversation import conversation_result
from ..metrics.registry import get_metric

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..judges.base import Judge
    from ..metrics.base import Measurement, Metric
    from ..metrics.conversation import Aggregate
    from .memos import MetricMemos
    from .queries import Turn
    from .requests import MetricRequest, PlannedMetric
    from .session import EvalSession


def measure_turns(
    session: EvalSession,
    memos: MetricMemos,
    turns: list[Turn],
    requests: list[MetricRequest],
    judge: Judge | None,
    ride: asyncio.Event | None = None,
) -> list[list[MetricResult]]:
    """Each request measured (through the memos) on each turn and judged against its
    threshold, the metric's default when the test gave none: per turn, in request order;
    ``ride`` (of the guesses started beside them, :func:`start_guesses`) set at the end."""
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
        return list(await _then_set(measured, ride))

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


async def _then_set(
    measured: asyncio.Future[list[list[Measurement]]], ride: asyncio.Event | None
) -> list[list[Measurement]]:
    """``measured``, then ``ride`` set (whatever happened to it)."""
    try:
        return await measured
    finally:
        if ride is not None:
            ride.set()


def start_guesses(
    session: EvalSession,
    memos: MetricMemos,
    turns: list[Turn],
    guessed: Sequence[PlannedMetric],
    requests: list[MetricRequest],
    judge: Judge | None,
) -> asyncio.Event | None:
    """Start measuring the ``guessed`` metrics that are not requested on each turn, on a
    guess (:meth:`~.ahead.Scheduler.guesses`), for later requests to find in the memos;
    started before anything else of the evaluation, so that their questions reach the judge
    with its own. Their tasks keep :data:`GUESSED`, the ride :func:`measure_turns` sets at
    the evaluation's end, until which their questions wait for its own (``None``: nothing
    guessed)."""
    if not guessed:  # every evaluation but a test function's first, with a cascade
        return None
    metrics = _guessed(guessed, [get_metric(metric, **params) for metric, _, params in requests])
    if not metrics:
        return None

    async def start() -> asyncio.Event:
        ride = asyncio.Event()
        GUESSED.set(ride)  # this task's context, which the tasks made here copy
        for loaded, response, history in turns:
            services = memos.services(loaded.owner, judge, metrics)
            for metric in metrics:
                memos.task(loaded, response, metric, services, history=history)
        return ride

    return session.loop.run(start())
