"""What each check of the local judge is worth: every registered check switched off in turn
(``judge.local.checks: {NAME: false}``), on the tune and held-out halves of every set (the
part of ``judge_accuracy.py`` behind ``--ablate``).

For each check and each set, the forced balanced accuracy (every item decided at its
threshold), the accuracy of the decided rows (those whose verdict does not hang on an item
the judge was unsure of) and their share of the rows (coverage), with every check on and with
that one off, and the change. The sentence vectors are computed once for all the runs (the
same embedder, its vectors kept in memory, and on disk with ``--vectors DIR``): only the
checks and the scoring run again.

A check *pays* on a set's held-out half when switching it off lowers the forced balanced
accuracy, the decided accuracy or, at a decided accuracy no higher, the coverage; one that
pays on no held-out half is named by :func:`unpaid` (the rule in benchmarks/README.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_eval_pytest.judges.local.pipeline import CHECK_NAMES

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from rag_eval_pytest.judges.local import LocalJudge

Row = dict[str, Any]
Verdicts = tuple[bool, bool | None]
"""A row's forced verdict, and its decided verdict (``None``: unsure)."""
CONCURRENCY = 64
RELEVANCE_TASKS = ("answer_relevance", "context_relevance")
"""No check reads these: their verdicts are measured once, with every check on."""


@dataclass(frozen=True)
class Half:
    """One half of one set: its rows, each scored by its own task's metric."""

    name: str
    half: str
    rows: list[Row]

    @property
    def checked(self) -> bool:
        """Whether a check reads any of its rows (a relevance row reads none)."""
        return any(str(r.get("task")) not in RELEVANCE_TASKS for r in self.rows)


@dataclass(frozen=True)
class Measured:
    """A half's numbers: forced balanced accuracy, decided accuracy, coverage."""

    forced: float
    decided: float | None
    coverage: float

    def cells(self, base: Measured | None = None) -> str:
        """The three numbers, each with its change from ``base``."""
        decided = "n/a" if self.decided is None else f"{self.decided:.3f}"
        if base is None:
            return f"{self.forced:.3f} | {decided} | {self.coverage:.2f}"
        return (
            f"{self.forced:.3f} ({self.forced - base.forced:+.3f}) | {decided}"
            f"{_change(self.decided, base.decided)} | {self.coverage:.2f} "
            f"({self.coverage - base.coverage:+.2f})"
        )

    def worse_than(self, base: Measured) -> bool:
        """Whether these numbers (a check off) are worse than ``base`` (every check on):
        the check pays."""
        if self.forced < base.forced - 1e-9:
            return True
        mine, theirs = self.decided or 0.0, base.decided or 0.0
        if mine < theirs - 1e-9:
            return True
        return mine <= theirs + 1e-9 and self.coverage < base.coverage - 1e-9


def _change(value: float | None, base: float | None) -> str:
    if value is None or base is None:
        return ""
    return f" ({value - base:+.3f})"


def measured(verdicts: list[Verdicts], labels: list[int]) -> Measured:
    from fitting import balanced

    forced = balanced([f for f, _ in verdicts], labels)
    kept = [(d, y) for (_, d), y in zip(verdicts, labels, strict=True) if d is not None]
    right = sum(d == bool(y) for d, y in kept)
    return Measured(forced, right / len(kept) if kept else None, len(kept) / len(labels))


Judges = tuple["LocalJudge", "LocalJudge"]
"""A judge as a run has it, and the same judge forced (every item decided)."""
if TYPE_CHECKING:
    Score = Callable[[Judges, str, Row], Awaitable[Verdicts]]


async def measure_half(judge: Judges, half: Half, score: Score) -> Measured:
    """The half's numbers with ``judge``, every row scored by its task's metric."""
    slots = asyncio.Semaphore(CONCURRENCY)

    async def one(row: Row) -> Verdicts:
        async with slots:
            verdicts: Verdicts = await score(judge, str(row["task"]), row)
            return verdicts

    verdicts = await asyncio.gather(*(one(r) for r in half.rows))
    return measured(list(verdicts), [int(r["label"]) for r in half.rows])


Table = dict[str, dict[tuple[str, str], Measured]]
"""The numbers of each configuration ("" for every check on, else the check off), by (set,
half)."""


async def ablate(
    make: Callable[[frozenset[str]], Judges], halves: list[Half], score: Score
) -> Table:
    """Every half measured with every check on, then with each check off in turn (the halves
    no check reads only once); each line printed as it is measured."""
    table: Table = {}
    for off in ("", *CHECK_NAMES):
        judge = make(frozenset({off}) if off else frozenset())
        table[off] = {}
        for half in halves:
            if off and not half.checked:
                continue
            result = await measure_half(judge, half, score)
            table[off][(half.name, half.half)] = result
            base = table[""].get((half.name, half.half)) if off else None
            print(f"  {off or 'every check on'}: {half.name} {half.half}: {result.cells(base)}")
    return table


def print_table(table: Table, halves: list[Half]) -> None:
    """Every check on, then what switching each one off changes: one column per set and
    half that a check reads, each cell the change of the forced balanced accuracy, the
    decided accuracy and the coverage."""
    base = table[""]
    keys = list(base)
    checked = [k for k in keys if any(k in results for off, results in table.items() if off)]
    print("\n| | " + " | ".join(f"{name}, {half}" for name, half in checked) + " |")
    print("|---|" + "---|" * len(checked))
    print("| every check on | " + " | ".join(_plain(base[k]) for k in checked) + " |")
    for off, results in table.items():
        if off:
            cells = [_delta(results[k], base[k]) for k in checked]
            print(f"| {off} off | " + " | ".join(cells) + " |")
    print(
        "\n(each cell: forced balanced accuracy / decided accuracy / coverage; a check's row: "
        "what switching it off changes)"
    )
    unchecked = sorted({(h.name, h.half) for h in halves if not h.checked})
    for name, half in unchecked:
        print(f"no check reads {name}, {half}: {_plain(base[(name, half)])}")


def _plain(result: Measured) -> str:
    decided = "n/a" if result.decided is None else f"{result.decided:.3f}"
    return f"{result.forced:.3f} / {decided} / {result.coverage:.2f}"


def _delta(result: Measured, base: Measured) -> str:
    decided = _change(result.decided, base.decided).strip(" ()") or "n/a"
    return (
        f"{result.forced - base.forced:+.3f} / {decided} / {result.coverage - base.coverage:+.2f}"
    )


def unpaid(table: Table) -> list[str]:
    """The checks that pay on no held-out half: switching one off makes no held-out half's
    numbers worse."""
    base = table[""]
    return [
        off
        for off, results in table.items()
        if off
        and not any(
            result.worse_than(base[key]) for key, result in results.items() if key[1] == "held-out"
        )
    ]
