"""A conversation's metrics: each turn measured with the turns before it as its history, all
turns at once, and the conversation's result of each metric made from its turns' (the
minimum, or the mean: ``metrics/conversation.py``). A case that is no conversation is
measured the same way, as one turn without history."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..metrics.base import MetricResult
from ..metrics.conversation import conversation_result
from ..metrics.registry import get_metric

if TYPE_CHECKING:
    from ..judges.base import Judge
    from ..metrics.base import Measurement
    from ..metrics.conversation import Aggregate
    from .memos import MetricMemos
    from .queries import Turn
    from .requests import MetricRequest
    from .session import EvalSession


def measure_turns(
    session: EvalSession,
    memos: MetricMemos,
    turns: list[Turn],
    requests: list[MetricRequest],
    judge: Judge | None,
) -> list[list[MetricResult]]:
    """Each request measured (through the memos) on each turn and judged against its
    threshold, the metric's default when the test gave none: per turn, in request order."""
    metrics = [get_metric(metric, **params) for metric, _, params in requests]
    thresholds = [
        session.default_threshold(metric) if threshold is None else threshold
        for metric, (_, threshold, _) in zip(metrics, requests, strict=True)
    ]

    async def measure_all() -> list[list[Measurement]]:
        return list(
            await asyncio.gather(
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
