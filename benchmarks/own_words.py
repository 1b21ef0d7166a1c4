"""Each sentence of the benchmark sets' contexts, as the answer against its own context: how
many the local judge's faithfulness fails, leaves unsure or passes.

A sentence copied from its context is supported by construction, so every failed one is a
wrong verdict, with no label to argue about (a question, a heading or a table row copied
whole is no claim and may fail: the script prints each failed sentence, so a reader tells
them apart). A sentence of clauses parted by ";" is tried clause by clause as well.

    python benchmarks/own_words.py --data ../shared/benchmarks
    python benchmarks/own_words.py --data ../shared/benchmarks --sets hard_cases,support_bot_answers
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import judge_accuracy as ja

from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.judges.local import LocalJudge
from rag_eval_pytest.metrics.base import MetricResult, Services
from rag_eval_pytest.metrics.registry import default_threshold, get_metric
from rag_eval_pytest.text.sentences import split_sentences

HARD_CASES = ja.HERE / "data" / "hard_cases.jsonl"
CLAUSE_WORDS = 4
"""The fewest words of a clause parted by ";" tried on its own."""


def contexts_of(paths: list[Path]) -> list[list[str]]:
    """The faithfulness rows' contexts of the sets' files, each once."""
    seen: dict[str, list[str]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row: dict[str, Any] = json.loads(line) if line.strip() else {}
            if row.get("task", "faithfulness") == "faithfulness" and row.get("contexts"):
                seen.setdefault(json.dumps(row["contexts"]), row["contexts"])
    return list(seen.values())


def own_sentences(contexts: list[str]) -> list[str]:
    """The sentences of the contexts, and the clauses of those parted by ";"."""
    found = []
    for sentence in split_sentences(" ".join(contexts)):
        found.append(sentence)
        if ";" in sentence:
            found += [c.strip() for c in sentence.split(";") if len(c.split()) >= CLAUSE_WORDS]
    return found


def set_files(data: Path, names: list[str]) -> list[Path]:
    """The files of the named sets, found as ``judge_accuracy.py`` finds them (``<data>/<set>/
    dev.jsonl``, else the project's own under ``benchmarks/data``), and the hard cases."""
    found = {path.parent.name: path for path in ja.set_files(data)}
    found["hard_cases"] = HARD_CASES
    return [found[name] for name in names if name in found]


async def verdict(judge: LocalJudge, answer: str, contexts: list[str]) -> str:
    """The local judge's faithfulness verdict on one answer: pass, fail or unsure."""
    row = {"question": "", "answer": answer, "contexts": contexts}
    services = Services(judge=judge, embed=judge.embed)
    measured = await measure(get_metric("faithfulness"), ja.sample_of(row), services)
    result = MetricResult.from_measurement(
        "own", "faithfulness", measured, default_threshold("faithfulness")
    )
    return "unsure" if result.undecided else ("pass" if result.passed else "fail")


async def run(files: list[Path]) -> Counter[str]:
    judge = LocalJudge()
    counts: Counter[str] = Counter()
    for contexts in contexts_of(files):
        for sentence in own_sentences(contexts):
            said = await verdict(judge, sentence, contexts)
            counts[said] += 1
            if said == "fail":
                print(f"failed: {sentence[:160]}")
    return counts


def arguments(doc: str | None, sets: str) -> argparse.ArgumentParser:
    """The options this script and ``changed_sentences.py`` share: ``--data`` and ``--sets``
    (comma-separated, ``sets`` by default)."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/benchmarks"))
    parser.add_argument("--sets", default=sets, help="comma-separated sets")
    return parser


def main() -> int:
    parser = arguments(
        __doc__,
        "hard_cases,support_bot_answers,support_bot_answers_more,halueval_qa,"
        "lfqa_verification,faithbench",
    )
    args = parser.parse_args()
    files = set_files(args.data, args.sets.split(","))
    counts = asyncio.run(run(files))
    total = sum(counts.values())
    print(
        f"{total} sentences of their own contexts: {counts['pass']} passed, "
        f"{counts['unsure']} unsure, {counts['fail']} failed"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
