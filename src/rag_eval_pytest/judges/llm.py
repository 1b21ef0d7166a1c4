"""The engine shared by every LLM judge: prompt, call, parse, check, re-ask, vote, cache.

A backend (:class:`~.anthropic.AnthropicJudge`, :class:`~.openai.OpenAIJudge`,
:class:`~.callable.CallableJudge`) only implements :meth:`LLMJudge._complete`: send one
rendered prompt, return a :class:`Reply`. Everything a user relies on happens here, the same
for all of them:

* the prompt delimits untrusted text (:mod:`.prompt`) and is cut to the judge's window;
* a reply is parsed leniently but only as the output model's types allow (:mod:`.parsing`),
  then checked by the question (one verdict per context, ...);
* a reply that does not validate or check gets **one** corrective re-ask carrying the error;
  a count mismatch that survives it keeps only the verdicts that matched, with a note;
* a refusal is *not judged* with the judge's words as the reason; nothing becomes a number;
* transient failures (timeouts, 408, 409, 429, 5xx, overload) are retried by the plugin's one
  retry policy (:mod:`rag_eval_pytest.runtime.retry`, as for the HTTP adapter: ``max_attempts``
  counting the first try, exponential backoff with jitter, ``retry-after`` capped at
  ``max_delay``); other failures are not judged at once;
* a refused key (401, 403) stops the judge: no retry, no further request for any case. The
  judge's first request goes alone, so a revoked key costs one request, not one per case;
* so do :data:`MAX_CONSECUTIVE_TIMEOUTS` requests in a row that timed out (a judge that never
  answers), :data:`MAX_CONSECUTIVE_FAILURES` requests in a row that ran out of retries (a
  judge that stays overloaded), and the run's :class:`JudgeDeadline` passing: requests
  waiting to retry or in flight give up at once. A question left not judged by a stop says
  why (``JudgeOutcome.stopped``), and the run ends with the fatal code;
* each reply a question is judged from is cached on disk (:mod:`.cache`), and ``passes`` > 1
  votes (:mod:`.voting`); the voted outcome of each question is cached too, so a warm re-run
  reads one entry per question. A failure is never cached (a refusal, a reply that never
  validated, an outage, a vote that failed): the next run asks again.

Runs on the process's judge event loop (:mod:`rag_eval_pytest.runtime.event_loop`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from abc import abstractmethod
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from ..redaction import too_weak
from ..runtime.retry import RetryPolicy
from ..text.shorten import shorten
from .base import SETTLED, VOTES, I, Judge, JudgeOutcome, O, Question, Usage
from .cache import JudgeCache, cache_key
from .cost import Prices, cost_usd
from .parsing import ParseResult, looks_like_refusal, parse_reply
from .prompt import Mode, RenderedPrompt, render
from .voting import failed_a_vote, stopped_early, vote

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ..redaction import Redactor
    from ..runtime.limits import AdaptiveLimiter

T = TypeVar("T")
FIRST_VOTES_KEPT = 20_000
"""First votes kept in memory for a verdict asked again with more votes (``passes: auto``)."""
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


class TransientError(Exception):
    """A failure worth retrying (timeout, connection, 408/409/429/5xx/overloaded);
    ``timed_out`` when the judge gave no answer within its timeout."""

    def __init__(
        self, message: str, retry_after: float | None = None, *, timed_out: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.timed_out = timed_out


class RequestFailed(Exception):
    """A failure that a retry will not fix (bad key, unknown model, bad request)."""


class AuthenticationFailed(RequestFailed):
    """The judge's key was refused (401, 403): no request of this run can succeed, so the
    judge stops at once and answers every later question with this error, sending nothing."""


class _Stopped(Exception):
    """The judge stopped while a request waited for its turn: the request is not sent."""


@dataclass(frozen=True)
class Reply:
    """One reply of a backend: structured ``data`` (a tool call, a JSON response format) or
    ``text``; ``refusal`` when the backend says the model refused."""

    text: str = ""
    data: dict[str, Any] | None = None
    refusal: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0

    def to_record(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "data": self.data,
            "refusal": self.refusal,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Reply | None:
        try:
            data = record["data"]
            refusal = record["refusal"]
            reply = cls(
                text=str(record["text"]),
                data=data if isinstance(data, dict) else None,
                refusal=str(refusal) if refusal is not None else None,
                input_tokens=int(record["input_tokens"]),
                output_tokens=int(record["output_tokens"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
        return reply


_UNREAD = ParseResult(None, "no reply to read")
"""The parse of a reply that ended its pass before it was read (none, or a refusal)."""


@dataclass
class _Attempt:
    reply: Reply | None
    usage: Usage
    failure: str = ""
    stopped: str = ""  # why the judge stopped, when that is why there is no reply
    key: str | None = None  # the cache key of a reply just received, kept once it judges
    cached: bool = False  # read from the disk cache


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


def endpoint(url: str) -> str:
    """A server's URL as part of a judge's identity: scheme, host, port and path, without
    credentials, query or fragment (the identity is persisted, credentials never are)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a number: the request fails and says so; here it is a name
        port = ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}"


class LLMJudge(Judge):
    """A judge that answers by prompting a language model.

    ``passes`` (majority vote), ``cache`` and the other run settings may be left ``None``:
    the plugin then fills them from the configuration when it adopts the judge (a judge built
    in a user's ``rag_judge`` fixture gets the run's ``--rag-judge-passes`` and cache too).
    """

    kind: ClassVar[str] = "llm"
    mode: ClassVar[Mode] = "json"

    def __init__(
        self,
        *,
        model: str = "",
        passes: int | None = None,
        cache: JudgeCache | Literal[False] | None = None,
        prices: Prices | None = None,
        max_context_tokens: int | None = None,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        if passes is not None and passes < 1:
            raise ValueError("passes must be at least 1")
        self.model = model
        self.passes = passes
        self.max_passes: int | None = None
        """With ``judge.passes: auto``: the votes a verdict near its threshold gets."""
        self.vote_margin = 0.2
        """With ``judge.passes: auto``: how near its threshold a score is asked again."""
        self._first_votes: OrderedDict[str, JudgeOutcome[Any]] = OrderedDict()
        self.cache = cache
        self.prices = prices
        self.max_context_tokens = max_context_tokens
        self.timeout = 60.0 if timeout is None else timeout
        """Seconds one request may take (``judge.timeout`` unless given)."""
        self._timeout_given = timeout is not None
        self.retry = retry or RetryPolicy()
        self._retry_given = retry is not None
        self.limiter: AdaptiveLimiter | None = None
        self.redactor: Redactor | None = None  # the run's: every secret it knows
        self._secrets: list[str] = []
        self._stopped: str | None = None  # why the judge stopped (its key was refused)
        self._first: asyncio.Lock | None = None  # the first request goes alone
        self._answered = False  # a request got an answer other than a refused key
        self._failures_in_a_row = 0  # requests out of retries since the last answer
        self._timeouts_in_a_row = 0  # attempts timed out since the last answer
        self._timed_out_questions: set[int] = set()  # their prompts (hashed)
        self._replied = False  # the judge answered a request (an error included)
        self._stopping: asyncio.Event | None = None  # set when the judge stops
        self.deadline: JudgeDeadline | None = None  # the run's, given by adopt()
        self._deadline_armed = False

    # ------------------------------------------------------------------ backend

    @abstractmethod
    async def _complete(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        """Send ``prompt`` once. Raise :class:`TransientError` or :class:`RequestFailed`."""

    def adopt(
        self,
        *,
        passes: int | None = None,
        cache: JudgeCache | Literal[False] | None = None,
        prices: Prices | None = None,
        max_context_tokens: int | None = None,
        limiter: AdaptiveLimiter | None = None,
        redactor: Redactor | None = None,
        retry: RetryPolicy | None = None,
        deadline: JudgeDeadline | None = None,
        max_passes: int | None = None,
        vote_margin: float = 0.2,
        timeout: float | None = None,
    ) -> None:
        """Fill the settings the judge was built without (explicit arguments win)."""
        if not self._timeout_given and timeout is not None:
            self.timeout, self._timeout_given = timeout, True
        if self.limiter is None and limiter is not None:
            self.limiter = limiter
        if self.redactor is None and redactor is not None:
            self.redactor = redactor
        if self.deadline is None and deadline is not None:
            self.deadline = deadline
        if not self._retry_given and retry is not None:
            self.retry, self._retry_given = retry, True
        if self.passes is None and passes is not None:
            self.passes = passes
        if self.max_passes is None and max_passes is not None:
            self.max_passes, self.vote_margin = max_passes, vote_margin
        if self.cache is None and cache is not None:
            self.cache = cache
        if self.prices is None and prices is not None:
            self.prices = prices
        if self.max_context_tokens is None and max_context_tokens is not None:
            self.max_context_tokens = max_context_tokens

    def identity(self) -> dict[str, str] | None:
        """``kind`` and ``model``, the backend's :meth:`answer_settings`, and the class for
        a judge class of the user's own (``None`` when it is defined inside a function)."""
        identity = {"kind": self.kind, "model": self.model, **self.answer_settings()}
        cls = type(self)
        if not cls.__module__.startswith("rag_eval_pytest."):
            path = f"{cls.__module__}.{cls.__qualname__}"
            if "<locals>" in path:
                return None
            identity["class"] = path
        return identity

    def answer_settings(self) -> dict[str, str]:
        """Settings besides the model that change the answers (the server asked): part of
        the judge's fingerprint and of its cache keys. Left out when at their default, so
        a default judge keeps the cache keys of earlier releases."""
        return {}

    def secrets(self) -> list[str]:
        """Values that must never appear in an output (the API key): for the redactor."""
        return [s for s in self._secrets if s]

    def stopped(self) -> str | None:
        """Why the judge stopped asking (its key was refused), or ``None``."""
        return self._stopped

    def answered(self) -> bool:
        """Whether a request got an answer other than a refused key."""
        return self._answered

    def _redact(self, text: str) -> str:
        for secret in self.secrets():
            if not too_weak(secret):  # a placeholder would mask a word of the message
                text = text.replace(secret, "[REDACTED]")
        return self.redactor.text(text) if self.redactor is not None else text

    def _stored(self, record: dict[str, Any]) -> dict[str, Any]:
        """A cache entry as written to disk: without any secret the run knows (a judge may
        quote what it was sent; the cache may be restored elsewhere)."""
        if self.redactor is None:
            return record
        stored: dict[str, Any] = self.redactor.data(record)
        return stored

    # ------------------------------------------------------------------ asking

    async def ask(self, question: Question[I, O], inputs: I) -> JudgeOutcome[O]:
        prompt = render(
            question, inputs, mode=self.mode, max_context_tokens=self.max_context_tokens
        )

        async def one_pass(index: int) -> JudgeOutcome[Any]:
            if index:
                return await self._ask_pass(question, inputs, prompt, index)
            # The first vote, remembered: a verdict asked again with more votes keeps it.
            key = self._request_key(prompt, 0)
            first = self._first_votes.get(key)
            if first is None:
                first = await self._ask_pass(question, inputs, prompt, 0)
                if first.value is not None and self.max_passes is not None:
                    self._first_votes[key] = first
                    if len(self._first_votes) > FIRST_VOTES_KEPT:
                        self._first_votes.popitem(last=False)
            else:
                first = replace(first, usage=Usage())  # paid for by the first ask
            return first

        passes = VOTES.get() or self.passes or 1
        check = SETTLED.get() if VOTES.get() else None
        settled = None if check is None else (lambda answers: check(question, answers))
        cache = self._disk_cache()
        if cache is None:
            outcome = await vote(one_pass, passes, settled)
        else:
            key = outcome_key(self._request_key(prompt, 0), passes)
            stored = outcome_from_record(cache.get(key, OUTCOME), question.output_model)
            # One with a failed vote (earlier versions kept such outcomes) is voted again.
            if stored is not None and not failed_a_vote(stored):
                outcome = stored
            else:
                outcome = await vote(one_pass, passes, settled)
                # A failure is asked again next run, as is a vote that failed (the others
                # decided); votes stopped for one metric's threshold are not that question's
                # outcome for another (each vote is cached).
                if outcome.value is not None and not (
                    stopped_early(outcome) or failed_a_vote(outcome)
                ):
                    cache.put(key, self._stored(outcome_record(outcome)), OUTCOME)
        if not prompt.notes:
            return outcome
        return JudgeOutcome(
            outcome.value,
            outcome.reason,
            outcome.usage,
            (*prompt.notes, *outcome.notes),
            outcome.agreement,
            outcome.stopped,
        )

    async def _ask_pass(
        self, question: Question[I, O], inputs: I, prompt: RenderedPrompt, index: int
    ) -> JudgeOutcome[O]:
        first, parsed, problems, ended = await self._asked(question, inputs, prompt, prompt, index)
        if ended is not None:
            return ended

        error = parsed.error or "; ".join(problems)
        notes = (f"re-asked once: {error}",)
        correction = prompt.with_correction(error)
        second, reparsed, reproblems, ended = await self._asked(
            question, inputs, prompt, correction, index, first.usage, notes
        )
        if ended is not None:
            return ended
        usage = first.usage + second.usage
        # Still wrong. A reply that parsed but miscounted can be partly used; prefer the
        # re-ask's, as it was told what was wrong.
        for value, value_problems in ((reparsed.value, reproblems), (parsed.value, problems)):
            if value is None:
                continue
            salvaged = question.salvage(inputs, value)  # type: ignore[arg-type]
            if salvaged is not None:
                partial, note = salvaged
                return JudgeOutcome(partial, usage=usage, notes=(*notes, note))
            return JudgeOutcome.not_judged(
                "the judge's reply failed the checks even after a corrective re-ask: "
                + "; ".join(value_problems),
                usage,
            )
        return JudgeOutcome.not_judged(
            "the judge's reply did not validate even after a corrective re-ask: "
            + (reparsed.error or parsed.error),
            usage,
        )

    async def _asked(
        self,
        question: Question[I, O],
        inputs: I,
        prompt: RenderedPrompt,
        sent: RenderedPrompt,
        index: int,
        usage: Usage | None = None,
        notes: tuple[str, ...] = (),
    ) -> tuple[_Attempt, ParseResult, list[str], JudgeOutcome[O] | None]:
        """``sent`` (``prompt``, or ``prompt`` with a correction) asked and its reply read
        (:meth:`_read`, ``usage`` spent before it). Only a reply that judges is written to the
        disk cache: a refusal or a reply that does not validate, replayed, would fail every
        later run after the judge recovered. A cached reply that does not judge (earlier
        versions cached failures too) is a miss: the request is sent."""
        before = usage or Usage()
        attempt = await self._request(sent, question.name, index)
        parsed, problems, ended = self._read(
            attempt, question, inputs, prompt, before + attempt.usage, notes
        )
        if attempt.cached and (ended is None or ended.value is None):
            attempt = await self._request(sent, question.name, index, cached=False)
            parsed, problems, ended = self._read(
                attempt, question, inputs, prompt, before + attempt.usage, notes
            )
        cache = self._disk_cache()
        judged = ended is not None and ended.value is not None
        if judged and cache is not None and attempt.key and attempt.reply is not None:
            cache.put(attempt.key, self._stored(attempt.reply.to_record()))
        return attempt, parsed, problems, ended

    def _read(
        self,
        attempt: _Attempt,
        question: Question[I, O],
        inputs: I,
        prompt: RenderedPrompt,
        usage: Usage,
        notes: tuple[str, ...] = (),
    ) -> tuple[ParseResult, list[str], JudgeOutcome[O] | None]:
        """One reply read: its parse and problems, and the outcome when it ends the pass (no
        reply, a refusal, or a reply that parsed and passed the checks)."""
        if attempt.reply is None:
            return _UNREAD, [], JudgeOutcome.not_judged(attempt.failure, usage, attempt.stopped)
        refused = _refusal(attempt.reply)
        if refused is not None:
            return _UNREAD, [], JudgeOutcome.not_judged(refused, usage)
        parsed, problems = self._interpret(question, inputs, prompt, attempt.reply)
        if parsed.value is not None and not problems:
            outcome: JudgeOutcome[O] = JudgeOutcome(parsed.value, usage=usage, notes=notes)  # type: ignore[arg-type]
            return parsed, problems, outcome
        return parsed, problems, None

    def _interpret(
        self, question: Question[I, O], inputs: I, prompt: RenderedPrompt, reply: Reply
    ) -> tuple[ParseResult, list[str]]:
        source: str | dict[str, Any] = reply.data if reply.data is not None else reply.text
        parsed = parse_reply(source, question.output_model, untrusted=prompt.untrusted_texts)
        if parsed.value is None:
            return parsed, []
        return parsed, question.check(inputs, parsed.value)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ transport

    async def _request(
        self, prompt: RenderedPrompt, question_name: str, index: int, *, cached: bool = True
    ) -> _Attempt:
        """One logical request: from the cache (unless not ``cached``), or sent (with
        retries); a reply sent for is cached once it judges (:meth:`_asked`)."""
        cache = self._disk_cache()
        key = self._request_key(prompt, index)
        if cache is not None and cached:
            record = cache.get(key)
            stored = Reply.from_record(record) if record is not None else None
            if stored is not None:
                return _Attempt(stored, Usage(cache_hits=1), cached=True)
        self._start_deadline()
        usage = Usage()
        attempt = 1
        while True:
            stopped = self.stopped()
            if stopped is not None:
                return _Attempt(None, usage, stopped, stopped)
            unsent, usage = usage, usage + Usage(judge_calls=1)
            try:
                reply = await self._unless_stopped(self._first_complete(prompt, question_name))
            except _Stopped as exc:  # stopped while this request waited or was in flight
                return _Attempt(None, unsent, str(exc), str(exc))
            except TransientError as exc:
                self._count_timeout(exc, prompt)
                stopped = self.stopped()
                if stopped is not None:
                    return _Attempt(None, usage, stopped, stopped)
                if attempt >= self.retry.max_attempts:
                    self._failed_transiently(exc)
                    return _Attempt(
                        None,
                        usage,
                        f"the judge request failed after {attempt} attempt"
                        f"{'s' if attempt > 1 else ''}: {self._redact(str(exc))}",
                        self._stopped or "",  # this request's failure stopped the judge
                    )
                await self._pause(self.retry.delay(attempt, retry_after=exc.retry_after))
                attempt += 1
                continue
            except AuthenticationFailed as exc:  # the judge is stopped (by _sent)
                stopped = self._stopped or f"judge unreachable: {self._redact(str(exc))}"
                return _Attempt(None, usage, stopped, stopped)
            except RequestFailed as exc:
                self._answered_now()
                return _Attempt(None, usage, f"the judge request failed: {self._redact(str(exc))}")
            self._answered_now()
            break
        usage = usage + Usage(
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            cost_usd=cost_usd(self.model, reply.input_tokens, reply.output_tokens, self.prices),
        )
        return _Attempt(reply, usage, key=key if cache is not None else None)

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
                f"after {self.timeout:g} s (judge.timeout), the judge is stopped for this run; "
                "raise judge.timeout if the judge is slow rather than down"
            )

    def _failed_transiently(self, exc: TransientError) -> None:
        """Count a request that ran out of retries; stop the judge after too many in a row."""
        self._failures_in_a_row += 1
        if self._failures_in_a_row >= MAX_CONSECUTIVE_FAILURES and self._stopped is None:
            self._stop(
                f"judge unreachable: {self._failures_in_a_row} requests in a row ran out of "
                f"retries (timeouts, overload), the judge is stopped for this run (last: "
                f"{self._redact(str(exc))})"
            )

    def _start_deadline(self) -> None:
        """Start the run's judge deadline at the first request sent, and stop the judge when
        it passes (also while requests wait to retry or are in flight)."""
        if self.deadline is None or self._deadline_armed:
            return
        self._deadline_armed = True
        left = self.deadline.start()
        if left is None:
            return
        if left <= 0:
            self._deadline_passed()
        else:
            asyncio.get_running_loop().call_later(left, self._deadline_passed)

    def _deadline_passed(self) -> None:
        if self._stopped is None and self.deadline is not None:
            self._stop(self.deadline.reason())

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
            waiter = asyncio.ensure_future(stopping.wait())
            try:
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
                if not task.done():
                    task.cancel()
        if task.done() and not task.cancelled():
            return task.result()
        task.cancel()
        # An abandoned request may still end with its own error: read, never logged.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        raise _Stopped(self._stopped or "the judge is stopped")

    async def _pause(self, seconds: float) -> None:
        """Wait before a retry, or less when the judge stops meanwhile."""
        with contextlib.suppress(_Stopped):
            await self._unless_stopped(self.retry.sleep(seconds))

    def _disk_cache(self) -> JudgeCache | None:
        """The disk cache, unless the judge has no stable identity to file answers under."""
        if not isinstance(self.cache, JudgeCache) or self.identity() is None:
            return None
        return self.cache

    def _request_key(self, prompt: RenderedPrompt, index: int) -> str:
        identity = dict(self.identity() or {})
        return cache_key(
            kind=identity.pop("kind", self.kind),
            model=identity.pop("model", self.model),
            settings=identity,
            system=prompt.system,
            user=prompt.user,
            schema_json=prompt.schema_json,
            pass_index=index,
        )

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
                try:
                    reply = await self._limited_complete(prompt, question_name)
                except AuthenticationFailed:
                    raise
                except Exception:
                    self._answered = True
                    raise
                self._answered = True
                return reply
        # Answered while this request waited for its turn: sent beside the others.
        return await self._limited_complete(prompt, question_name)

    async def _limited_complete(self, prompt: RenderedPrompt, question_name: str) -> Reply:
        """One request within the run's judge concurrency; a transient failure (429,
        overload, timeout) makes the limiter back off, successes let it recover."""
        limiter = self.limiter
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
        """:meth:`_complete`, stopping the judge the moment its key is refused: before any
        request waiting for its turn can be sent."""
        try:
            return await self._complete(prompt, question_name)
        except AuthenticationFailed as exc:
            if self._stopped is None:
                self._stop(f"judge unreachable: {self._redact(str(exc))}")
            raise


OUTCOME = "outcome"
OUTCOME_VERSION = 1


def outcome_key(request_key: str, passes: int) -> str:
    """The cache key of a question's voted outcome: its first request's key and the number
    of passes (another vote is another outcome)."""
    material = f"{OUTCOME}:{OUTCOME_VERSION}:{passes}:{request_key}"
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def outcome_record(outcome: JudgeOutcome[Any]) -> dict[str, Any]:
    assert outcome.value is not None
    usage = outcome.usage
    return {
        "value": outcome.value.model_dump(mode="json"),
        "reason": outcome.reason,
        "notes": list(outcome.notes),
        "agreement": outcome.agreement,
        "requests": usage.judge_calls + usage.cache_hits,
    }


def outcome_from_record(
    record: dict[str, Any] | None, model: type[BaseModel]
) -> JudgeOutcome[Any] | None:
    """The stored outcome, validated again as the output model; ``None`` for a miss (absent,
    edited, from another version of the output model). Its requests count as cache hits."""
    if record is None:
        return None
    try:
        value = model.model_validate(record["value"])
        notes = record["notes"]
        agreement = record["agreement"]
        requests = record["requests"]
        reason = record["reason"]
    except (KeyError, ValidationError):
        return None
    if (
        not isinstance(notes, list)
        or not all(isinstance(n, str) for n in notes)
        or not isinstance(reason, str)
        or not (agreement is None or (isinstance(agreement, float) and 0 <= agreement <= 1))
        or type(requests) is not int
        or requests < 1
    ):
        return None
    return JudgeOutcome(value, reason, Usage(cache_hits=requests), tuple(notes), agreement)


_REFUSAL = 200  # characters of a refusal quoted in the reason


def _refusal(reply: Reply) -> str | None:
    if reply.refusal is not None:
        return f"the judge refused: {shorten(reply.refusal, _REFUSAL) or 'no reason given'}"
    if reply.data is None and looks_like_refusal(reply.text):
        return f"the judge refused: {shorten(reply.text, _REFUSAL)}"
    return None


__all__ = [
    "AuthenticationFailed",
    "JudgeDeadline",
    "LLMJudge",
    "Reply",
    "RequestFailed",
    "RetryPolicy",
    "TransientError",
]
