"""Accuracy and speed of the local (offline) judge on human-labelled (or by-construction) sets.

Each row (``question``, ``contexts``, ``answer``, ``label``) is scored the way a user's run
scores it: the judge comes from the plugin's factory (``judge.kind: local``) and the score
from the plugin's metric code, every row of a set concurrently (as the plugin prefetches):

* ``faithfulness`` sets (label 1: the answer is supported by the contexts): the faithfulness
  score; predicted faithful at the metric's default threshold (0.7). ROC AUC is computed on
  the mean of the claims' support probabilities (the calibrated probabilities behind the
  verdicts: the metric's score made continuous); the weakest claim's is printed too;
* ``answer_relevance`` sets (label 1: the text answers the question): the answer relevance
  score, predicted relevant at the metric's default threshold (0.7);
* ``context_relevance`` sets (label 1: the passage is relevant): the context relevance score
  of the passage (share of its sentences needed for the question), predicted relevant at the
  metric's default threshold (0.1: a passage of up to ten sentences with one needed). ROC AUC
  is computed on the strongest sentence's score, the continuous form of that verdict (chosen
  on the tune half of TREC DL: 0.794 against 0.717 on the share); the share's is printed too.

Each row's verdict is given twice: *forced* (the judge without its unsure bands, every item
decided at its threshold: the balanced accuracy, F1 and ROC AUC columns) and as a run gets it
with the bands (*decided*: the balanced accuracy of the rows whose verdict does not depend on
an item the judge was unsure of, and their share of the rows, the coverage). Beside them, the
overlap baseline: the share of content words in common (see :func:`lexical_overlap`), its
threshold chosen on the other half of the set.

Each set is split in two halves by group (question, pair or source passage, ordered by
sha256, so both answers to one question fall in the same half): the *tune* half is where the
calibration and thresholds were chosen (``--fit``), the *held-out* half is what is reported.
With ``--fit`` the relevance sets also print the balanced accuracy of the metric's own score
by threshold (how a metric's default threshold is chosen); the faithfulness sets the
balanced accuracy of the metric's verdicts by the support threshold of the shipped model (how
the support threshold is chosen: the table of the refitted model ranks answers by their
weakest claim, where the metric passes an answer when 70 % of its claims are supported); and
every task the decided rows' balanced accuracy and coverage by unsure band, with the band
chosen by the rule of :func:`band_table` (``--band-sets`` names the sets that choose).

The *hard-cases* set (``data/hard_cases.jsonl``, ``--hard``) is hand-written and hand-labelled,
a test set never tuned on: every row, each scored by its own ``task`` metric (answer
correctness against its ``ground_truth`` too), reported with the accuracy on each label and
per ``failure_class``. ``--sets hard_cases`` runs it alone.

For faithfulness sets it also prints the speed against the encoding floor: the time a fresh
encoder takes to encode every distinct answer and context sentence of the set once (the least
work any embedding judge does), beside the time of the whole faithfulness run (medians of
``--repeat`` alternating runs).

Usage::

    python benchmarks/judge_accuracy.py                          # benchmarks/data (HaluEval)
    python benchmarks/judge_accuracy.py --data ../shared/benchmarks --repeat 3
    python benchmarks/judge_accuracy.py --sets hard_cases
    python benchmarks/judge_accuracy.py --data ../shared/benchmarks --split tune --fit \
        --band-sets halueval_qa,lfqa_verification,trec_dl_answer_relevance,\
wikiqa_answer_relevance,trec_dl_context_relevance
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import resource
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.judges.factory import _local_judge
from rag_eval_pytest.judges.local import LocalJudge
from rag_eval_pytest.judges.local.embeddings import LocalEmbedder
from rag_eval_pytest.judges.local.judge import statements_of
from rag_eval_pytest.judges.local.relevance import (
    answer_features,
    sentence_features,
    sentence_relevance,
)
from rag_eval_pytest.judges.local.support import FEATURES, claim_features
from rag_eval_pytest.judges.settings import JudgeSettings
from rag_eval_pytest.metrics.base import MetricResult, Sample, Services
from rag_eval_pytest.metrics.registry import default_threshold, get_metric
from rag_eval_pytest.text.claims import declines, split_claims
from rag_eval_pytest.text.facts import content_words
from rag_eval_pytest.text.sentences import split_sentences

HERE = Path(__file__).parent
CONCURRENCY = 64


# ----------------------------------------------------------------------------- data


def task_of(name: str, row: dict[str, Any]) -> str:
    if row.get("task"):
        return str(row["task"])
    for task in ("answer_relevance", "context_relevance"):
        if task in name:
            return task
    return "faithfulness"


def group_of(row: dict[str, Any]) -> str:
    meta = row.get("meta") or {}
    key = meta.get("pair_id") or meta.get("qid") or row.get("question") or ""
    if row.get("question", "").startswith("Summarize"):  # faithbench: one source, ten summaries
        key = (row.get("contexts") or [""])[0][:200]
    return str(key)


def split(rows: list[dict[str, Any]], half: str) -> list[dict[str, Any]]:
    """The tune or held-out half of a set, by group (never splitting a question)."""
    if half == "all":
        return rows
    groups = sorted({group_of(r) for r in rows}, key=lambda g: hashlib.sha256(g.encode()).digest())
    tune = set(groups[: len(groups) // 2])
    return [r for r in rows if (group_of(r) in tune) == (half == "tune")]


def sample_of(row: dict[str, Any]) -> Sample:
    return Sample(
        case_key=str(row.get("id", "")),
        question=row.get("question") or "",
        ground_truth=row.get("ground_truth") or "",
        answer=row.get("answer") or "",
        contexts=[Context(text=c) for c in row.get("contexts") or []],
        sources=[],
        expected_contexts=None,
    )


# ----------------------------------------------------------------------------- scoring


async def score_row(judge: LocalJudge, task: str, row: dict[str, Any]) -> tuple[float, bool]:
    """(metric score, prediction) of one row, through the plugin's metric code, the judge's
    verdict forced (a judge without an unsure band: every item decided)."""
    services = Services(judge=judge, embed=judge.embed)
    result = await measure(get_metric(task), sample_of(row), services)
    if result.score is None:
        raise RuntimeError(f"{row.get('id')}: not judged: {result.reason}")
    value = float(result.score)
    return value, value >= default_threshold(task)


async def decided_row(judge: LocalJudge, task: str, row: dict[str, Any]) -> bool | None:
    """The verdict of one row at the metric's default threshold with the judge's unsure band,
    as a run gets it: ``None`` when it depends on items the judge was unsure of."""
    services = Services(judge=judge, embed=judge.embed)
    measured = await measure(get_metric(task), sample_of(row), services)
    result = MetricResult.from_measurement("row", task, measured, default_threshold(task))
    if result.undecided:
        return None
    if result.score is None:
        raise RuntimeError(f"{row.get('id')}: not judged: {result.reason}")
    return result.passed


def forced(judge: LocalJudge) -> LocalJudge:
    """The judge without its unsure bands: every item decided at its threshold."""
    return LocalJudge(
        embedder=judge.embedder,
        calibration=replace(judge.calibration, unsure=None),
        relevance_threshold=judge.relevance_threshold,
        answer_model=replace(judge.answer_model, unsure=None),
        sentence_model=replace(judge.sentence_model, unsure=None),
    )


def like(judge: LocalJudge, embedder: LocalEmbedder) -> LocalJudge:
    """A judge with ``judge``'s models, thresholds and bands and another embedder."""
    return LocalJudge(
        embedder=embedder,
        calibration=judge.calibration,
        relevance_threshold=judge.relevance_threshold,
        answer_model=judge.answer_model,
        sentence_model=judge.sentence_model,
    )


async def ranking_score(
    judge: LocalJudge, task: str, row: dict[str, Any], value: float
) -> tuple[float, float]:
    """(the score ROC AUC is computed on, the other one printed beside it): for faithfulness
    the mean of the claims' support probabilities (the expected share of supported claims:
    the metric's score, which has a few levels only, made continuous) and the weakest
    claim's; for context relevance the strongest sentence's score and the metric's (the
    share of needed sentences); else the metric's score twice."""
    if task == "context_relevance":
        services = Services(judge=judge, embed=judge.embed)
        result = await measure(get_metric(task), sample_of(row), services)
        return max((e.score or 0.0 for e in result.evidence), default=0.0), value
    if task != "faithfulness":
        return value, value
    claims = split_claims(row["answer"]) or [row["answer"]]
    question = row.get("question") or ""
    supports = [s.score for s in await judge.support(claims, row["contexts"], question)]
    if not supports:
        return 0.0, 0.0
    return sum(supports) / len(supports), min(supports)


async def score_all(
    judge: LocalJudge, task: str, rows: list[dict[str, Any]]
) -> list[tuple[float, bool]]:
    slots = asyncio.Semaphore(CONCURRENCY)

    async def one(row: dict[str, Any]) -> tuple[float, bool]:
        async with slots:
            return await score_row(judge, task, row)

    return await asyncio.gather(*(one(r) for r in rows))


def auc(scores: list[float], labels: list[int]) -> float | None:
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def lexical_overlap(task: str, row: dict[str, Any]) -> float:
    """The simple baseline a judge must beat: the share of the answer's content words found
    in its contexts (faithfulness), of the question's content words found in the answer
    (answer relevance) or in the passage (context relevance)."""
    question, answer = row.get("question") or "", row.get("answer") or ""
    contexts = "\n".join(row.get("contexts") or [])
    said, source = {
        "faithfulness": (answer, contexts),
        "answer_relevance": (question, answer),
    }.get(task, (question, contexts))
    words = content_words(said)
    return len(words & content_words(source)) / len(words) if words else 1.0


def baseline(task: str, rows: list[dict[str, Any]], others: list[dict[str, Any]]) -> str:
    """The overlap baseline on ``rows``: its balanced accuracy at the threshold that is best
    on ``others`` (the other half of the set), and its ROC AUC."""
    labels = [int(r["label"]) for r in rows]
    scores = [lexical_overlap(task, r) for r in rows]
    other = [lexical_overlap(task, r) for r in others]
    other_labels = [int(r["label"]) for r in others]
    cut = max(
        sorted(set(other)) or [0.5],
        key=lambda t: _balanced([s >= t for s in other], other_labels),
    )
    area = auc(scores, labels)
    return (
        f"{_balanced([s >= cut for s in scores], labels):.3f} | "
        f"{'n/a' if area is None else f'{area:.3f}'}"
    )


def decided_cells(decided: list[bool | None], labels: list[int]) -> str:
    """The balanced accuracy of the verdicts the judge decided, and their share of the rows."""
    kept = [(d, y) for d, y in zip(decided, labels, strict=True) if d is not None]
    if not kept:
        return "n/a | 0.00"
    accuracy = _balanced([d for d, _ in kept], [y for _, y in kept])
    return f"{accuracy:.3f} | {len(kept) / len(labels):.2f}"


def report(
    name: str,
    task: str,
    results: list[tuple[float, bool, float]],
    labels: list[int],
    secs: float,
    extra: str,
) -> str:
    preds = [p for _, p, _ in results]
    tp = sum(p and y == 1 for p, y in zip(preds, labels, strict=True))
    tn = sum((not p) and y == 0 for p, y in zip(preds, labels, strict=True))
    fp = sum(p and y == 0 for p, y in zip(preds, labels, strict=True))
    fn = sum((not p) and y == 1 for p, y in zip(preds, labels, strict=True))
    n = len(labels)
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    area = auc([r for _, _, r in results], labels)
    memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (
        f"| {name} | {task} | {n} | {(tp + tn) / n:.3f} | {(tpr + tnr) / 2:.3f} | {f1:.3f} | "
        f"{'n/a' if area is None else f'{area:.3f}'} | {extra} | {n / secs:.1f} | "
        f"{memory:.0f} MB |"
    )


def fresh_embedder(judge: LocalJudge) -> LocalEmbedder:
    """An embedder with the judge's (already loaded) model and nothing memoised: for
    measuring a set as if it were the first."""
    loaded = judge.embedder
    other = LocalEmbedder(loaded.device, loaded.batch_size, loaded.model_folder)
    other._model = loaded._loaded()
    return other


def encoding_floor(judge: LocalJudge, rows: list[dict[str, Any]]) -> tuple[float, float]:
    """(seconds, CPU seconds) a fresh encoder takes for every distinct answer and context
    sentence once."""
    texts: set[str] = set()
    for row in rows:
        texts.update(split_sentences(row.get("answer") or ""))
        for context in row.get("contexts") or []:
            texts.update(split_sentences(context))
    encoder = fresh_embedder(judge)
    started, cpu = time.perf_counter(), time.process_time()
    encoder.encode(sorted(texts))
    return time.perf_counter() - started, time.process_time() - cpu


def cold_caches() -> None:
    """Empty the memoised text functions of the rules (sentences, words, numbers of a text),
    so that each timed run starts as the first run of a process does."""
    for name, module in list(sys.modules.items()):
        if name.startswith("rag_eval_pytest."):
            for value in list(vars(module).values()):
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clear()


async def timed_run(judge: LocalJudge, rows: list[dict[str, Any]]) -> tuple[float, float]:
    """(seconds, CPU seconds) of one faithfulness run of a fresh judge, caches cold: the
    forced judge, as the first timed run."""
    again = forced(like(judge, fresh_embedder(judge)))
    cold_caches()
    started, cpu = time.perf_counter(), time.process_time()
    await score_all(again, "faithfulness", rows)
    return time.perf_counter() - started, time.process_time() - cpu


async def hard_cases(judge: LocalJudge, path: Path) -> None:
    """Score the hard-cases set (every row, each by its own metric at its default threshold:
    a test set, never tuned on) and print its row, the accuracy on each label and per
    failure class."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    slots = asyncio.Semaphore(CONCURRENCY)

    async def one(row: dict[str, Any]) -> bool:
        async with slots:
            return (await score_row(forced(judge), str(row["task"]), row))[1]

    preds = await asyncio.gather(*(one(r) for r in rows))
    labels = [int(r["label"]) for r in rows]
    right = [p == bool(y) for p, y in zip(preds, labels, strict=True)]
    decided = await asyncio.gather(*(decided_row(judge, str(r["task"]), r) for r in rows))
    wrong_decided = [
        r["id"] for r, d, y in zip(rows, decided, labels, strict=True) if d is not None and d != y
    ]

    def share(keep: list[bool]) -> str:
        hits = [r for r, k in zip(right, keep, strict=True) if k]
        return f"{sum(hits) / len(hits):.3f} ({sum(hits)}/{len(hits)})" if hits else "n/a"

    print(
        f"\nhard cases ({path.name}, {len(rows)} rows, all of them): balanced accuracy "
        f"{_balanced(preds, labels):.3f}; label 1 (pass) {share([y == 1 for y in labels])}, "
        f"label 0 (fail) {share([y == 0 for y in labels])}"
    )
    print(
        f"decided (the unsure band): balanced accuracy and coverage "
        f"{decided_cells(list(decided), labels)}; wrong decided verdicts: "
        f"{', '.join(wrong_decided) or 'none'}"
    )
    print("\n| failure class | metric | rows | right | wrong ids |")
    print("|---|---|---|---|---|")
    for kind in dict.fromkeys(r["failure_class"] for r in rows):
        keep = [r["failure_class"] == kind for r in rows]
        metrics = ", ".join(sorted({r["task"] for r, k in zip(rows, keep, strict=True) if k}))
        wrong = [
            f"{r['id']} ({'pass' if r['label'] else 'fail'})"
            for r, k, ok in zip(rows, keep, right, strict=True)
            if k and not ok
        ]
        print(f"| {kind} | {metrics} | {sum(keep)} | {share(keep)} | {', '.join(wrong)} |")


# ----------------------------------------------------------------------------- fitting


async def features_of(judge: LocalJudge, task: str, row: dict[str, Any]) -> list[list[float]]:
    """The calibration features of a row: per claim (faithfulness), per answer, or per
    context sentence."""
    question = row.get("question") or ""
    if task == "answer_relevance":
        q, a = await judge.embedder.vectors([question, row["answer"]])
        return [answer_features(question, row["answer"], q, a)]
    if task == "context_relevance":
        sentences = [s for c in row["contexts"] for s in split_sentences(c)]
        vectors = await judge.embedder.vectors([question, *sentences])
        return sentence_features(vectors[0], vectors[1:])
    claims, evidence, vectors, question = await judge.read(
        split_claims(row["answer"]) or [row["answer"]], row["contexts"], question
    )
    pairs = zip(claims, vectors, strict=True)
    return [claim_features(c, v, evidence, question)[0] for c, v in pairs]


def fit(
    task: str,
    table_by_set: list[list[tuple[list[list[float]], int]]],
    choosing: list[bool],
) -> None:
    """Fit the logistic model of a task on the tune rows and print it (weights to paste into
    ``judges/local/support.py`` or ``relevance.py``) with the threshold that maximises the
    mean balanced accuracy of the sets."""
    from sklearn.linear_model import LogisticRegression

    table = [row for part in table_by_set for row in part]

    xs: list[list[float]] = []
    ys: list[int] = []
    for rows, label in table:
        if task == "faithfulness" and label == 0:
            # An unfaithful answer has at least one unsupported claim: its weakest one.
            weakest = min(rows, key=lambda f: f[0] + f[1])
            xs.append(weakest)
            ys.append(0)
        else:
            xs += rows
            ys += [label] * len(rows)
    model = LogisticRegression(C=1.0, max_iter=2000).fit(np.array(xs), np.array(ys))

    def row_score(rows: list[list[float]]) -> float:
        p = model.predict_proba(np.array(rows))[:, 1]
        return float(p.min() if task == "faithfulness" else p.max())

    def per_set(threshold: float) -> list[float]:
        return [
            _balanced([row_score(rows) >= threshold for rows, _ in part], [y for _, y in part])
            for part in table_by_set
        ]

    def worst_then_mean(threshold: float) -> tuple[float, float]:
        # The threshold must suit every choosing set: the best worst set, ties broken by
        # the mean.
        cells = [c for c, use in zip(per_set(threshold), choosing, strict=True) if use]
        cells = cells or per_set(threshold)  # none of this task's sets was named
        return round(min(cells), 3), float(np.mean(cells))

    best = max((float(t) for t in np.arange(0.05, 0.96, 0.01)), key=worst_then_mean)
    names = FEATURES if task == "faithfulness" else ()
    scored = " (the refitted model, each answer by its weakest claim)" if names else ""
    print(f"\n{task}: balanced accuracy per set (in file order) by threshold{scored}, these rows")
    for threshold in np.arange(0.3, 0.91, 0.05):
        print(f"  {threshold:.2f}: " + "  ".join(f"{c:.3f}" for c in per_set(threshold)))
    print(f"\n{task}: weights {tuple(round(float(w), 2) for w in model.coef_[0])}")
    if names:
        print("  features " + ", ".join(names))
    print(
        f"  bias {round(float(model.intercept_[0]), 2)}; threshold with the best worst-set "
        f"balanced accuracy: {best:.2f}"
    )


def metric_thresholds(
    task: str, parts: list[list[tuple[float, int]]], choosing: list[bool]
) -> None:
    """Print the balanced accuracy of the metric's own score (per set, in file order) by
    threshold on these rows, and the threshold with the best worst-set balanced accuracy
    (ties: the best mean, then the highest: the strictest that loses nothing on these rows)."""

    def per_set(threshold: float) -> list[float]:
        return [
            _balanced([v >= threshold for v, _ in part], [y for _, y in part]) for part in parts
        ]

    def worst_then_mean(threshold: float) -> tuple[float, float, float]:
        cells = [c for c, use in zip(per_set(threshold), choosing, strict=True) if use]
        cells = cells or per_set(threshold)
        return round(min(cells), 3), round(float(np.mean(cells)), 3), threshold

    candidates = [round(float(t), 2) for t in np.arange(0.05, 1.0, 0.05)]
    print(f"\n{task}: the metric's score, balanced accuracy per set by threshold, these rows")
    for threshold in candidates:
        print(f"  {threshold:.2f}: " + "  ".join(f"{c:.3f}" for c in per_set(threshold)))
    best = max(candidates, key=worst_then_mean)
    print(f"  default threshold with the best worst-set balanced accuracy: {best:.2f}")


@dataclass(frozen=True)
class Item:
    """One item a row's verdict counts, as the judge scores it: a claim, a context sentence
    or the answer's rating. ``fixed`` is the verdict a rule gives it whatever its
    probability (``None``: the probability's, at the cut); ``ruled``: a rule decides it, so
    it is never unsure (a conflict, a number no context states, a sentence that answers the
    question, an answer that declines)."""

    probability: float
    fixed: bool | None
    ruled: bool
    capped: bool = False
    """Never yes by its probability (a number in digits or a replaced word no context
    states): the judge puts it just below the cut."""

    def at(self, cut: float) -> float:
        return min(self.probability, round(cut - 0.01, 4)) if self.capped else self.probability

    def yes(self, cut: float) -> bool:
        return self.fixed if self.fixed is not None else self.at(cut) >= cut

    def unsure(self, band: tuple[float, float] | None, cut: float) -> bool:
        # A capped item the wording alone would pass is no rule's: unsure within the band.
        ruled = self.ruled and not (self.capped and self.probability >= cut)
        return band is not None and not ruled and band[0] <= self.at(cut) < band[1]


async def items_of(judge: LocalJudge, task: str, row: dict[str, Any]) -> list[Item]:
    """The items of a row, read from the judge's own verdicts: the statements faithfulness
    checks (judged at a support threshold of 1, with an unsure band over every probability,
    so that what is still supported or decided was decided by a rule), the answer's rating,
    or each context sentence."""
    question = row.get("question") or ""
    if task == "answer_relevance":
        if declines(row["answer"]):
            return [Item(0.0, False, True)]
        features = (await features_of(judge, task, row))[0]
        return [Item(judge.answer_model.probability(features), None, False)]
    if task == "context_relevance":
        sentences = [s for c in row["contexts"] for s in split_sentences(c)]
        vectors = await judge.embedder.vectors([question, *sentences])
        scores = sentence_relevance(
            question, sentences, vectors[0], vectors[1:], judge.sentence_model
        )
        return [Item(s.probability, True if s.answers else None, s.answers) for s in scores]
    wide = LocalJudge(
        embedder=judge.embedder,
        calibration=replace(judge.calibration, support=1.0, unsure=(0.0, 1.01)),
    )
    claims = statements_of(row["answer"], question)
    items = []
    for verdict in await wide.support(claims, row["contexts"], question):
        gaps = {f.kind for f in verdict.findings if f.severity == "gap"}
        if verdict.verdict == "contradicted" or len(gaps) >= 2:  # a conflict, facts of two kinds
            items.append(Item(verdict.score, False, True))
        elif verdict.verdict == "supported":  # a restatement: supported at any threshold
            items.append(Item(verdict.score, True, True))
        else:  # a number or a date no context states decides it is never unsure
            capped = any(f.in_digits or f.kind == "replaced" for f in verdict.findings)
            items.append(Item(verdict.score, None, not verdict.unsure, capped))
    return items


def cut_of(judge: LocalJudge, task: str) -> float:
    """The probability from which the judge says yes to an item of ``task``."""
    if task == "answer_relevance":
        return judge.answer_model.support
    if task == "context_relevance":
        return judge.relevance_threshold
    return judge.calibration.support


def row_verdicts(
    items: list[Item], cut: float, band: tuple[float, float] | None, threshold: float
) -> tuple[bool, bool | None]:
    """(the forced verdict, the decided verdict or ``None``) of a row whose score is the
    share of its items that are yes, as the metric gives them at ``threshold``: decided when
    counting every unsure item as no still passes, or as yes still fails."""
    yes = [item.yes(cut) for item in items]
    unsure = [item.unsure(band, cut) for item in items]
    sure = sum(y for y, u in zip(yes, unsure, strict=True) if not u)
    low, high = sure / len(items), (sure + sum(unsure)) / len(items)
    forced = sum(yes) / len(items) >= threshold
    return forced, (True if low >= threshold else False if high < threshold else None)


def band_table(
    task: str,
    parts: list[tuple[str, list[tuple[list[Item], int]]]],
    cut: float,
    choosing: list[bool],
) -> None:
    """Print, for the bands ``[low, high)`` around the cut on a 0.01 grid, the balanced
    accuracy and coverage of each set's decided rows (the metric's verdicts at its default
    threshold), and the band chosen: of the bands that decide at least 60 % of the rows of
    every choosing set, the one with the best worst-set balanced accuracy of the decided
    rows (ties: the best worst-set coverage, then the narrowest band)."""
    threshold = default_threshold(task)
    found: dict[tuple[float, float] | None, list[tuple[float, float]]] = {}

    def cells(band: tuple[float, float] | None) -> list[tuple[float, float]]:
        if band not in found:
            found[band] = []
            for _, rows in parts:
                decided = [(row_verdicts(items, cut, band, threshold)[1], y) for items, y in rows]
                kept = [(d, y) for d, y in decided if d is not None]
                accuracy = _balanced([d for d, _ in kept], [y for _, y in kept]) if kept else 0.0
                found[band].append((round(accuracy, 3), round(len(kept) / len(rows), 3)))
        return found[band]

    def rank(band: tuple[float, float] | None) -> tuple[float, float, float]:
        chosen = [c for c, use in zip(cells(band), choosing, strict=True) if use]
        chosen = chosen or cells(band)
        if min(c for _, c in chosen) < 0.6:
            return (-1.0, 0.0, 0.0)
        width = 0.0 if band is None else band[1] - band[0]
        return (min(a for a, _ in chosen), min(c for _, c in chosen), -width)

    grid = [round(0.01 * i, 2) for i in range(101)]
    bands: list[tuple[float, float] | None] = [None] + [
        (low, high) for low in grid for high in grid if low < cut < high
    ]
    forced = [
        sum(row_verdicts(items, cut, None, threshold)[0] == bool(y) for items, y in rows)
        for _, rows in parts
    ]
    print(
        f"\n{task}: unsure bands at the cut {cut:.2f}, decided rows' balanced accuracy / "
        "coverage per set (the ten best by the rule, and none)"
    )
    print(
        "  sets: "
        + ", ".join(
            f"{name}{'' if use else ' (not choosing)'}: {right} of {len(rows)} right forced"
            for (name, rows), right, use in zip(parts, forced, choosing, strict=True)
        )
    )
    ranked = sorted(bands, key=rank, reverse=True)
    for band in [*ranked[:10], *([None] if None not in ranked[:10] else [])]:
        shown = "none" if band is None else f"{band[0]:.2f}-{band[1]:.2f}"
        print(f"  {shown}: " + "  ".join(f"{a:.3f} / {c:.2f}" for a, c in cells(band)))
    best = ranked[0]
    shown = "none" if best is None else f"[{best[0]:.2f}, {best[1]:.2f})"
    print(f"  band with the best worst-set balanced accuracy of the decided rows: {shown}")


def support_thresholds(
    parts: list[tuple[str, list[tuple[list[Item], int]]]], choosing: list[bool]
) -> None:
    """Print the balanced accuracy of the faithfulness metric's verdicts (at its default
    threshold, every claim decided) per set by the support threshold of the shipped model,
    and the threshold with the best worst-set balanced accuracy (ties: the best mean)."""
    threshold = default_threshold("faithfulness")

    def per_set(cut: float) -> list[float]:
        return [
            _balanced(
                [row_verdicts(items, cut, None, threshold)[0] for items, _ in rows],
                [y for _, y in rows],
            )
            for _, rows in parts
        ]

    def worst_then_mean(cut: float) -> tuple[float, float]:
        cells = [c for c, use in zip(per_set(cut), choosing, strict=True) if use]
        cells = cells or per_set(cut)
        return round(min(cells), 3), round(float(np.mean(cells)), 3)

    candidates = [round(0.4 + 0.02 * i, 2) for i in range(26)]
    print(
        "\nfaithfulness: the metric's verdicts (share of supported claims >= "
        f"{threshold}), balanced accuracy per set by support threshold, shipped model"
    )
    print("  sets: " + ", ".join(name for name, _ in parts))
    for cut in candidates:
        print(f"  {cut:.2f}: " + "  ".join(f"{c:.3f}" for c in per_set(cut)))
    best = max(candidates, key=worst_then_mean)
    print(f"  support threshold with the best worst-set balanced accuracy: {best:.2f}")


def _balanced(preds: list[bool], labels: list[int]) -> float:
    pos = [p for p, y in zip(preds, labels, strict=True) if y == 1]
    neg = [not p for p, y in zip(preds, labels, strict=True) if y == 0]
    return (sum(pos) / max(1, len(pos)) + sum(neg) / max(1, len(neg))) / 2


# ----------------------------------------------------------------------------- main


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, default=HERE / "data", help="folder of <set>/dev.jsonl"
    )
    parser.add_argument("--sets", default="", help="comma-separated set names (default: all)")
    parser.add_argument("--split", choices=("held-out", "tune", "all"), default="held-out")
    parser.add_argument("--limit", type=int, default=0, help="rows per set (0: all)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time each faithfulness run and its floor this many times, alternately, and "
        "report the medians (the machine's load varies)",
    )
    parser.add_argument("--fit", action="store_true", help="fit the calibration on these rows")
    parser.add_argument(
        "--threshold-sets",
        default="",
        help="with --fit: the sets whose worst balanced accuracy chooses the threshold "
        "(default: all)",
    )
    parser.add_argument(
        "--band-sets",
        default="",
        help="with --fit: the sets whose decided rows choose each task's unsure band "
        "(default: all)",
    )
    parser.add_argument(
        "--hard",
        type=Path,
        default=HERE / "data" / "hard_cases.jsonl",
        help="the hard-cases set, scored whole beside the sets (name it in --sets as "
        "hard_cases to run it alone)",
    )
    options = parser.parse_args()
    judge = _local_judge(JudgeSettings(kind="local"))
    assert isinstance(judge, LocalJudge)
    await judge.embed(["load the model"])
    wanted = {s for s in options.sets.split(",") if s}
    floors: list[tuple[str, int, float, float, float, float]] = []
    tables: dict[str, list[list[tuple[list[list[float]], int]]]] = {}
    band_parts: dict[str, list[tuple[str, list[tuple[list[Item], int]]]]] = {}
    banding: dict[str, list[bool]] = {}
    band_sets = {s for s in options.band_sets.split(",") if s}
    metric_scores: dict[str, list[list[tuple[float, int]]]] = {}
    choosing: dict[str, list[bool]] = {}
    deciders = {s for s in options.threshold_sets.split(",") if s}
    print(f"judge: {judge.describe()}; rows: {options.split} half of each set\n")
    print(
        "| set | task | rows | accuracy | balanced acc. | F1 | ROC AUC | decided: balanced acc. "
        "| decided: coverage | overlap baseline: balanced acc. | overlap baseline: ROC AUC "
        "| rows/s | peak memory |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in sorted(options.data.glob("*/dev.jsonl")):
        name = path.parent.name
        if wanted and name not in wanted:
            continue
        every = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        rows = split(every, options.split)
        others = [r for r in every if r not in rows] if options.split != "all" else every
        if options.limit:
            rows = rows[: options.limit]
        task = task_of(name, rows[0])
        fresh = like(judge, fresh_embedder(judge))  # nothing memoised from other sets
        cold_caches()
        started, cpu = time.perf_counter(), time.process_time()
        scored = await score_all(forced(fresh), task, rows)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        rankings = [
            await ranking_score(fresh, task, r, v) for r, (v, _) in zip(rows, scored, strict=True)
        ]
        results = [(v, p, r) for (v, p), (r, _) in zip(scored, rankings, strict=True)]
        labels = [int(r["label"]) for r in rows]
        decided = await asyncio.gather(*(decided_row(fresh, task, r) for r in rows))
        extra = f"{decided_cells(decided, labels)} | {baseline(task, rows, others)}"
        print(report(name, task, results, labels, seconds, extra), flush=True)
        instead = {
            "faithfulness": "the weakest claim's support",
            "context_relevance": "the metric's score (the share of needed sentences)",
        }
        if task in instead:
            other = auc([w for _, w in rankings], labels)
            print(f"  {name}: ROC AUC on {instead[task]} instead: {other:.3f}")
        if task == "faithfulness":
            runs, bases = [(seconds, cpu)], [encoding_floor(judge, rows)]
            for _ in range(options.repeat - 1):
                runs.append(await timed_run(judge, rows))
                bases.append(encoding_floor(judge, rows))
            floors.append((name, len(rows), *np.median(runs, axis=0), *np.median(bases, axis=0)))
        if options.fit:
            feats = [await features_of(fresh, task, r) for r in rows]
            tables.setdefault(task, []).append(list(zip(feats, labels, strict=True)))
            values = [v for v, _ in scored]
            metric_scores.setdefault(task, []).append(list(zip(values, labels, strict=True)))
            choosing.setdefault(task, []).append(not deciders or name in deciders)
            items = [await items_of(fresh, task, r) for r in rows]
            cut = cut_of(fresh, task)
            wrong = sum(
                row_verdicts(i, cut, None, default_threshold(task))[0] != p
                for i, (_, p) in zip(items, scored, strict=True)
            )
            print(
                f"  {name}: the items give the metric's forced verdict on "
                f"{len(rows) - wrong} of {len(rows)} rows",
                flush=True,
            )
            band_parts.setdefault(task, []).append((name, list(zip(items, labels, strict=True))))
            banding.setdefault(task, []).append(not band_sets or name in band_sets)
    if not wanted or "hard_cases" in wanted:
        await hard_cases(like(judge, fresh_embedder(judge)), options.hard)
    if floors:
        print(
            "\n| set | rows | faithfulness run | encoding floor | ratio | run, CPU | floor, CPU "
            "| CPU ratio |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for name, n, seconds, cpu, floor, floor_cpu in floors:
            print(
                f"| {name} | {n} | {seconds:.2f} s | {floor:.2f} s | {seconds / floor:.2f} x "
                f"| {cpu:.2f} s | {floor_cpu:.2f} s | {cpu / floor_cpu:.2f} x |"
            )
    for task, table in tables.items():
        fit(task, table, choosing[task])
        if task != "faithfulness":
            metric_thresholds(task, metric_scores[task], choosing[task])
        else:
            support_thresholds(band_parts[task], choosing[task])
        band_table(task, band_parts[task], cut_of(judge, task), banding[task])


if __name__ == "__main__":
    asyncio.run(main())
