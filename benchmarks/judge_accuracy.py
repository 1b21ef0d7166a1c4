"""Accuracy of the offline judge against human-labelled (or by-construction) dev sets.

For each row (``question``, ``contexts``, ``answer``, ``label``) the offline judge scores what
the set measures, through the same metric code the plugin runs:

* ``faithfulness`` sets (label 1 = the answer is supported by the contexts): the faithfulness
  score of the answer; predicted faithful when every claim is supported (score 1.0);
* ``answer_relevance`` sets (label 1 = the answer answers the question): the answer
  relevance score, predicted relevant at >= 0.5;
* ``context_relevance`` sets (label 1 = the passage is relevant): the context relevance of the
  passage, predicted relevant when > 0.

Prints accuracy, balanced accuracy, F1 of the positive class and ROC AUC of the score, and the
time per row. For faithfulness sets it also prints the speed against the floor of any
embedding judge: encoding every answer and context sentence of the set once, in one batch,
with the same encoder (a fresh one, so nothing is memoised). Usage::

    python benchmarks/judge_accuracy.py                       # the sets in benchmarks/data
    python benchmarks/judge_accuracy.py --data DIR [--offset N] [--limit N]
        # any folder of <set>/dev.jsonl; --offset 100 skips the rows the thresholds were tuned on

A set's task is read from its rows' ``task`` field, else from its name.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from rag_eval_pytest.judges.offline import OfflineJudge
from rag_eval_pytest.judges.offline.embeddings import LocalEmbedder
from rag_eval_pytest.metrics.base import Sample, Services
from rag_eval_pytest.metrics.registry import get_metric
from rag_eval_pytest.response import Context
from rag_eval_pytest.session import measure
from rag_eval_pytest.text.sentences import split_sentences

HERE = Path(__file__).parent


def task_of(name: str, row: dict[str, Any]) -> str:
    if row.get("task"):
        return str(row["task"])
    for task in ("answer_relevance", "context_relevance"):
        if task in name:
            return task
    return "faithfulness"


async def score(judge: OfflineJudge, task: str, row: dict[str, Any]) -> tuple[float, bool]:
    contexts = [Context(text=c) for c in row.get("contexts") or []]
    sample = Sample(
        case_key=str(row.get("id", "")),
        question=row.get("question") or "",
        ground_truth="",
        answer=row.get("answer") or "",
        contexts=contexts,
        sources=[],
        expected_contexts=None,
    )
    services = Services(judge=judge, embed=judge.embed)
    metric = {
        "faithfulness": "faithfulness",
        "answer_relevance": "answer_relevance",
        "context_relevance": "context_relevance",
    }[task]
    result = await measure(get_metric(metric), sample, services)
    value = 0.0 if result.score is None else result.score
    if task == "faithfulness":
        return value, value >= 1.0
    if task == "answer_relevance":
        return value, value >= 0.5
    return value, value > 0.0


def encoding_floor(rows: list[dict[str, Any]]) -> float:
    """Seconds to encode every distinct answer and context sentence of ``rows`` once."""
    texts: set[str] = set()
    for row in rows:
        texts.update(split_sentences(row.get("answer") or ""))
        for context in row.get("contexts") or []:
            texts.update(split_sentences(context))
    encoder = LocalEmbedder()
    encoder.encode(["warm up"])
    started = time.perf_counter()
    encoder.encode(sorted(texts))
    return time.perf_counter() - started


def auc(scores: list[float], labels: list[int]) -> float | None:
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def report(
    name: str, task: str, scores: list[float], preds: list[bool], labels: list[int], seconds: float
) -> str:
    tp = sum(p and y == 1 for p, y in zip(preds, labels, strict=True))
    tn = sum((not p) and y == 0 for p, y in zip(preds, labels, strict=True))
    fp = sum(p and y == 0 for p, y in zip(preds, labels, strict=True))
    fn = sum((not p) and y == 1 for p, y in zip(preds, labels, strict=True))
    n = len(labels)
    accuracy = (tp + tn) / n
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    area = auc(scores, labels)
    return (
        f"| {name} | {task} | {n} | {accuracy:.3f} | {(tpr + tnr) / 2:.3f} | {f1:.3f} | "
        f"{'n/a' if area is None else f'{area:.3f}'} | {seconds / n * 1000:.0f} ms |"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--limit", type=int, default=0, help="rows per set (0: all)")
    parser.add_argument(
        "--offset", type=int, default=0, help="skip the first rows (held out from tuning)"
    )
    options = parser.parse_args()
    floors: list[tuple[str, float, float]] = []
    print("| set | task | rows | accuracy | balanced acc. | F1 | ROC AUC | time per row |")
    print("|---|---|---|---|---|---|---|---|")
    for path in sorted(options.data.glob("*/dev.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        rows = rows[options.offset :]
        if options.limit:
            rows = rows[: options.limit]
        task = task_of(path.parent.name, rows[0])
        fresh = OfflineJudge(embedder=LocalEmbedder())  # nothing memoised from other sets
        await fresh.embed(["warm up"])
        started = time.perf_counter()
        results = [await score(fresh, task, row) for row in rows]
        seconds = time.perf_counter() - started
        if task == "faithfulness":
            floors.append((path.parent.name, seconds, encoding_floor(rows)))
        print(
            report(
                path.parent.name,
                task,
                [s for s, _ in results],
                [p for _, p in results],
                [int(r["label"]) for r in rows],
                seconds,
            ),
            flush=True,
        )
    print()
    print("| set | faithfulness run | encoding floor | ratio |")
    print("|---|---|---|---|")
    for name, seconds, floor in floors:
        print(f"| {name} | {seconds:.2f} s | {floor:.2f} s | {seconds / floor:.2f} |")


if __name__ == "__main__":
    asyncio.run(main())
