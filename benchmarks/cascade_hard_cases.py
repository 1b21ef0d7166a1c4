"""The cascade on the hard cases with a perfect LLM tier: how many rows it gets right, and
how many it asks the LLM tier about, per task.

The LLM tier is the stand-in of
``tests/integration/judges/local/test_cascade_hard_cases.py`` (it answers every question as
the row's label says), so the cascade is wrong only where the local judge decided wrong, and
the rows it asks about are those the local judge leaves undecided. The test checks the
bounds (no row wrong, at most 60 % asked); this prints the numbers:

    python benchmarks/cascade_hard_cases.py
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for tests/

from tests.integration.judges.local.test_cascade_hard_cases import (
    cascade_on,
    hard_cases,
)

from rag_eval_pytest.judges.local import LocalJudge


def main() -> int:
    rows = hard_cases()
    outcomes = cascade_on(LocalJudge(), rows)
    total, right, asked = Counter[str](), Counter[str](), Counter[str]()
    for row, (correct, llm) in zip(rows, outcomes, strict=True):
        total[row["task"]] += 1
        right[row["task"]] += correct
        asked[row["task"]] += llm
    print("| task | rows | right | asked the LLM tier |")
    print("|---|---|---|---|")
    for task in sorted(total):
        print(f"| {task} | {total[task]} | {right[task]} | {asked[task]} |")
    share = sum(asked.values()) / len(rows)
    print(f"| all | {len(rows)} | {sum(right.values())} | {sum(asked.values())} ({share:.0%}) |")
    return 0 if sum(right.values()) == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
