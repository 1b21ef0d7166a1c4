"""The local judge never ranks below the simple baseline it must beat: the share of the
answer's content words found in its contexts. On each half of the shipped HaluEval sample
(split by question, as benchmarks/judge_accuracy.py splits it), the ROC AUC of the judge's
weakest-claim support score is at least the baseline's."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.judges.local.claims import split_claims
from rag_eval_pytest.text.words import content_words

ROWS = Path(__file__).parents[4] / "benchmarks" / "data" / "halueval_qa" / "dev.jsonl"


def halves() -> dict[str, list[dict[str, Any]]]:
    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines() if line]
    questions = sorted(
        {r["question"] for r in rows}, key=lambda q: hashlib.sha256(q.encode()).digest()
    )
    tune = set(questions[: len(questions) // 2])
    return {
        "tune": [r for r in rows if r["question"] in tune],
        "held-out": [r for r in rows if r["question"] not in tune],
    }


def auc(scores: list[float], labels: list[int]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def overlap(row: dict[str, Any]) -> float:
    said = content_words(row["answer"])
    return len(said & content_words("\n".join(row["contexts"]))) / len(said) if said else 1.0


@pytest.mark.parametrize("half", ["tune", "held-out"])
def test_the_judge_ranks_at_least_as_well_as_word_overlap(local_judge: Any, half: str) -> None:
    rows = halves()[half]

    async def weakest(row: dict[str, Any]) -> float:
        claims = split_claims(row["answer"]) or [row["answer"]]
        supports = await local_judge.support(claims, row["contexts"], row["question"])
        return min(s.score for s in supports)

    async def all_rows() -> list[float]:
        return list(await asyncio.gather(*(weakest(r) for r in rows)))

    labels = [int(r["label"]) for r in rows]
    judge = auc(asyncio.run(all_rows()), labels)
    baseline = auc([overlap(r) for r in rows], labels)
    assert judge >= baseline, f"{half}: judge ROC AUC {judge:.3f} < overlap {baseline:.3f}"
