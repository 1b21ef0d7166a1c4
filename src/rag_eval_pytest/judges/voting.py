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
from dataclasses import replace
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
            for position, item in enumerate(field_value):
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
        outcome = await run_pass(0)
        if outcome.judged and outcome.agreement is None:
            return JudgeOutcome(outcome.value, outcome.reason, outcome.usage, outcome.notes, 1.0)
        return outcome
    majority = passes // 2 + 1
    outcomes = list(await asyncio.gather(*(run_pass(i) for i in range(majority))))
    while len(outcomes) < passes and not _decided(outcomes, majority):
        if settled is not None and _cannot_change(outcomes, passes, settled):
            combined = _combine(outcomes, passes)
            note = f"{passes - len(outcomes)} more vote(s) {NOT_ASKED}"
            return replace(combined, notes=(*combined.notes, note))
        outcomes.append(await run_pass(len(outcomes)))
    return _counted(outcomes, passes, majority, settled)


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
    failed = [o for o in outcomes if o.value is None]
    if not failed or combined.value is None or _decided(outcomes, majority):
        return combined
    if _cannot_change(outcomes, passes, settled):
        return combined
    return _failed_vote(outcomes, passes)


def _failed_vote(outcomes: list[JudgeOutcome[Any]], passes: int) -> JudgeOutcome[Any]:
    """Not judged: votes failed that the verdict depends on."""
    failed = [(i + 1, o) for i, o in enumerate(outcomes) if o.value is None]
    numbers = [str(number) for number, _ in failed]
    listed = numbers[0] if len(numbers) == 1 else f"{', '.join(numbers[:-1])} and {numbers[-1]}"
    which = f"vote {listed}" if len(failed) == 1 else f"votes {listed}"
    reason = (
        f"{which} of {passes} failed and the verdict depends on "
        f"{'it' if len(failed) == 1 else 'them'}: {failed[0][1].reason}"
    )
    stopped = next((o.stopped for _, o in failed if o.stopped), "")
    usage = sum((o.usage for o in outcomes), Usage())
    return JudgeOutcome(None, reason, usage, _pass_notes(outcomes, passes), None, stopped)


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
    open_keys = [(key, values) for key, values in possible.items() if len(values) > 1]
    if not open_keys:
        return True
    if settled is None or math.prod(len(values) for _, values in open_keys) > _MOST_CANDIDATES:
        return False
    judged = [o.value for o in outcomes if o.value is not None]
    fixed = {key: values[0] for key, values in possible.items() if len(values) == 1}
    candidates = [
        _assemble(judged, {**fixed, **dict(zip([k for k, _ in open_keys], chosen, strict=True))})
        for chosen in itertools.product(*(values for _, values in open_keys))
    ]
    return settled(candidates)


def _could_end_as(
    outcomes: list[JudgeOutcome[Any]], passes: int
) -> dict[VerdictKey, list[Hashable]] | None:
    """Each verdict's values it could still end with, the passes not judged (failed, or not
    asked yet) giving any answer; ``None`` when no pass was judged or the judged ones differ
    in shape (left to the votes)."""
    judged = [(i, o.value) for i, o in enumerate(outcomes) if o.value is not None]
    if not judged:
        return None
    by_pass = [(i, verdicts(value)) for i, value in judged]
    shapes = {frozenset(found) for _, found in by_pass}
    if len(shapes) != 1:
        return None
    unknown = [i for i, o in enumerate(outcomes) if o.value is None]
    unknown += range(len(outcomes), passes)
    options = _options(judged[0][1])
    return {
        key: _winners([(i, found[key]) for i, found in by_pass], unknown, options[key])
        for key in sorted(next(iter(shapes)), key=repr)
    }


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
    winners = []
    for value in sorted(set(counts) | set(options), key=repr):
        votes = counts[value] + len(unknown)
        earliest = min(first.get(value, math.inf), min(unknown, default=math.inf))
        if all(
            votes > count or (votes == count and earliest < first[other])
            for other, count in counts.items()
            if other != value
        ):
            winners.append(value)
    return winners


def _decided(outcomes: list[JudgeOutcome[Any]], majority: int) -> bool:
    judged = [o for o in outcomes if o.value is not None]
    if len(judged) < majority:
        return False
    shapes = Counter(frozenset(verdicts(o.value)) for o in judged if o.value is not None)
    shape, count = shapes.most_common(1)[0]
    if count < majority:
        return False
    same_shape = [verdicts(o.value) for o in judged if o.value is not None]
    same_shape = [v for v in same_shape if frozenset(v) == shape]
    return all(
        Counter(v[key] for v in same_shape).most_common(1)[0][1] >= majority for key in shape
    )


def _combine(outcomes: list[JudgeOutcome[Any]], passes: int) -> JudgeOutcome[Any]:
    usage = sum((o.usage for o in outcomes), Usage())
    notes = list(_pass_notes(outcomes, passes))
    judged = [o for o in outcomes if o.value is not None]
    if not judged:
        stopped = next((o.stopped for o in outcomes if o.stopped), "")
        return JudgeOutcome(None, outcomes[0].reason, usage, tuple(notes), None, stopped)
    pass_verdicts = [verdicts(o.value) for o in judged if o.value is not None]
    shapes = Counter(frozenset(v) for v in pass_verdicts)
    shape = shapes.most_common(1)[0][0]
    members = [i for i, v in enumerate(pass_verdicts) if frozenset(v) == shape]
    if len(members) < len(judged):
        notes.append(
            f"{len(judged) - len(members)} of {len(judged)} passes returned a different number "
            "of verdicts and were outvoted"
        )
    winners: dict[VerdictKey, Hashable] = {}
    agreement_sum = 0.0
    disagreed = 0
    for key in sorted(shape, key=repr):
        counts = Counter(pass_verdicts[i][key] for i in members)
        ranked = counts.most_common()
        best = ranked[0][1]
        tied = [value for value, count in ranked if count == best]
        if len(tied) > 1:
            first = next(pass_verdicts[i][key] for i in members if pass_verdicts[i][key] in tied)
            winners[key] = first
            notes.append(f"passes tied on {_describe_key(key)}; kept the first pass's verdict")
        else:
            winners[key] = ranked[0][0]
        agreement_sum += best / len(judged)
        disagreed += best < len(members)
    agreement = agreement_sum / len(shape) if shape else len(members) / len(judged)
    value = _assemble([judged[i].value for i in members], winners)
    if disagreed:
        notes.append(
            f"judge passes disagreed on {disagreed} of {len(shape)} verdicts; "
            "the majority verdict was kept"
        )
    return JudgeOutcome(value, "", usage, tuple(notes), round(agreement, 4))


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
        if (name,) in winners:
            update[name] = winners[(name,)]
            continue
        items = getattr(base, name)
        if not isinstance(items, list) or not any(k[0] == name and len(k) == 3 for k in winners):
            continue
        new_items = []
        for position, item in enumerate(items):
            if not isinstance(item, BaseModel):
                new_items.append(item)
                continue
            item_key = getattr(item, "index", position)
            wanted = {str(k[2]): v for k, v in winners.items() if k[0] == name and k[1] == item_key}
            chosen = item
            for other in values:  # prefer a pass whose item carries the winning verdicts
                other_items = getattr(other, name)
                candidate = next(
                    (c for p, c in enumerate(other_items) if getattr(c, "index", p) == item_key),
                    None,
                )
                if candidate is not None and all(
                    getattr(candidate, f) == v for f, v in wanted.items()
                ):
                    chosen = candidate
                    break
            else:
                chosen = item.model_copy(update=wanted)
            new_items.append(chosen)
        update[name] = new_items
    return base.model_copy(update=update)


def _describe_key(key: VerdictKey) -> str:
    if len(key) == 3:
        return f"{key[0]}[{key[1]}].{key[2]}"
    return str(key[0])
