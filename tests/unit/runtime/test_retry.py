"""The retry policy's arithmetic: Retry-After in seconds or as an HTTP date, and the backoff
schedule with its cap and jitter."""

from __future__ import annotations

import pytest

from rag_eval_pytest.runtime.retry import RetryPolicy, parse_retry_after


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("5", 5.0),
        ("Wed, 21 Oct 2015 07:28:10 GMT", 2.0),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
        ("soon", None),
        (None, None),
        ("2.5", 2.5),
        ("-3", 0.0),
        ("inf", None),
        ("nan", None),
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, now=1445412488.0) == expected


def test_backoff_schedule() -> None:
    policy = RetryPolicy()
    assert [policy.delay(n, 0.0) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]
    assert policy.delay(1, 0.5) == 1.05
    assert RetryPolicy(max_delay=3).delay(3, 0.0) == 3.0
    assert RetryPolicy().delay(1, 0.0, retry_after=3600) == 60.0  # the default cap
    assert RetryPolicy(backoff="fixed", base_delay=2).delay(4, 0.0) == 2.0
    assert 1.0 <= RetryPolicy().delay(1) <= 1.1  # random jitter: up to 10 % more
    with pytest.raises(ValueError, match="counts the first try"):
        RetryPolicy(max_attempts=0)
