"""One request of a judge's runtime: read from the disk cache, or sent to the backend.

A request sent goes within the run's judge concurrency (the limiter backs off on 429,
overload and timeouts), the judge's first one alone, and is retried on transient failures by
the plugin's one retry policy (:mod:`rag_eval_pytest.runtime.retry`). The judge stops for the
rest of the run, and requests waiting to retry or in flight give up at once, when:

* its key is refused (401, 403): no retry, no further request for any case; the first
  request goes alone, so a revoked key costs one request, not one per case;
* :data:`MAX_CONSECUTIVE_TIMEOUTS` requests in a row timed out (a judge that never answers);
* :data:`MAX_CONSECUTIVE_FAILURES` requests in a row ran out of retries (a judge that stays
  overloaded);
* the run's :class:`~.run_config.JudgeDeadline` passes.

Error messages are masked of every secret the run knows before they reach a reason.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..redaction import too_weak
from .backend import AuthenticationFailed, Reply, RequestFailed, TransientError
from .base import Usage
from .cache import JudgeCache, cache_key
from .cost import cost_usd

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from .backend import Backend
    from .prompt import RenderedPrompt
    from .run_config import RunConfig

T = TypeVar("T")
MAX_CONSECUTIVE_FAILURES = 5
"""Requests in a row that ran out of retries on transient failures (timeouts, 429, overload,
5xx) after which the judge stops for the rest of the run: a judge that hangs or stays
overloaded would otherwise make every later request wait out its timeout and retries, one
after another. A burst of 429s that retries get through counts for nothing."""
MAX_CONSECUTIVE_TIMEOUTS = 3
"""Requests in a row, across cases and retries, that timed out with no answer from the judge
in between, after which the judge stops for the rest of the run. A judge that never answers
is found in about two timeouts (``judge.timeout``, 60 s by default: the first request goes
alone, then the others time out together), three with one request at a time, instead of
every request waiting out its timeout on each of its attempts: about 2 minutes at the
defaults, 3 at worst, not hours (docs/judges.md). Once the judge has answered in this run,
the timeouts must be of two questions or more: one question that alone keeps timing out (a
prompt too long to answer in time) is not the judge being down; it runs out of its own
attempts and is not judged, and the other questions go on. Any answer, an error included,
starts the count again."""


class _Stopped(Exception):
    """The judge stopped while a request waited for its turn: the request is not sent."""


@dataclass
class Attempt:
    """One logical request: its reply (``None`` with the ``failure``), what it cost."""

    reply: Reply | None
    usage: Usage
    failure: str = ""
    stopped: str = ""  # why the judge stopped, when that is why there is no reply
    key: str | None = None  # the cache key of a reply just received, kept once it judges
    cached: bool = False  # read from the disk cache


class Transport:
    """The requests of one judge's runtime to its backend, and whether the judge stopped."""

    def __init__(self, backend: Backend, config: RunConfig) -> None:
        self.backend = backend
        self.config = config
        self._stopped: str | None = None  # why the judge stopped
        self._first: asyncio.Lock | None = None  # the first request goes alone
        self._answered = False  # a request got an answer other than a refused key
        self._failures_in_a_row = 0  # requests out of retries since the last answer
        self._timeouts_in_a_row = 0  # attempts timed out since the last answer
        self._timed_out_questions: set[int] = set()  # their prompts (hashed)
        self._replied = False  # the judge answered a request (an error included)
        self._stopping: asyncio.Event | None = None  # set when the judge stops
        self._deadline_armed = False

    def stopped(self) -> str | None:
        """Why the judge stopped asking (its key was refused, ...), or ``None``."""
        return self._stopped

    def answered(self) -> bool:
        """Whether a request got an answer other than a refused key."""
        return self._answered

    # ------------------------------------------------------------------ secrets and cache

    def redact(self, text: str) -> str:
        """``text`` without the backend's secrets, nor any other the run knows."""
        for secret in self.backend.secrets():
            if not too_weak(secret):  # a placeholder would mask a word of the message
                text = text.replace(secret, "[REDACTED]")
        redactor = self.config.redactor
        return redactor.text(text) if redactor is not None else text

    def stored(self, record: dict[str, Any]) -> dict[str, Any]:
        """A cache entry as written to disk: without any secret the run knows (a judge may
        quote what it was sent; the cache may be restored elsewhere)."""
        if self.config.redactor is None:
            return record
        stored: dict[str, Any] = self.config.redactor.data(record)
        return stored

    def disk_cache(self) -> JudgeCache | None:
        """The disk cache, unless the judge has no stable identity to file answers under."""
        if not isinstance(self.config.cache, JudgeCache) or self.backend.identity() is None:
            return None
        return self.config.cache

    def request_key(self, prompt: RenderedPrompt, index: int) -> str:
        backend = self.backend
        identity = dict(backend.identity() or {})
        return cache_key(
            kind=identity.pop("kind", backend.kind),
            model=identity.pop("model", backend.model),
            settings=identity,
            system=prompt.system,
            user=prompt.user,
            schema_json=prompt.schema_json,
            pass_index=index,
        )

    # ------------------------------------------------------------------ one request

    async def request(
        self, prompt: RenderedPrompt, question_name: str, index: int, *, cached: bool = True
    ) -> Attempt:
        """One logical request: from the cache (unless not ``cached``), or sent (with
        retries); a reply sent for carries its cache key, to be stored once it judges."""
        cache = self.disk_cache()
        key = self.request_key(prompt, index)
        stored = _stored_reply(cache, key) if cached else None
        if stored is not None:
            return Attempt(stored, Usage(cache_hits=1), cached=True)
        self._start_deadline()
        attempt = await self._with_retries(prompt, question_name)
        reply = attempt.reply
        if reply is None:
            return attempt
        usage = attempt.usage + self._spent(reply)
        return Attempt(reply, usage, key=key if cache is not None else None)

    def _spent(self, reply: Reply) -> Usage:
        """The tokens of a reply sent for, and their price."""
        return Usage(
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            cost_usd=cost_usd(
                self.backend.model, reply.input_tokens, reply.output_tokens, self.config.prices
            ),
        )

    async def _with_retries(self, prompt: RenderedPrompt, question_name: str) -> Attempt:
        """The request sent until it is answered, fails for good or the judge stops."""
        usage = Usage()
        attempt = 1
        while True:
            stopped = self.stopped()
            if stopped is not None:
                return Attempt(None, usage, stopped, stopped)
            unsent, usage = usage, usage + Usage(judge_calls=1)
            try:
                reply = await self._unless_stopped(self._first_complete(prompt, question_name))
            except TransientError as exc:
                ended = await self._transient(exc, prompt, attempt, usage)
                if ended is not None:
                    return ended
                attempt += 1
                continue
            except (_Stopped, RequestFailed) as exc:
                return self._unanswered(exc, usage, unsent)
            self._answered_now()
            return Attempt(reply, usage)

    def _unanswered(self, exc: Exception, usage: Usage, unsent: Usage) -> Attempt:
        """A request ended without a reply: the judge stopped while it waited or was in
        flight (``unsent``: what it cost before this attempt), its key was refused (the judge
        is stopped), or it failed in a way no retry fixes."""
        if isinstance(exc, _Stopped):
            return Attempt(None, unsent, str(exc), str(exc))
        if isinstance(exc, AuthenticationFailed):  # the judge is stopped (by _sent)
            stopped = self.stopped() or f"judge unreachable: {self.redact(str(exc))}"
            return Attempt(None, usage, stopped, stopped)
        self._answered_now()
        return Attempt(None, usage, f"the judge request failed: {self.redact(str(exc))}")

    async def _transient(
        self, exc: TransientError, prompt: RenderedPrompt, attempt: int, usage: Usage
    ) -> Attempt | None:
        """After a transient failure: the request's end (the judge stopped, or this was its
        last attempt), or ``None`` once the wait before the next attempt is over."""
        self._count_timeout(exc, prompt)
        stopped = self.stopped()
        if stopped is not None:
            return Attempt(None, usage, stopped, stopped)
        retry = self.config.retry
        if attempt >= retry.max_attempts:
            self._failed_transiently(exc)
            return Attempt(
                None,
                usage,
                f"the judge request failed after {attempt} attempt"
                f"{'s' if attempt > 1 else ''}: {self.redact(str(exc))}",
                self.stopped() or "",  # this request's failure stopped the judge
            )
        await self._pause(retry.delay(attempt, retry_after=exc.retry_after))
        return None

    # ------------------------------------------------------------------ stopping

    def _answered_now(self) -> None:
        """The judge answered: the counts of failures in a row start again."""
        self._failures_in_a_row = 0
        self._replied_now()

    def _replied_now(self) -> None:
        self._replied = True
        self._timeouts_in_a_row = 0
        self._timed_out_questions.clear()

    def _count_timeout(self, exc: TransientError, prompt: RenderedPrompt) -> None:
        """Count an attempt that timed out (any other answer starts the count again); stop
        the judge after :data:`MAX_CONSECUTIVE_TIMEOUTS` in a row: of two questions or more
        once it has answered in this run."""
        if not exc.timed_out:
            self._replied_now()
            return
        self._timeouts_in_a_row += 1
        self._timed_out_questions.add(hash(prompt.user))
        if (
            self._timeouts_in_a_row >= MAX_CONSECUTIVE_TIMEOUTS
            and (len(self._timed_out_questions) > 1 or not self._replied)
            and self._stopped is None
        ):
            self._stop(
                f"judge unreachable: {self._timeouts_in_a_row} requests in a row timed out "
                f"after {self.config.timeout:g} s (judge.timeout), the judge is stopped for "
                "this run; raise judge.timeout if the judge is slow rather than down"
            )

    def _failed_transiently(self, exc: TransientError) -> None:
        """Count a request that ran out of retries; stop the judge after too many in a row."""
        self._failures_in_a_row += 1
        if self._failures_in_a_row >= MAX_CONSECUTIVE_FAILURES and self._stopped is None:
            self._stop(
                f"judge unreachable: {self._failures_in_a_row} requests in a row ran out of "
                f"retries (timeouts, overload), the judge is stopped for this run (last: "
                f"{self.redact(str(exc))})"
            )

    def _start_deadline(self) -> None:
        """Start the run's judge deadline at the first request sent, and stop the judge when
        it passes (also while requests wait to retry or are in flight)."""
        deadline = self.config.deadline
        if deadline is None or self._deadline_armed:
            return
        self._deadline_armed = True
        left = deadline.start()
        if left is None:
            return
        if left <= 0:
            self._deadline_passed()
        else:
            asyncio.get_running_loop().call_later(left, self._deadline_passed)

    def _deadline_passed(self) -> None:
        if self._stopped is None and self.config.deadline is not None:
            self._stop(self.config.deadline.reason())

    def _stop(self, reason: str) -> None:
        self._stopped = reason
        self._stopping_event().set()

    def _stopping_event(self) -> asyncio.Event:
        if self._stopping is None:
            self._stopping = asyncio.Event()
        return self._stopping

    async def _unless_stopped(self, work: Awaitable[T]) -> T:
        """The result of ``work``, or :class:`_Stopped` as soon as the judge stops meanwhile:
        the work (a wait, a request in flight) is cancelled."""
        stopping = self._stopping_event()
        task = asyncio.ensure_future(work)
        if not stopping.is_set():
            await _first_of(task, stopping)
        if task.done() and not task.cancelled():
            return task.result()
        task.cancel()
        # An abandoned request may still end with its own error: read, never logged.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        raise _Stopped(self._stopped or "the judge is stopped")

    async def _pause(self, seconds: float) -> None:
        """Wait before a retry, or less when the judge stops meanwhile."""
        with contextlib.suppress(_Stopped):
            await self._unless_stopped(self.config.retry.sleep(seconds))

    # ------------------------------------------------------------------ sending

    async def _first_complete(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        """Until a request has been answered (a reply, or any error but a refused key),
        requests go one at a time: a revoked key is found by one request, not by every
        request in flight."""
        if self._first is None:
            self._first = asyncio.Lock()
        if self._answered:
            return await self._limited_complete(prompt, question_name)
        async with self._first:
            stopped = self.stopped()
            if stopped is not None:
                raise _Stopped(stopped)
            if not self.answered():
                return await self._first_alone(prompt, question_name)
        # Answered while this request waited for its turn: sent beside the others.
        return await self._limited_complete(prompt, question_name)

    async def _first_alone(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        """The request sent while no other is: any answer but a refused key ends the wait."""
        try:
            reply = await self._limited_complete(prompt, question_name)
        except AuthenticationFailed:
            raise
        except Exception:
            self._answered = True
            raise
        self._answered = True
        return reply

    async def _limited_complete(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        """One request within the run's judge concurrency; a transient failure (429,
        overload, timeout) makes the limiter back off, successes let it recover."""
        limiter = self.config.limiter
        if limiter is None:
            return await self._sent(prompt, question_name)
        async with limiter.slot():
            try:
                reply = await self._sent(prompt, question_name)
            except TransientError:
                limiter.throttled()
                raise
        limiter.succeeded()
        return reply

    async def _sent(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        """The backend's call, stopping the judge the moment its key is refused: before any
        request waiting for its turn can be sent."""
        try:
            return await self.backend._complete(prompt, question_name)
        except AuthenticationFailed as exc:
            if self._stopped is None:
                self._stop(f"judge unreachable: {self.redact(str(exc))}")
            raise


def _stored_reply(cache: JudgeCache | None, key: str) -> Reply | None:
    """The reply the disk cache holds for ``key``, if any (and readable)."""
    if cache is None:
        return None
    record = cache.get(key)
    return Reply.from_record(record) if record is not None else None


async def _first_of(task: asyncio.Future[Any], stopping: asyncio.Event) -> None:
    """Wait until the task is done or the judge stops, whichever comes first; the task is
    cancelled when the stop came first."""
    waiter = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not task.done():
            task.cancel()
