"""A judge's runtime: one wrapper around any backend, the same for all of them.

The backend (:class:`~.llm.LLMJudge`: Anthropic, OpenAI-compatible, a custom callable, a
cascade's LLM tier) only sends a prompt. :class:`JudgeRuntime` does everything a user relies
on, configured once by a :class:`~.run_config.RunConfig` and never changed after:

* the prompt delimits untrusted text (:mod:`.prompt`) and is cut to the judge's window;
* a reply is parsed leniently but only as the output model's types allow (:mod:`.parsing`),
  then checked by the question (one verdict per context, ...);
* a reply that does not validate or check gets **one** corrective re-ask carrying the error;
  a count mismatch that survives it keeps only the verdicts that matched, with a note;
* a refusal is *not judged* with the judge's words as the reason; nothing becomes a number;
* each request is read from the disk cache or sent, within the run's limiter, with retries,
  until the judge stops (:mod:`.transport`); a question left not judged by a stop says why
  (``JudgeOutcome.stopped``), and the run ends with the fatal code;
* each reply a question is judged from is cached on disk (:mod:`.cache`), and ``passes`` > 1
  votes (:mod:`.voting`); the voted outcome of each question is cached too, so a warm re-run
  reads one entry per question. A failure is never cached (a refusal, a reply that never
  validated, an outage, a vote that failed): the next run asks again.

The registry of a run (:class:`~rag_eval_pytest.engine.judging.JudgeRegistry`) builds one
runtime per judge (:meth:`JudgeRuntime.around`) on a copy of the backend: the judge a
``rag_judge`` fixture returns is never changed by a run. Runs on the process's judge event
loop (:mod:`rag_eval_pytest.runtime.event_loop`).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ValidationError

from ..text.shorten import shorten
from .base import SETTLED, VOTES, I, Judge, JudgeOutcome, O, Question, Usage
from .parsing import ParseResult, looks_like_refusal, parse_reply
from .prompt import render
from .run_config import RunConfig
from .transport import Attempt, Transport
from .voting import failed_a_vote, stopped_early, vote

if TYPE_CHECKING:
    from .backend import Backend, Reply
    from .prompt import RenderedPrompt
    from .run_config import RunShared
    from .settings import JudgeSettings

FIRST_VOTES_KEPT = 20_000
"""First votes kept in memory for a verdict asked again with more votes (``passes: auto``)."""
_UNREAD = ParseResult(None, "no reply to read")
"""The parse of a reply that ended its pass before it was read (none, or a refusal)."""


class JudgeRuntime(Judge):
    """A backend as a run asks it: its questions prompted, parsed, checked, re-asked, voted
    and cached, its requests limited, retried and stopped, its secrets masked, all as its
    :class:`RunConfig` says. Known by its backend's identity."""

    kind: ClassVar[str] = "llm"

    def __init__(self, backend: Backend, config: RunConfig) -> None:
        self.backend = backend
        self.config = config
        self.model = backend.model
        self.deterministic = backend.deterministic
        self.transport = Transport(backend, config)
        self._first_votes: OrderedDict[str, JudgeOutcome[Any]] = OrderedDict()

    @classmethod
    def around(cls, backend: Backend, settings: JudgeSettings, shared: RunShared) -> JudgeRuntime:
        """The runtime of ``backend`` in a run: the run's settings and what its judges share,
        with the backend's own keyword arguments in their place, around a copy of the
        backend that times its requests out as the runtime says."""
        config = RunConfig.from_settings(settings, shared).under(backend.given)
        return cls(backend.for_run(config.timeout), config)

    # ------------------------------------------------------------------ what it is

    @property
    def passes(self) -> int:
        return self.config.passes

    @property
    def max_passes(self) -> int | None:
        return self.config.max_passes

    @property
    def vote_margin(self) -> float:
        return self.config.vote_margin

    def describe(self) -> str:
        return self.backend.describe()

    def identity(self) -> dict[str, str] | None:
        return self.backend.identity()

    def fingerprint(self) -> str | None:
        return self.backend.fingerprint()

    def supports(self, question: type[Question[Any, Any]]) -> bool:
        return self.backend.supports(question)

    def secrets(self) -> list[str]:
        """Values that must never appear in an output (the API key): for the redactor."""
        return self.backend.secrets()

    def stopped(self) -> str | None:
        """Why the judge stopped asking (its key was refused, ...), or ``None``."""
        return self.transport.stopped()

    def answered(self) -> bool:
        """Whether a request got an answer other than a refused key."""
        return self.transport.answered()

    async def aclose(self) -> None:
        await self.backend.aclose()

    # ------------------------------------------------------------------ asking

    async def ask(self, question: Question[I, O], inputs: I) -> JudgeOutcome[O]:
        prompt = render(
            question,
            inputs,
            mode=self.backend.mode,
            max_context_tokens=self.config.max_context_tokens,
        )
        outcome = await self._voted(question, inputs, prompt, VOTES.get() or self.config.passes)
        if not prompt.notes:
            return outcome
        return replace(outcome, notes=(*prompt.notes, *outcome.notes))

    async def _voted(
        self, question: Question[I, O], inputs: I, prompt: RenderedPrompt, passes: int
    ) -> JudgeOutcome[O]:
        """The question's voted outcome: read from the disk cache, or voted and stored there
        unless it failed."""
        cache = self.transport.disk_cache()
        if cache is None:
            return await self._vote(question, inputs, prompt, passes)
        key = outcome_key(self.transport.request_key(prompt, 0), passes)
        stored = outcome_from_record(cache.get(key, OUTCOME), question.output_model)
        # One with a failed vote (earlier versions kept such outcomes) is voted again.
        if stored is not None and not failed_a_vote(stored):
            return stored
        outcome = await self._vote(question, inputs, prompt, passes)
        if _kept_as_outcome(outcome):
            cache.put(key, self.transport.stored(outcome_record(outcome)), OUTCOME)
        return outcome

    async def _vote(
        self, question: Question[I, O], inputs: I, prompt: RenderedPrompt, passes: int
    ) -> JudgeOutcome[O]:
        """Up to ``passes`` votes; with more votes asked (``VOTES``), they stop where no
        further one can change the asking metric's verdict (``SETTLED``)."""
        check = SETTLED.get() if VOTES.get() else None
        settled = None if check is None else (lambda answers: check(question, answers))

        async def one_pass(index: int) -> JudgeOutcome[Any]:
            return await self._one_pass(question, inputs, prompt, index)

        outcome: JudgeOutcome[O] = await vote(one_pass, passes, settled)
        return outcome

    async def _one_pass(
        self, question: Question[I, O], inputs: I, prompt: RenderedPrompt, index: int
    ) -> JudgeOutcome[Any]:
        """Vote ``index``; the first one remembered, so that a verdict asked again with more
        votes keeps it."""
        if index:
            return await self._ask_pass(question, inputs, prompt, index)
        key = self.transport.request_key(prompt, 0)
        first = self._first_votes.get(key)
        if first is not None:
            return replace(first, usage=Usage())  # paid for by the first ask
        first = await self._ask_pass(question, inputs, prompt, 0)
        if first.value is not None and self.config.max_passes is not None:
            self._first_votes[key] = first
            if len(self._first_votes) > FIRST_VOTES_KEPT:
                self._first_votes.popitem(last=False)
        return first

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
        read = [(reparsed, reproblems), (parsed, problems)]
        return _still_wrong(question, inputs, read, usage, notes)

    async def _asked(
        self,
        question: Question[I, O],
        inputs: I,
        prompt: RenderedPrompt,
        sent: RenderedPrompt,
        index: int,
        usage: Usage | None = None,
        notes: tuple[str, ...] = (),
    ) -> tuple[Attempt, ParseResult, list[str], JudgeOutcome[O] | None]:
        """``sent`` (``prompt``, or ``prompt`` with a correction) asked and its reply read
        (:meth:`_read`, ``usage`` spent before it). Only a reply that judges is written to the
        disk cache: a refusal or a reply that does not validate, replayed, would fail every
        later run after the judge recovered. A cached reply that does not judge (earlier
        versions cached failures too) is a miss: the request is sent."""
        before = usage or Usage()
        attempt = await self.transport.request(sent, question.name, index)
        parsed, problems, ended = self._read(
            attempt, question, inputs, prompt, before + attempt.usage, notes
        )
        if attempt.cached and not _judged(ended):
            attempt = await self.transport.request(sent, question.name, index, cached=False)
            parsed, problems, ended = self._read(
                attempt, question, inputs, prompt, before + attempt.usage, notes
            )
        self._keep(attempt, ended)
        return attempt, parsed, problems, ended

    def _keep(self, attempt: Attempt, ended: JudgeOutcome[O] | None) -> None:
        """Write the reply to the disk cache when it judges."""
        cache = self.transport.disk_cache()
        if _judged(ended) and cache is not None and attempt.key and attempt.reply is not None:
            cache.put(attempt.key, self.transport.stored(attempt.reply.to_record()))

    def _read(
        self,
        attempt: Attempt,
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
        parsed, problems = _interpret(question, inputs, prompt, attempt.reply)
        if parsed.value is not None and not problems:
            outcome: JudgeOutcome[O] = JudgeOutcome(parsed.value, usage=usage, notes=notes)  # type: ignore[arg-type]
            return parsed, problems, outcome
        return parsed, problems, None


def _interpret(
    question: Question[I, O], inputs: I, prompt: RenderedPrompt, reply: Reply
) -> tuple[ParseResult, list[str]]:
    source: str | dict[str, Any] = reply.data if reply.data is not None else reply.text
    parsed = parse_reply(source, question.output_model, untrusted=prompt.untrusted_texts)
    if parsed.value is None:
        return parsed, []
    return parsed, question.check(inputs, parsed.value)  # type: ignore[arg-type]


def _judged(outcome: JudgeOutcome[Any] | None) -> bool:
    return outcome is not None and outcome.value is not None


def _still_wrong(
    question: Question[I, O],
    inputs: I,
    read: list[tuple[ParseResult, list[str]]],
    usage: Usage,
    notes: tuple[str, ...],
) -> JudgeOutcome[O]:
    """Still wrong after the re-ask. A reply that parsed but miscounted can be partly used;
    prefer the re-ask's (first in ``read``), as it was told what was wrong."""
    for parsed, problems in read:
        if parsed.value is not None:
            return _salvaged(question, inputs, parsed.value, problems, usage, notes)
    return JudgeOutcome.not_judged(
        "the judge's reply did not validate even after a corrective re-ask: "
        + (read[0][0].error or read[1][0].error),
        usage,
    )


def _salvaged(
    question: Question[I, O],
    inputs: I,
    value: Any,
    problems: list[str],
    usage: Usage,
    notes: tuple[str, ...],
) -> JudgeOutcome[O]:
    """A reply still wrong after the re-ask: the part of it that can be used, with a note,
    else not judged with its problems."""
    salvaged = question.salvage(inputs, value)
    if salvaged is not None:
        partial, note = salvaged
        return JudgeOutcome(partial, usage=usage, notes=(*notes, note))
    return JudgeOutcome.not_judged(
        "the judge's reply failed the checks even after a corrective re-ask: "
        + "; ".join(problems),
        usage,
    )


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
    if not _well_formed(notes, reason, agreement, requests):
        return None
    return JudgeOutcome(value, reason, Usage(cache_hits=requests), tuple(notes), agreement)


def _well_formed(notes: Any, reason: Any, agreement: Any, requests: Any) -> bool:
    """Whether a stored outcome's fields are of their types: texts, a share or none, and a
    count of one request or more."""
    return (
        _texts(notes)
        and isinstance(reason, str)
        and (agreement is None or _share(agreement))
        and type(requests) is int
        and requests >= 1
    )


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(n, str) for n in value)


def _share(value: Any) -> bool:
    return isinstance(value, float) and 0 <= value <= 1


_REFUSAL = 200  # characters of a refusal quoted in the reason


def _refusal(reply: Reply) -> str | None:
    if reply.refusal is not None:
        return f"the judge refused: {shorten(reply.refusal, _REFUSAL) or 'no reason given'}"
    if reply.data is None and looks_like_refusal(reply.text):
        return f"the judge refused: {shorten(reply.text, _REFUSAL)}"
    return None


def _kept_as_outcome(outcome: JudgeOutcome[Any]) -> bool:
    """Whether a voted outcome is stored as the question's: a failure is asked again next
    run, as is a vote that failed (the others decided); votes stopped for one metric's
    threshold are not that question's outcome for another (each vote is cached)."""
    return outcome.value is not None and not (stopped_early(outcome) or failed_a_vote(outcome))
