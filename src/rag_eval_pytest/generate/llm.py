"""Questions written by an LLM judge, each checked against its source chunks.

The cases asked for are split evenly over the kinds (``--types``), and each kind's over the
documents in proportion to their size; each case gets its chunk (two for ``multi_hop`` and
``comparison``), chosen with the seed (:func:`assign`). Then, in one round:

1. the judge writes each question and its ground truth (:class:`QuestionWriting`; a
   conversation's turns with :class:`ConversationWriting`);
2. near-duplicates are dropped (by words, and by meaning with the local judge's embeddings
   where its extra is installed), before any is checked;
3. the judge checks each against its source chunks (:class:`GeneratedCheck`): a question
   that is not answerable from them, or whose ground truth they do not state, is dropped; an
   ``unanswerable`` one is kept only when the chunks do not answer it.

A second round makes up for the cases dropped. Every request goes through the judge's one
runtime, built as in a run (:class:`~rag_eval_pytest.judges.runtime.JudgeRuntime`): the disk
cache (the same seed and documents are asked the same prompts, so a second generation is read
from it), the limiter, retries, the deadline, cost accounting and secret redaction. One vote
per question: a written question is not voted on.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import ConfigError, RagEvalError
from ..judges.questions import (
    ConversationInput,
    ConversationWriting,
    GeneratedCheck,
    GeneratedCheckInput,
    QuestionWriting,
    WritingInput,
)
from ..text.sentences import split_sentences
from .cases import CONVERSATION, TWO_CHUNK_KINDS, Generated, Turn
from .dedup import Deduplicator, near_duplicates
from .extractive import shares
from .progress import Progress, Spend

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping, Sequence

    from ..judges.base import Judge, JudgeOutcome
    from ..judges.settings import JudgeSettings
    from .chunking import Chunk
    from .request import Inputs, Request

GUIDANCE = {
    "single": "a question about one fact the chunks state: a number, a name, a rule, a step",
    "multi_hop": "a question whose answer needs both chunks: a fact of the first and a fact "
    "of the second, put together",
    "comparison": "a question that compares two things the chunks describe (which is longer, "
    "cheaper, allowed, ...), answered from both chunks",
    "conditional": "a question about the user's own situation, 'If I ..., ...?', whose "
    "answer is a condition or a rule the chunks state",
    "unanswerable": "a question on the chunks' topic that they do not answer (a detail they "
    "leave out), to test that the system declines; its ground truth is null",
}
T = TypeVar("T")
R = TypeVar("R")
CONVERSATION_TURNS = 3
ROUNDS = 2
"""Rounds of writing: the second makes up for the cases the first dropped."""


@dataclass(frozen=True)
class Assignment:
    """One case to write: its kind (or ``conversation``), its source chunks, and the
    sentence of its first chunk it is about (``focus``: two questions written from one chunk
    are about two of its sentences, not one question twice)."""

    kind: str
    chunks: tuple[Chunk, ...]
    focus: str

    def writing(self) -> tuple[Any, Any]:
        """The question that writes this case, and its input."""
        texts = [chunk.full_text for chunk in self.chunks]
        if self.kind == CONVERSATION:
            asked = ConversationInput(turns=CONVERSATION_TURNS, focus=self.focus, chunks=texts)
            return ConversationWriting(), asked
        return QuestionWriting(), WritingInput(
            kind=self.kind, guidance=GUIDANCE[self.kind], focus=self.focus, chunks=texts
        )


class _Focus:
    """The sentences of each chunk, in a seeded order, each given once before any again
    (across the rounds of one generation)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.given: dict[str, int] = {}

    def next(self, chunk: Chunk) -> str:
        sentences = [s for part in chunk.text.split("\n\n") for s in split_sentences(part)]
        random.Random(f"{self.seed}:{chunk.id}").shuffle(sentences)
        n = self.given.get(chunk.id, 0)
        self.given[chunk.id] = n + 1
        return sentences[n % len(sentences)] if sentences else chunk.text


def assign(
    chunks: Sequence[Chunk],
    wanted: Mapping[str, int],
    seed: int,
    round_: int = 0,
    focus: _Focus | None = None,
) -> list[Assignment]:
    """The cases to write: ``wanted[kind]`` of each kind, over the documents in proportion
    to their size, each with its chunks and its focus (the same for the same seed and
    round)."""
    rng = random.Random(f"{seed}:{round_}")
    focus = focus or _Focus(seed)
    documents = _documents(chunks)
    sizes = [sum(len(c.text) for c in group) for group in documents]
    assignments: list[Assignment] = []
    for kind, count in wanted.items():
        for group, n in zip(documents, shares(sizes, count), strict=True):
            assignments += _of_document(kind, group, n, chunks, rng, focus)
    return assignments


def _documents(chunks: Sequence[Chunk]) -> list[list[Chunk]]:
    """The chunks of each document, the documents in their order."""
    documents: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        documents.setdefault(chunk.document, []).append(chunk)
    return list(documents.values())


def _of_document(
    kind: str,
    group: list[Chunk],
    n: int,
    chunks: Sequence[Chunk],
    rng: random.Random,
    focus: _Focus,
) -> list[Assignment]:
    """``n`` cases of one kind from one document's chunks (``group``)."""
    return [
        Assignment(kind, _sources(kind, chunk, group, chunks, rng), focus.next(chunk))
        for chunk in _picked(group, n, rng)
    ]


def _picked(group: list[Chunk], n: int, rng: random.Random) -> list[Chunk]:
    """``n`` chunks of a document, larger ones likelier, each once until all are taken."""
    picked: list[Chunk] = []
    while len(picked) < n:
        left = [c for c in group if c not in picked] or group
        picked.append(rng.choices(left, weights=[len(c.text) for c in left])[0])
    return picked


def _sources(
    kind: str, chunk: Chunk, group: list[Chunk], chunks: Sequence[Chunk], rng: random.Random
) -> tuple[Chunk, ...]:
    """A case's chunks: one, or two for a kind that needs two (multi-hop: the next chunk of
    the same document where there is one; comparison: any other chunk)."""
    if kind not in TWO_CHUNK_KINDS or len(chunks) < 2:
        return (chunk,)
    index = group.index(chunk)
    if kind == "multi_hop" and len(group) > 1:
        return (chunk, group[(index + 1) % len(group)])
    return (chunk, _another(chunk, chunks, rng))


def _another(chunk: Chunk, chunks: Sequence[Chunk], rng: random.Random) -> Chunk:
    return rng.choice([c for c in chunks if c is not chunk])


def planned(request: Request, types: Sequence[str]) -> dict[str, int]:
    """How many cases of each kind are asked for (conversations last)."""
    counts = shares([1] * len(types), request.count)
    wanted = {kind: n for kind, n in zip(types, counts, strict=True) if n}
    if request.conversations:
        wanted[CONVERSATION] = request.conversations
    return wanted


@dataclass
class Generation:
    """What the judge made: the cases kept, the judge's label and identity, the notes."""

    cases: list[Generated]
    judge: str
    identity: str | None
    notes: list[str] = field(default_factory=list)


def generation_settings(settings: JudgeSettings, env: Mapping[str, str]) -> JudgeSettings:
    """The judge that writes: the run's settings with one vote; a cascade's LLM tier."""
    from ..judges.factory import cascade_tier, resolve_kind

    if resolve_kind(settings, env) == "cascade":
        settings = cascade_tier(settings, env)
    return settings.model_copy(update={"passes": 1})


def generate_with_judge(request: Request, inputs: Inputs, env: Mapping[str, str]) -> Generation:
    """The cases written and checked by the configured judge."""
    from ..judges.base import run_identity
    from ..judges.factory import judge_label

    settings = generation_settings(inputs.settings.judge, env)
    judge, redactor = _judge(settings, inputs, env)
    limits = inputs.settings.concurrency
    spend = Spend(request.max_cost, batch=limits.judge or 2 * limits.limit)
    progress = Progress(sum(planned(request, inputs.types).values()))

    async def work() -> list[Generated]:
        try:
            return await _rounds(request, inputs, judge, spend, progress)
        finally:
            await judge.aclose()

    cases = asyncio.run(work())
    progress.done()
    if spend.capped and not cases:
        raise RagEvalError(
            f"--max-cost ${request.max_cost:g} reached after {spend.calls} requests "
            f"(${spend.cost:.4f}) before any case was checked; nothing written"
        )
    notes = [
        f"judge: {spend.calls} requests ({spend.cached} from the cache), {spend.tokens} "
        f"tokens, ${spend.cost:.4f}"
    ]
    if spend.capped:
        notes.append(f"stopped at --max-cost ${request.max_cost:g}: fewer cases than asked")
    cases = [_redacted(case, redactor) for case in cases]
    return Generation(cases, judge_label(settings, env), run_identity(judge), notes)


def _judge(settings: JudgeSettings, inputs: Inputs, env: Mapping[str, str]) -> tuple[Judge, Any]:
    """The judge, built as a run builds it: its LLM backend inside one runtime with the
    judge cache, a limiter, the redactor and the deadline."""
    from ..judges.factory import build_judge
    from ..judges.run_config import JudgeDeadline, RunShared
    from ..judges.runtime import JudgeRuntime
    from ..redaction import Redactor
    from ..runtime.limits import AdaptiveLimiter

    limits = inputs.settings.concurrency
    redactor = Redactor.from_environment(inputs.secrets)
    shared = RunShared(
        cache_dir=Path.cwd() / ".pytest_cache" / "d" / "rag_eval_judge",
        limiter=AdaptiveLimiter(limits.judge or 2 * limits.limit),
        redactor=redactor,
        deadline=JudgeDeadline(settings.deadline),
    )
    judge = build_judge(settings, env=env, shared=shared, search_paths=[Path.cwd()])
    if not judge.supports(QuestionWriting) or not judge.supports(GeneratedCheck):
        raise ConfigError(f"judge {judge.describe()} cannot write questions: choose an LLM judge")
    for part in judge.parts():  # a cascade's LLM tier too
        if isinstance(part, JudgeRuntime):
            redactor.add(*part.secrets(), source=f"judge {part.describe()}")
    return judge, redactor


async def _rounds(
    request: Request, inputs: Inputs, judge: Judge, spend: Spend, progress: Progress
) -> list[Generated]:
    wanted = planned(request, inputs.types)
    existing = inputs.existing.questions if inputs.existing is not None else []
    dedup = Deduplicator(existing)
    kept: list[Generated] = []
    focus = _Focus(request.seed)
    for round_ in range(ROUNDS):
        missing = _missing(wanted, kept)
        if not missing or not spend.allows():
            break
        assignments = assign(inputs.chunks, missing, request.seed, round_, focus)
        written = await _written(judge, assignments, spend, progress)
        fresh = await _distinct(written, dedup, existing + [c.question for c in kept], inputs)
        kept += await _checked(judge, fresh, spend, progress)
    return kept


def _missing(wanted: dict[str, int], kept: list[Generated]) -> dict[str, int]:
    """How many questions of each kind are still to make."""
    missing = {kind: n - sum(c.kind == kind for c in kept) for kind, n in wanted.items()}
    return {kind: n for kind, n in missing.items() if n > 0}


async def _written(
    judge: Judge, assignments: list[Assignment], spend: Spend, progress: Progress
) -> list[Generated]:
    async def one(assignment: Assignment) -> Generated | None:
        if not spend.allows():
            return None
        question, inputs = assignment.writing()
        outcome = await judge.ask(question, inputs)
        spend.add(outcome.usage)
        _stopped(outcome)
        progress.written(spend)
        return None if outcome.value is None else _case(assignment, outcome.value)

    made = await _in_batches(one, assignments, spend.batch)
    return [case for case in made if case is not None]


def _case(assignment: Assignment, value: Any) -> Generated | None:
    if assignment.kind == CONVERSATION:
        turns = tuple(Turn(t.question, t.ground_truth, assignment.chunks) for t in value.turns)
        return Generated(CONVERSATION, turns[0].question, None, assignment.chunks, turns=turns)
    truth = value.ground_truth if assignment.kind != "unanswerable" else None
    return Generated(assignment.kind, value.question.strip(), truth, assignment.chunks)


async def _distinct(
    written: list[Generated], dedup: Deduplicator, earlier: list[str], inputs: Inputs
) -> list[Generated]:
    """The written cases without near-duplicates: by words, then by meaning."""
    fresh = [c for c in written if dedup.add(c.question, c.ground_truth)]
    embed = _embedder(inputs)
    if embed is None or not fresh:
        return fresh
    return await _apart_in_meaning(fresh, embed, earlier)


async def _apart_in_meaning(
    fresh: list[Generated], embed: Any, earlier: list[str]
) -> list[Generated]:
    """The cases whose questions mean something else than one before them, or one of
    ``earlier``."""
    dropped = await near_duplicates([c.question for c in fresh], embed, earlier)
    return [c for i, c in enumerate(fresh) if i not in dropped]


def _embedder(inputs: Inputs) -> Any:
    """The local judge's embeddings, when its extra is installed (else: words only)."""
    from ..extras import local_available

    if not local_available():
        inputs.notes.append(
            "near-duplicates found by words only: the local extra (its embeddings) is not installed"
        )
        return None
    from ..judges.local.embeddings import shared_embedder

    embedder = shared_embedder(inputs.settings.judge.local.device)
    return embedder.embed if embedder is not None else None


async def _checked(
    judge: Judge, cases: list[Generated], spend: Spend, progress: Progress
) -> list[Generated]:
    async def one(case: Generated) -> Generated | None:
        if not spend.allows():
            return None
        outcome = await judge.ask(GeneratedCheck(), _check_input(case))
        spend.add(outcome.usage)
        _stopped(outcome)
        progress.checked(spend)
        return case if outcome.value is not None and _passes(case, outcome.value) else None

    kept = await _in_batches(one, cases, spend.batch)
    return [case for case in kept if case is not None]


async def _in_batches(one: Callable[[T], Awaitable[R]], items: Sequence[T], size: int) -> list[R]:
    """``one`` of each item, ``size`` at a time (the judge's concurrency): ``--max-cost`` is
    checked before each batch, so the cost passes it by one batch at most."""
    done: list[R] = []
    for start in range(0, len(items), size):
        done += await asyncio.gather(*(one(item) for item in items[start : start + size]))
    return done


def _check_input(case: Generated) -> GeneratedCheckInput:
    asked = case.turns or (Turn(case.question, case.ground_truth or "", case.chunks),)
    return GeneratedCheckInput(
        questions=[t.question for t in asked],
        ground_truths=[t.ground_truth for t in asked],
        chunks=[chunk.full_text for chunk in case.chunks],
    )


def _passes(case: Generated, verdicts: Any) -> bool:
    """Whether the judge's verdicts keep the case."""
    if case.kind == "unanswerable":
        return not any(v.answerable for v in verdicts.questions)
    return all(v.answerable and v.supported for v in verdicts.questions)


def _stopped(outcome: JudgeOutcome[Any]) -> None:
    """A judge that stopped (a refused key, an outage, the deadline) ends the generation:
    nothing is written (what it answered is in its cache for the next try)."""
    if outcome.stopped:
        raise RagEvalError(f"the judge stopped: {outcome.stopped}; nothing written")


def _redacted(case: Generated, redactor: Any) -> Generated:
    """A case without any secret the run knows (a judge may quote one it was sent)."""
    from dataclasses import replace

    turns = tuple(
        replace(t, question=redactor.text(t.question), ground_truth=redactor.text(t.ground_truth))
        for t in case.turns
    )
    truth = None if case.ground_truth is None else redactor.text(case.ground_truth)
    return replace(case, question=redactor.text(case.question), ground_truth=truth, turns=turns)
