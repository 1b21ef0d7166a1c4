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
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from .base import JudgeOutcome, Usage
from .parsing import is_verdict_annotation

VerdictKey = tuple[Hashable, ...]


def verdicts(value: BaseModel) -> dict[VerdictKey, Hashable]:
    """The verdicts of an output object, by stable key."""
    out: dict[VerdictKey, Hashable] = {}
    fields = type(value).model_fields
    for name, info in fields.items():
        field_value = getattr(value, name)
        if is_verdict_annotation(info.annotation):
            out[(name,)] = field_value
        elif isinstance(field_value, list):
            for position, item in enumerate(field_value):
                if not isinstance(item, BaseModel):
                    continue
                item_key = getattr(item, "index", position)
                for sub, sub_info in type(item).model_fields.items():
                    if is_verdict_annotation(sub_info.annotation):
                        out[(name, item_key, sub)] = getattr(item, sub)
    return out


async def vote(
    run_pass: Callable[[int], Awaitable[JudgeOutcome[Any]]],
    passes: int,
    settled: Callable[[list[Any]], bool] | None = None,
) -> JudgeOutcome[Any]:
    """Run up to ``passes`` passes of one question and combine them. ``settled`` says whether
    every answer the remaining passes could still make gives the same outcome (the asking
    metric's pass or fail): then no further pass is asked, and the notes say so."""
    if passes <= 1:
        outcome = await run_pass(0)
        if outcome.judged and outcome.agreement is None:
            return JudgeOutcome(outcome.value, outcome.reason, outcome.usage, outcome.notes, 1.0)
        return outcome
    majority = passes // 2 + 1
    outcomes = list(await asyncio.gather(*(run_pass(i) for i in range(majority))))
    while len(outcomes) < passes and not _decided(outcomes, majority):
        if settled is not None and _cannot_change(outcomes, majority, settled):
            combined = _combine(outcomes, passes)
            note = f"{passes - len(outcomes)} more vote(s) {NOT_ASKED}"
            return replace(combined, notes=(*combined.notes, note))
        outcomes.append(await run_pass(len(outcomes)))
    return _combine(outcomes, passes)


NOT_ASKED = "not asked: they could not change the verdict at its threshold"


def stopped_early(outcome: JudgeOutcome[Any]) -> bool:
    """Whether the votes stopped because no further one could change the asking metric's
    verdict: the outcome holds for that metric and threshold only (not to be kept for
    another)."""
    return any(note.endswith(NOT_ASKED) for note in outcome.notes)


_MOST_OPEN = 6
"""Undecided verdicts beyond which the possible answers are not enumerated (2^6 of them)."""


def _cannot_change(
    outcomes: list[JudgeOutcome[Any]], majority: int, settled: Callable[[list[Any]], bool]
) -> bool:
    """Whether every way the verdicts without a majority yet could still go gives the same
    outcome: each such verdict may end as any value a pass gave it."""
    judged = [o.value for o in outcomes if o.value is not None]
    if len(judged) != len(outcomes):
        return False
    shapes = {frozenset(verdicts(v)) for v in judged}
    if len(shapes) != 1:  # passes of different shapes: left to the votes
        return False
    by_pass = [verdicts(v) for v in judged]
    fixed: dict[VerdictKey, Hashable] = {}
    open_keys: list[tuple[VerdictKey, list[Hashable]]] = []
    for key in sorted(next(iter(shapes)), key=repr):
        counts = Counter(v[key] for v in by_pass)
        value, count = counts.most_common(1)[0]
        if count >= majority:
            fixed[key] = value
        else:
            open_keys.append((key, sorted(counts, key=repr)))
    if not open_keys or len(open_keys) > _MOST_OPEN:
        return False
    candidates = [
        _assemble(judged, {**fixed, **dict(zip([k for k, _ in open_keys], chosen, strict=True))})
        for chosen in itertools.product(*(values for _, values in open_keys))
    ]
    return settled(candidates)


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
    notes: list[str] = []
    for index, outcome in enumerate(outcomes):
        for note in outcome.notes:
            if note not in notes:
                notes.append(note)
        if outcome.value is None:
            notes.append(f"pass {index + 1} of {passes} not judged: {outcome.reason}")
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
