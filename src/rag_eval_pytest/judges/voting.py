"""Majority vote over judge passes, per verdict, stopping as soon as the majority is certain.

A *verdict* is every bool or Literal field of the output: top-level ones (``same_information``)
and those of list items, keyed by the item's ``index`` field when it has one, else by its
position. Passes whose outputs have different shapes (another number of statements) cannot
be compared verdict by verdict; the vote counts only passes of the most common shape, and the
others count as disagreeing in the agreement rate.

With N passes the first ``N // 2 + 1`` run together; when they agree on every verdict the vote
is decided and no further request is made (3 passes, first two agree: exactly 2 requests).
Otherwise passes run one at a time until every verdict has a majority of N or N passes ran.
A tie keeps the earliest pass's verdict and says so in the notes.

A pass that failed (an outage, a reply that never validated, a refusal) is no vote. When the
passes that succeeded decide the outcome whatever the failed ones would have said (a majority
of N, or every way they could have gone gives the asking metric the same verdict), the
failure is a note; otherwise the question is not judged, the failure its reason: a verdict
is never decided by fewer votes than the vote rule asks for.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel

from .base import JudgeOutcome, Usage
from .parsing import is_verdict_annotation, verdict_options

VerdictKey = tuple[Hashable, ...]


def verdicts(value: BaseModel) -> dict[VerdictKey, Hashable]:
    """The verdicts of an output object, by stable key."""
    return {key: found for key, found, _ in _verdict_fields(value)}


def _options(value: BaseModel) -> dict[VerdictKey, tuple[Any, ...]]:
    """Every value each verdict of an output object may hold, by stable key."""
    return {key: verdict_options(annotation) for key, _, annotation in _verdict_fields(value)}


def _verdict_fields(value: BaseModel) -> Iterator[tuple[VerdictKey, Hashable, Any]]:
    """Each verdict of an output object: its stable key, its value, its field's annotation."""
    for name, info in type(value).model_fields.items():
        field_value = getattr(value, name)
        if is_verdict_annotation(info.annotation):
            yield (name,), field_value, info.annotation
        elif isinstance(field_value, list):
            yield from _item_verdict_fields(name, field_value)


def _item_verdict_fields(name: str, items: list[Any]) -> Iterator[tuple[VerdictKey, Hashable, Any]]:
    """Each verdict of the items of the list field ``name``, keyed by the item's ``index``
    field when it has one, else by its position."""
    for position, item in enumerate(items):
        if not isinstance(item, BaseModel):
            continue
        item_key = getattr(item, "index", position)
        for sub, sub_info in type(item).model_fields.items():
            if is_verdict_annotation(sub_info.annotation):
                yield (name, item_key, sub), getattr(item, sub), sub_info.annotation


async def vote(
    run_pass: Callable[[int], Awaitable[JudgeOutcome[Any]]],
    passes: int,
    settled: Callable[[list[Any]], bool] | None = None,
) -> JudgeOutcome[Any]:
    """Run up to ``passes`` passes of one question and combine them. ``settled`` says whether
    every answer the remaining passes could still make gives the same outcome (the asking
    metric's pass or fail): then no further pass is asked, and the notes say so. A failed
    pass the outcome depends on leaves the question not judged."""
    if passes <= 1:
        return _single(await run_pass(0))
    majority = passes // 2 + 1
    outcomes = await _first_round(run_pass, majority)
    while len(outcomes) < passes and not _decided(outcomes, majority):
        if settled is not None and _cannot_change(outcomes, passes, settled):
            return _not_asked(outcomes, passes)
        outcomes.append(await run_pass(len(outcomes)))
    return _counted(outcomes, passes, majority, settled)


def _single(outcome: JudgeOutcome[Any]) -> JudgeOutcome[Any]:
    """The outcome of a question asked once: judged, its passes agree."""
    if outcome.judged and outcome.agreement is None:
        return JudgeOutcome(outcome.value, outcome.reason, outcome.usage, outcome.notes, 1.0)
    return outcome


async def _first_round(
    run_pass: Callable[[int], Awaitable[JudgeOutcome[Any]]], majority: int
) -> list[JudgeOutcome[Any]]:
    """The first ``majority`` passes, asked together."""
    return list(await asyncio.gather(*(run_pass(i) for i in range(majority))))


def _not_asked(outcomes: list[JudgeOutcome[Any]], passes: int) -> JudgeOutcome[Any]:
    """The votes so far combined, with a note of the votes left unasked."""
    combined = _combine(outcomes, passes)
    note = f"{passes - len(outcomes)} more vote(s) {NOT_ASKED}"
    return replace(combined, notes=(*combined.notes, note))


NOT_ASKED = "not asked: they could not change the verdict at its threshold"
_FAILED_PASS = re.compile(r"pass \d+ of \d+ not judged: ")


def stopped_early(outcome: JudgeOutcome[Any]) -> bool:
    """Whether the votes stopped because no further one could change the asking metric's
    verdict: the outcome holds for that metric and threshold only (not to be kept for
    another)."""
    return any(note.endswith(NOT_ASKED) for note in outcome.notes)


def failed_a_vote(outcome: JudgeOutcome[Any]) -> bool:
    """Whether a vote of the outcome failed (the others decided it): asked again, that vote
    may succeed, so the outcome is not one to keep."""
    return any(_FAILED_PASS.match(note) for note in outcome.notes)


def _counted(
    outcomes: list[JudgeOutcome[Any]],
    passes: int,
    majority: int,
    settled: Callable[[list[Any]], bool] | None,
) -> JudgeOutcome[Any]:
    """The votes combined, unless one failed that the outcome depends on: then the question
    is not judged, with that failure as its reason."""
    combined = _combine(outcomes, passes)
    failed = any(o.value is None for o in outcomes)
    if not failed or combined.value is None or _decided(outcomes, majority):
        return combined
    if _cannot_change(outcomes, passes, settled):
        return combined
    return _failed_vote(outcomes, passes)


def _failed_vote(outcomes: list[JudgeOutcome[Any]], passes: int) -> JudgeOutcome[Any]:
    """Not judged: votes failed that the verdict depends on."""
    failed = [(i + 1, o) for i, o in enumerate(outcomes) if o.value is None]
    numbers = [str(number) for number, _ in failed]
    reason = (
        f"{_votes_named(numbers)} of {passes} failed and the verdict depends on "
        f"{'it' if len(failed) == 1 else 'them'}: {failed[0][1].reason}"
    )
    stopped = _first_stop([o for _, o in failed])
    usage = _usage(outcomes)
    return JudgeOutcome(None, reason, usage, _pass_notes(outcomes, passes), None, stopped)


def _votes_named(numbers: list[str]) -> str:
    """``vote 2``, ``votes 1 and 3``, ``votes 1, 2 and 3``."""
    if len(numbers) == 1:
        return f"vote {numbers[0]}"
    return f"votes {', '.join(numbers[:-1])} and {numbers[-1]}"


def _first_stop(outcomes: list[JudgeOutcome[Any]]) -> str:
    """Why the judge stopped for the rest of the run, from the first outcome that says so."""
    return next((o.stopped for o in outcomes if o.stopped), "")


def _usage(outcomes: list[JudgeOutcome[Any]]) -> Usage:
    return sum((o.usage for o in outcomes), Usage())


_MOST_CANDIDATES = 256
"""Possible answers beyond which they are not enumerated (each is scored by the metric)."""


def _cannot_change(
    outcomes: list[JudgeOutcome[Any]],
    passes: int,
    settled: Callable[[list[Any]], bool] | None,
) -> bool:
    """Whether the passes not judged (failed, or not asked yet) cannot change the outcome,
    whatever they would say: every verdict can end only one way, or every way the verdicts
    could still end gives the same outcome (``settled``: the asking metric's pass or fail)."""
    possible = _could_end_as(outcomes, passes)
    if possible is None:
        return False
    open_keys = _still_open(possible)
    if not open_keys:
        return True
    if (
        settled is None
        or math.prod(len(values) for values in open_keys.values()) > _MOST_CANDIDATES
    ):
        return False
    return settled(_candidates(outcomes, possible, open_keys))


def _still_open(
    possible: dict[VerdictKey, list[Hashable]],
) -> dict[VerdictKey, list[Hashable]]:
    """The verdicts that could still end more than one way."""
    return {key: values for key, values in possible.items() if len(values) > 1}


def _candidates(
    outcomes: list[JudgeOutcome[Any]],
    possible: dict[VerdictKey, list[Hashable]],
    open_keys: dict[VerdictKey, list[Hashable]],
) -> list[BaseModel]:
    """Every output the vote could still end with: the decided verdicts, and each way the
    open ones could go."""
    judged = [o.value for o in outcomes if o.value is not None]
    fixed = {key: values[0] for key, values in possible.items() if len(values) == 1}
    return [
        _assemble(judged, {**fixed, **dict(zip(open_keys, chosen, strict=True))})
        for chosen in itertools.product(*open_keys.values())
    ]


def _could_end_as(
    outcomes: list[JudgeOutcome[Any]], passes: int
) -> dict[VerdictKey, list[Hashable]] | None:
    """Each verdict's values it could still end with, the passes not judged (failed, or not
    asked yet) giving any answer; ``None`` when no pass was judged or the judged ones differ
    in shape (left to the votes)."""
    votes = _same_shape_votes(outcomes)
    if votes is None:
        return None
    first, by_pass = votes
    unknown = [i for i, o in enumerate(outcomes) if o.value is None]
    unknown += range(len(outcomes), passes)
    options = _options(first)
    return {
        key: _winners([(i, found[key]) for i, found in by_pass], unknown, options[key])
        for key in sorted(by_pass[0][1], key=repr)
    }


def _same_shape_votes(
    outcomes: list[JudgeOutcome[Any]],
) -> tuple[BaseModel, list[tuple[int, dict[VerdictKey, Hashable]]]] | None:
    """The first judged output and each judged pass's verdicts (pass, verdicts); ``None`` when
    no pass was judged or the judged ones differ in shape."""
    judged = [(i, o.value) for i, o in enumerate(outcomes) if o.value is not None]
    by_pass = [(i, verdicts(value)) for i, value in judged]
    if len({frozenset(found) for _, found in by_pass}) != 1:
        return None
    return judged[0][1], by_pass


def _winners(
    cast: list[tuple[int, Hashable]], unknown: list[int], options: tuple[Any, ...]
) -> list[Hashable]:
    """The values a verdict can win with (the most votes; on a tie, the earliest pass's),
    given the votes ``cast`` (pass, value) and the passes whose vote is ``unknown``: a value
    can when it wins with every unknown vote its own."""
    counts: Counter[Hashable] = Counter(value for _, value in cast)
    first: dict[Hashable, int] = {}
    for index, value in cast:
        first.setdefault(value, index)
    earliest_unknown = min(unknown, default=math.inf)
    return [
        value
        for value in sorted(set(counts) | set(options), key=repr)
        if _can_win(value, counts, first, len(unknown), earliest_unknown)
    ]


def _can_win(
    value: Hashable,
    counts: Counter[Hashable],
    first: dict[Hashable, int],
    unknown: int,
    earliest_unknown: float,
) -> bool:
    """Whether ``value`` wins when the ``unknown`` votes not cast are all its own: more votes
    than every other value, or as many and an earlier pass."""
    votes = counts[value] + unknown
    earliest = min(first.get(value, math.inf), earliest_unknown)
    return all(
        votes > count or (votes == count and earliest < first[other])
        for other, count in counts.items()
        if other != value
    )


def _decided(outcomes: list[JudgeOutcome[Any]], majority: int) -> bool:
    """Whether a majority of the passes agree on every verdict (and so on the shape)."""
    cast = _judged_verdicts(outcomes)
    if len(cast) < majority:
        return False
    same_shape = [cast[i] for i in _most_common_shape(cast)]
    if len(same_shape) < majority:
        return False
    return all(
        Counter(v[key] for v in same_shape).most_common(1)[0][1] >= majority
        for key in same_shape[0]
    )


def _judged_verdicts(outcomes: list[JudgeOutcome[Any]]) -> list[dict[VerdictKey, Hashable]]:
    """The verdicts of each judged pass, in the order of the passes."""
    return [verdicts(o.value) for o in outcomes if o.value is not None]


def _most_common_shape(cast: list[dict[VerdictKey, Hashable]]) -> list[int]:
    """The passes (by position in ``cast``) of the most common shape: the same verdict keys;
    on a tie, the shape seen first."""
    shape = Counter(frozenset(v) for v in cast).most_common(1)[0][0]
    return [i for i, v in enumerate(cast) if frozenset(v) == shape]


def _combine(outcomes: list[JudgeOutcome[Any]], passes: int) -> JudgeOutcome[Any]:
    """The majority verdicts of the judged passes of the most common shape, with the notes of
    every pass, of those outvoted and of each tie and disagreement."""
    usage = _usage(outcomes)
    notes = list(_pass_notes(outcomes, passes))
    judged = [o.value for o in outcomes if o.value is not None]
    if not judged:
        return JudgeOutcome(
            None, outcomes[0].reason, usage, tuple(notes), None, _first_stop(outcomes)
        )
    cast = [verdicts(value) for value in judged]
    members = _most_common_shape(cast)
    notes += _outvoted(len(judged) - len(members), len(judged))
    tally = _tally(cast, members)
    value = _assemble([judged[i] for i in members], tally.winners)
    notes += tally.notes
    return JudgeOutcome(value, "", usage, tuple(notes), round(tally.agreement, 4))


def _outvoted(outvoted: int, judged: int) -> list[str]:
    if not outvoted:
        return []
    return [
        f"{outvoted} of {judged} passes returned a different number of verdicts and were outvoted"
    ]


@dataclass(frozen=True)
class _Tally:
    winners: dict[VerdictKey, Hashable]
    notes: list[str]
    agreement: float


def _tally(cast: list[dict[VerdictKey, Hashable]], members: list[int]) -> _Tally:
    """Each verdict's majority over the ``members`` of the passes ``cast`` (those of one
    shape), the notes of ties and disagreements, and the mean share of passes that agreed."""
    same_shape = [cast[i] for i in members]
    judged = len(cast)
    winners: dict[VerdictKey, Hashable] = {}
    notes: list[str] = []
    agreement_sum = 0.0
    disagreed = 0
    keys = sorted(same_shape[0], key=repr)
    for key in keys:
        winners[key], best, tied = _key_winner(same_shape, key)
        if tied:
            notes.append(f"passes tied on {_describe_key(key)}; kept the first pass's verdict")
        agreement_sum += best / judged
        disagreed += best < len(same_shape)
    agreement = agreement_sum / len(keys) if keys else len(same_shape) / judged
    if disagreed:
        notes.append(
            f"judge passes disagreed on {disagreed} of {len(keys)} verdicts; "
            "the majority verdict was kept"
        )
    return _Tally(winners, notes, agreement)


def _key_winner(
    same_shape: list[dict[VerdictKey, Hashable]], key: VerdictKey
) -> tuple[Hashable, int, bool]:
    """The verdict ``key``'s most voted value, its votes, and whether it tied (then the first
    pass's value among the tied wins)."""
    cast = [v[key] for v in same_shape]
    counts = Counter(cast)
    best = max(counts.values())
    first = next(value for value in cast if counts[value] == best)
    tied = sum(count == best for count in counts.values()) > 1
    return first, best, tied


def _pass_notes(outcomes: list[JudgeOutcome[Any]], passes: int) -> tuple[str, ...]:
    """The passes' own notes, once each, and why each pass not judged was not."""
    notes: list[str] = []
    for index, outcome in enumerate(outcomes):
        notes.extend(note for note in outcome.notes if note not in notes)
        if outcome.value is None:
            notes.append(f"pass {index + 1} of {passes} not judged: {outcome.reason}")
    return tuple(notes)


def _assemble(values: list[Any], winners: dict[VerdictKey, Hashable]) -> BaseModel:
    """The first pass's object with each verdict (and its item's reason) from the majority."""
    base: BaseModel = values[0]
    update: dict[str, Any] = {}
    for name in type(base).model_fields:
        items = getattr(base, name)
        if (name,) in winners:
            update[name] = winners[(name,)]
        elif isinstance(items, list) and _has_item_verdicts(name, winners):
            update[name] = [
                _winning_item(item, position, name, values, winners)
                for position, item in enumerate(items)
            ]
    return base.model_copy(update=update)


def _has_item_verdicts(name: str, winners: dict[VerdictKey, Hashable]) -> bool:
    return any(k[0] == name and len(k) == 3 for k in winners)


def _winning_item(
    item: Any, position: int, name: str, values: list[Any], winners: dict[VerdictKey, Hashable]
) -> Any:
    """The item at ``position`` of the list field ``name`` with its winning verdicts: the item
    of the first pass that carries them all (its reason agrees), else this one with them."""
    if not isinstance(item, BaseModel):
        return item
    item_key = getattr(item, "index", position)
    wanted = _item_winners(name, item_key, winners)
    for other in values:
        candidate = _item_keyed(getattr(other, name), item_key)
        if _carries(candidate, wanted):
            return candidate
    return item.model_copy(update=wanted)


def _item_winners(
    name: str, item_key: Hashable, winners: dict[VerdictKey, Hashable]
) -> dict[str, Hashable]:
    """The winning verdicts of one item, by its field's name."""
    return {str(k[2]): v for k, v in winners.items() if k[0] == name and k[1] == item_key}


def _item_keyed(items: list[Any], item_key: Hashable) -> Any:
    """The item of ``items`` keyed ``item_key`` (its ``index``, else its position), if any."""
    return next((c for p, c in enumerate(items) if getattr(c, "index", p) == item_key), None)


def _carries(candidate: Any, wanted: dict[str, Hashable]) -> bool:
    return candidate is not None and all(getattr(candidate, f) == v for f, v in wanted.items())


def _describe_key(key: VerdictKey) -> str:
    if len(key) == 3:
        return f"{key[0]}[{key[1]}].{key[2]}"
    return str(key[0])
