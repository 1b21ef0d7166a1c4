"""The adaptive limiter: bounded, first come first served, backs off and recovers."""

from __future__ import annotations

import asyncio

from rag_eval_pytest.runtime.limits import AdaptiveLimiter


def test_never_more_than_the_limit_in_flight_and_served_in_order() -> None:
    limiter = AdaptiveLimiter(3)
    started: list[int] = []

    async def work(i: int) -> None:
        async with limiter.slot():
            started.append(i)
            await asyncio.sleep(0.01)

    async def main() -> None:
        await asyncio.gather(*(work(i) for i in range(10)))

    asyncio.run(main())
    assert limiter.peak == 3
    assert started == list(range(10))
    assert limiter.in_flight == 0


def test_throttling_halves_the_limit_and_successes_win_it_back() -> None:
    limiter = AdaptiveLimiter(8)
    limiter.throttled()
    limiter.throttled()
    assert limiter.limit == 2
    for _ in range(2):
        limiter.succeeded()
    assert limiter.limit == 3
    for _ in range(3 + 4 + 5 + 6 + 7 + 20):
        limiter.succeeded()
    assert limiter.limit == 8  # never above the configured maximum


def test_a_cancelled_waiter_gives_its_slot_back() -> None:
    limiter = AdaptiveLimiter(1)

    async def main() -> None:
        async with limiter.slot():
            waiter = asyncio.ensure_future(limiter._acquire())
            await asyncio.sleep(0)
            waiter.cancel()
            await asyncio.gather(waiter, return_exceptions=True)
        assert limiter.in_flight == 0
        async with limiter.slot():
            assert limiter.in_flight == 1

    asyncio.run(main())
