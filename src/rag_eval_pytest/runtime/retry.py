"""The one retry policy of the plugin: the HTTP adapter and every LLM judge retry the same
failures, the same number of times, waiting the same way.

* **What is retried**: a timeout, a refused or dropped connection, and the transient HTTP
  statuses :data:`TRANSIENT_STATUSES` (408, 409, 429 and every 5xx, 529 "overloaded"
  included). Anything else is final at once.
* **How often**: ``max_attempts`` counts the first try (4: the first and 3 retries).
* **How long**: before retry *n* the wait is ``base_delay * 2**(n-1)`` (``backoff:
  exponential``; ``base_delay`` with ``fixed``) plus a random 0 to ``jitter`` of it; a
  server's ``Retry-After`` (``retry-after-ms`` too; seconds or an HTTP date) replaces it.
  Every wait, ``Retry-After`` included, is capped at ``max_delay`` (60 s by default): a
  server asking for an hour cannot stall the run.

Configured as ``http.retry`` and ``judge.retry`` (:class:`RetrySettings`, the same keys).
Stdlib and pydantic only: the configuration imports it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..values import numbers_not_bools

Sleep = Callable[[float], Awaitable[None]]
Backoff = Literal["exponential", "fixed"]

TRANSIENT_STATUSES: frozenset[int] = frozenset({408, 409, 429}) | frozenset(range(500, 600))
"""Statuses worth another try: request timeout, conflict, rate limit, server errors and
overload (529)."""
DEFAULT_MAX_ATTEMPTS = 4
MAX_ATTEMPTS = 20
DEFAULT_MAX_DELAY = 60.0
"""The longest single wait, a server's ``Retry-After`` included."""


def is_transient_status(status: int) -> bool:
    """Whether an HTTP status is worth a retry (:data:`TRANSIENT_STATUSES`)."""
    return status in TRANSIENT_STATUSES


class RetrySettings(BaseModel):
    """Retries of transient failures: timeouts, dropped connections, 408, 409, 429, 5xx."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    max_attempts: int = Field(
        default=DEFAULT_MAX_ATTEMPTS,
        ge=1,
        le=MAX_ATTEMPTS,
        description="Attempts per request, the first included: 4 is the first and 3 retries.",
    )
    backoff: Backoff = Field(
        "exponential", description="Wait base_delay * 2^n between attempts, or base_delay."
    )
    base_delay: float = Field(default=1.0, ge=0, description="First wait in seconds (then 2, 4).")
    max_delay: float = Field(
        default=DEFAULT_MAX_DELAY,
        ge=0,
        description="Longest single wait in seconds, a server's Retry-After included.",
    )
    jitter: float = Field(
        default=0.1, ge=0, le=1, description="Random extra wait, as a fraction of the wait."
    )
    _numbers = field_validator("*", mode="before")(numbers_not_bools)


@dataclass(frozen=True)
class RetryPolicy:
    """How often to try and how long to wait between tries (see the module docstring).
    ``sleep`` is injectable so that tests can observe the waits without waiting."""

    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    backoff: Backoff = "exponential"
    base_delay: float = 1.0
    max_delay: float = DEFAULT_MAX_DELAY
    jitter: float = 0.1
    sleep: Sleep = field(default=asyncio.sleep, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts counts the first try: it must be at least 1")

    @classmethod
    def from_settings(cls, settings: RetrySettings) -> RetryPolicy:
        return cls(
            settings.max_attempts,
            settings.backoff,
            settings.base_delay,
            settings.max_delay,
            settings.jitter,
        )

    def delay(
        self, retry: int, rand: float | None = None, retry_after: float | None = None
    ) -> float:
        """Seconds before retry number ``retry`` (1 for the first retry); ``rand`` in [0, 1]
        picks the jitter (random when not given). ``retry_after`` wins when given; every
        wait is capped at ``max_delay``."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        base = self.base_delay * (2 ** (retry - 1) if self.backoff == "exponential" else 1)
        jitter = random.random() if rand is None else rand  # jitter, not crypto
        return min(base * (1 + self.jitter * jitter), self.max_delay)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """One ``Retry-After`` value as seconds (delta-seconds or an HTTP date, a past date being
    0); ``None`` when absent or not understood."""
    if not value:
        return None
    value = value.strip()
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": UTC, as HTTP dates are
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds a response asks to wait: ``retry-after-ms`` (as the LLM providers send it),
    else ``retry-after``; ``None`` when it asks nothing understandable."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = _seconds(lowered.get("retry-after-ms", "").strip())
    if millis is not None:
        return millis / 1000
    return parse_retry_after(lowered.get("retry-after"), now)


def _seconds(text: str) -> float | None:
    """A non-negative finite number of seconds, or ``None`` (``inf``, ``nan``, words)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return max(value, 0.0) if math.isfinite(value) else None


__all__ = [
    "DEFAULT_MAX_DELAY",
    "MAX_ATTEMPTS",
    "TRANSIENT_STATUSES",
    "RetryPolicy",
    "RetrySettings",
    "is_transient_status",
    "parse_retry_after",
    "retry_after",
]
