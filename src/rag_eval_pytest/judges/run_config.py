"""A judge's runtime configured once: :class:`RunConfig`, complete before its first question.

As ragas passes one ``RunConfig`` to its executor, a judge's runtime
(:class:`~.runtime.JudgeRuntime`) is built from one :class:`RunConfig` and never changed
after: made from the run's judge settings and what the run's judges share
(:meth:`RunConfig.from_settings`, :class:`RunShared`), then the backend's own keyword
arguments put in place of the run's settings (:meth:`RunConfig.under`: what a constructor
was given wins, as it always has). Nothing is written on the backend the user built.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..runtime.retry import RetryPolicy
from .cache import JudgeCache

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..redaction import Redactor
    from ..runtime.limits import AdaptiveLimiter
    from .backend import Given
    from .cost import Prices
    from .settings import JudgeSettings

DEFAULT_TIMEOUT = 60.0
"""Seconds one request may take when neither the run nor the backend says (``judge.timeout``)."""


@dataclass
class JudgeDeadline:
    """The time the judges of a process may take in all (``judge.deadline``), counted from
    the first request sent; ``seconds=None``: no limit. One per process, shared by every judge
    of the run."""

    seconds: float | None
    clock: Callable[[], float] = time.monotonic
    _started: float | None = None

    def start(self) -> float | None:
        """Start the clock (once); the seconds left, or ``None`` without a deadline."""
        if self.seconds is None:
            return None
        if self._started is None:
            self._started = self.clock()
        return max(self._started + self.seconds - self.clock(), 0.0)

    def reason(self) -> str:
        return (
            f"judge deadline: judging took longer than {self.seconds:g} s in all "
            "(judge.deadline, --rag-judge-deadline), the judge is stopped for this run"
        )


@dataclass(frozen=True)
class RunShared:
    """What every judge of one run shares: the folder of the disk cache (``None``: no
    cache), the judges' concurrency limiter, the redactor that knows the run's secrets, and
    the judge deadline. A run without them (``rag-eval calibrate``) leaves them ``None``."""

    cache_dir: Path | None = None
    limiter: AdaptiveLimiter | None = None
    redactor: Redactor | None = None
    deadline: JudgeDeadline | None = None


@dataclass(frozen=True)
class RunConfig:
    """Everything a judge's runtime does besides the call to a model: its votes
    (``passes``; up to ``max_passes`` for a verdict within ``vote_margin`` of its threshold
    under ``judge.passes: auto``), the disk cache (``None``: none), prices, the context
    window, the request timeout and retries, and what the run shares (:class:`RunShared`)."""

    passes: int = 1
    max_passes: int | None = None
    vote_margin: float = 0.2
    cache: JudgeCache | None = None
    prices: Prices | None = None
    max_context_tokens: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    limiter: AdaptiveLimiter | None = None
    redactor: Redactor | None = None
    deadline: JudgeDeadline | None = None

    @classmethod
    def from_settings(cls, settings: JudgeSettings, shared: RunShared) -> RunConfig:
        """The configuration a run's settings give (``judge:``, its flags) with what the
        run's judges share."""
        return cls(
            passes=settings.fixed_passes,
            max_passes=settings.max_passes if settings.passes == "auto" else None,
            vote_margin=settings.vote_margin,
            cache=cache_for(settings, shared.cache_dir),
            prices=settings.price_table(),
            max_context_tokens=settings.max_context_tokens,
            timeout=settings.timeout,
            retry=RetryPolicy.from_settings(settings.retry),
            limiter=shared.limiter,
            redactor=shared.redactor,
            deadline=shared.deadline,
        )

    def under(self, given: Given) -> RunConfig:
        """This configuration with what a backend was built with in place of the run's
        settings: a constructor's keyword argument wins; ``cache=False`` turns the cache
        off."""
        own = {f.name: getattr(given, f.name) for f in fields(given)}
        own = {name: value for name, value in own.items() if value is not None}
        if own.get("cache") is False:
            own["cache"] = None
        return replace(self, **own)


def cache_for(settings: JudgeSettings, default_dir: Path | None) -> JudgeCache | None:
    """The disk cache in force, or ``None`` when caching is off or has no place."""
    if not settings.cache:
        return None
    directory = Path(settings.cache_dir) if settings.cache_dir else default_dir
    return JudgeCache(directory) if directory is not None else None
