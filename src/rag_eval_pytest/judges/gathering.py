"""A cascade's questions for its LLM tier, gathered per case and asked together.

The metrics of a case are measured at once, each asking its question of the cascade; the
local tier decides what it can, and what it leaves undecided waits here, under its case (the
question the RAG system was asked), until none of that case's questions is still with the
local tier. Then everything waiting for the case goes to the LLM tier in one call of
:meth:`~.base.Judge.ask_many`, which an LLM judge's runtime asks as one request (a
:mod:`.bundle`): one request per case where there was one per metric. A question asked again
with more votes (``judge.passes: auto``) is asked alone, as the votes are per question.

A metric may also be measured on a guess (:data:`GUESSED`: what a test function that has
not said what it measures will likely ask for next), beside an evaluation of the case. Its
questions ride with the case's asked ones, their request and tokens counted on those. While
only guesses wait, they wait for an asked question of the case, until the evaluation they
were started beside ends; a guess never makes a request of its own: guesses left alone are
not asked (:class:`NotAsked`), and whoever reads such a measurement later measures it again.

A case's metrics may also start one after another: measured ahead of its test while an
earlier test still teaches what its test function asks for (a test that evaluates its metrics
one at a time). Their questions carry :data:`HELD`, which that teaching test's end sets; until
then what waits for the case is not asked, so the metrics started later join it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .base import SETTLED, VOTES, JudgeOutcome, Usage

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pydantic import BaseModel

    from .base import Judge, Question

Waiting = tuple[
    "Question[Any, Any]", "BaseModel", "asyncio.Future[JudgeOutcome[Any]]", "asyncio.Event | None"
]
"""A question waiting for the LLM tier: the question, its inputs, its outcome to come, and,
for a question asked on a guess, the end of the evaluation it was started beside."""
SETTLING_TURNS = 3
"""Turns of the event loop a case's questions are given to reach the cascade before what
waits is asked: the metrics of a case start together, each asking as it starts."""
HELD: contextvars.ContextVar[asyncio.Event | None] = contextvars.ContextVar("held", default=None)
"""Set, while a test still teaches the metrics its function's other cases will measure, on
the work started ahead for those cases: what waits for a case is asked once it is set."""
GUESSED: contextvars.ContextVar[asyncio.Event | None] = contextvars.ContextVar(
    "guessed", default=None
)
"""Set on a measurement started on a guess: the end of the evaluation it was started beside
(its questions are asked only beside others, that wait until then)."""


class NotAsked(Exception):
    """A question asked on a guess that no other question of its case took with it: it was
    not asked, and the measurement that asked it is measured again when read."""


@dataclass
class _Case:
    """One case's questions: how many are with the local tier, and those that wait."""

    local: int = 0
    waiting: list[Waiting] = field(default_factory=list)
    flushing: asyncio.Future[None] | None = None
    asked: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a question not asked on a guess waits."""


class Gathering:
    """The questions waiting for ``then`` (the LLM tier), per case."""

    def __init__(self, then: Judge) -> None:
        self.then = then
        self._cases: dict[str, _Case] = {}

    @contextlib.contextmanager
    def local(self, case: str) -> Iterator[None]:
        """While a question of ``case`` is with the local tier."""
        self._case(case).local += 1
        try:
            yield
        finally:
            self._case(case).local -= 1
            self._flush_when_ready(case)

    async def ask(
        self, case: str, question: Question[Any, Any], inputs: BaseModel
    ) -> JudgeOutcome[Any]:
        """The LLM tier's outcome for ``question``, asked with the other questions of
        ``case`` that wait for it."""
        if VOTES.get() or SETTLED.get() is not None:  # votes are per question
            return await self.then.ask(question, inputs)
        future: asyncio.Future[JudgeOutcome[Any]] = asyncio.get_running_loop().create_future()
        found, guessed = self._case(case), GUESSED.get()
        found.waiting.append((question, inputs, future, guessed))
        if guessed is None:
            found.asked.set()
        self._flush_when_ready(case)
        return await asyncio.shield(future)

    def _case(self, case: str) -> _Case:
        return self._cases.setdefault(case, _Case())

    def _flush_when_ready(self, case: str) -> None:
        """Ask what waits for ``case`` once none of its questions is with the local tier."""
        found = self._cases.get(case)
        if found is None or found.local or found.flushing is not None:
            return
        if not found.waiting:
            self._cases.pop(case, None)
            return
        found.flushing = asyncio.ensure_future(self._flush(case, found))

    async def _flush(self, case: str, found: _Case) -> None:
        """Let the case's other questions reach the cascade, then ask what waits."""
        held = HELD.get()
        if held is not None:  # more of the case's metrics may start: they join
            await held.wait()
        await _guesses_wait(found)
        for _ in range(SETTLING_TURNS):
            await asyncio.sleep(0)
        found.flushing = None
        if found.local:  # another question came: the last to leave the local tier asks
            return
        batch, found.waiting = found.waiting, []
        self._cases.pop(case, None)
        # In an order of their own, not of their arrival: the same questions make the same
        # request, which the judge cache knows on the next run.
        batch.sort(key=lambda waiting: (waiting[0].name, waiting[1].model_dump_json()))
        await _answer(self.then, batch)


async def _answer(then: Judge, batch: list[Waiting]) -> None:
    """Ask ``then`` the waiting questions together and hand each its outcome (the failure,
    where asking failed); questions asked on a guess alone are not asked."""
    futures = [future for _, _, future, _ in batch]
    if _only_guesses(batch):
        _hand(futures, NotAsked())
        return
    try:
        outcomes = await _asked(then, batch)
    except BaseException:  # the run stopping: the questions that waited are cancelled
        for future in futures:
            future.cancel()
        raise
    for future, outcome in zip(futures, _paid_by_asked(batch, outcomes), strict=True):
        _hand([future], outcome)


def _paid_by_asked(batch: list[Waiting], outcomes: list[Any]) -> list[Any]:
    """The outcomes, the usage of the questions asked on a guess moved to the first question
    that was not: the request and its tokens are counted on what a test reads, whether or
    not a test reads the guesses."""
    if isinstance(outcomes[0], BaseException):
        return outcomes  # what asking raised, for every question alike
    paid: list[JudgeOutcome[Any]] = []
    moved = Usage()
    for (*_, ride), outcome in zip(batch, outcomes, strict=True):
        if ride is not None:
            moved, outcome = moved + outcome.usage, replace(outcome, usage=Usage())
        paid.append(outcome)
    payer = _first_asked(batch)
    paid[payer] = replace(paid[payer], usage=paid[payer].usage + moved)
    return paid


async def _guesses_wait(found: _Case) -> None:
    """While only guesses wait for the case: until a question not asked on a guess joins
    them, or the evaluation they were started beside ends."""
    rides = [ride for *_, ride in found.waiting if ride is not None]
    if len(rides) < len(found.waiting):  # an asked question waits
        return
    waits = [asyncio.ensure_future(event.wait()) for event in (found.asked, *rides)]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


def _only_guesses(batch: list[Waiting]) -> bool:
    return all(ride is not None for *_, ride in batch)


def _first_asked(batch: list[Waiting]) -> int:
    return next(i for i, (*_, ride) in enumerate(batch) if ride is None)


async def _asked(then: Judge, batch: list[Waiting]) -> list[Any]:
    """Each question's outcome, or what asking raised for all of them (a judge's own bug:
    each question that waited raises it)."""
    try:
        return await then.ask_many([(question, inputs) for question, inputs, _, _ in batch])
    except Exception as exc:
        return [exc] * len(batch)


def _hand(futures: list[asyncio.Future[JudgeOutcome[Any]]], given: Any) -> None:
    """Give the futures still waiting an outcome, or an exception to raise."""
    for future in futures:
        if future.done():
            continue
        if isinstance(given, BaseException):
            future.set_exception(given)
        else:
            future.set_result(given)
