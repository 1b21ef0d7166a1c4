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
calibration and thresholds are chosen (``--fit``), the *held-out* half is what is reported.
``--fit`` (with ``--split tune``) fits the support model, its threshold and its unsure band
on the faithfulness rows of the sets whose licence allows it (``fitting.LICENCES``: HaluEval
and the hard cases), printing each feature's ROC AUC on every set beside it; the other sets
are scored and printed, never fitted on (see ``fitting.py``). ``--kinds`` (with the held-out
halves) prints the precision of each kind of evidence behind the faithfulness verdicts and
the kinds that decide alone; ``--overrides`` the precision of each hand-written rule that
moves a claim's score against the support model (a rule stays at 0.95 or more on the
held-out halves; ``--split tune`` measures it on the tune halves, to report beside them).
``--vectors DIR`` keeps the sentence vectors on disk for every run (the timings then measure
no encoding).
``--without NAME[,NAME]`` switches checks of the local judge off
(``judge.local.checks``), to measure what each is worth.

The project's own sets under ``benchmarks/data`` (the HaluEval sample and the two relevance
sets written for the project, ``own_answer_relevance`` and ``own_context_relevance``) are read
beside ``--data``'s where it has no set of their name; ``--fit`` fits the relevance models on
the tune halves of the relevance sets that may be fitted on (``relevance_fitting.py``).

The *hard-cases* set (``data/hard_cases.jsonl``, ``--hard``) is hand-written and hand-labelled:
every row, each scored by its own ``task`` metric (answer correctness against its
``ground_truth`` too), reported with the accuracy on each label and per ``failure_class``, and
the decided rows of the half asked for (each task's rows split by question, as the other
sets). ``--sets hard_cases`` runs it alone.

For faithfulness sets it also prints the speed against the encoding floor: the time a fresh
encoder takes to encode every distinct answer and context sentence of the set once (the least
work any embedding judge does), beside the time of the whole faithfulness run (medians of
``--repeat`` alternating runs).

Usage::

    python benchmarks/judge_accuracy.py                          # benchmarks/data (HaluEval)
    python benchmarks/judge_accuracy.py --data ../shared/benchmarks --repeat 3
    python benchmarks/judge_accuracy.py --sets hard_cases
    python benchmarks/judge_accuracy.py --data ../shared/benchmarks --split tune --fit \
        --sets halueval_qa,lfqa_verification,faithbench,hard_cases
    python benchmarks/judge_accuracy.py --data ../shared/benchmarks --kinds
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import resource
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import ablation  # benchmarks/ablation.py, beside this script
import fitting  # benchmarks/fitting.py, beside this script
import numpy as np
import relevance_fitting  # benchmarks/relevance_fitting.py, beside this script

from rag_eval_pytest.data.response import Context
from rag_eval_pytest.engine.session import measure
from rag_eval_pytest.judges.factory import _local_judge
from rag_eval_pytest.judges.local import LocalJudge
from rag_eval_pytest.judges.local.claims import split_claims
from rag_eval_pytest.judges.local.embeddings import LocalEmbedder
from rag_eval_pytest.judges.settings import JudgeSettings
from rag_eval_pytest.metrics.base import MetricResult, Sample, Services
from rag_eval_pytest.metrics.registry import default_threshold, get_metric
from rag_eval_pytest.text.sentences import split_sentences
from rag_eval_pytest.text.words import content_words

HERE = Path(__file__).parent
Row = dict[str, Any]
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


async def show_wrong(judge: LocalJudge, name: str, task: str, row: dict[str, Any]) -> None:
    """Print a row whose decided verdict is wrong: its label, its answer and the judge's
    verdict on each item, the reasons opening with "unsure" the items it left undecided."""
    services = Services(judge=judge, embed=judge.embed)
    measured = await measure(get_metric(task), sample_of(row), services)
    said = "pass" if row["label"] else "fail"
    print(
        f"\n{name} {row.get('id', '')}: labelled {said}, decided otherwise ({task} "
        f"{measured.score}, {measured.unsure} unsure)"
    )
    print(f"  question: {(row.get('question') or '')[:160]}")
    print(f"  answer: {(row.get('answer') or '')[:400]}")
    for item in measured.evidence:
        if item.verdict is not None:
            print(f"  - {item.verdict}: {item.text[:160]} | {(item.reason or '')[:240]}")


def forced(judge: LocalJudge) -> LocalJudge:
    """The judge without its unsure bands: every item decided at its threshold."""
    return LocalJudge(
        embedder=judge.embedder,
        calibration=replace(judge.calibration, unsure=None, trusted=None),
        relevance_threshold=judge.relevance_threshold,
        answer_model=replace(judge.answer_model, unsure=None, trusted=None),
        sentence_model=replace(judge.sentence_model, unsure=None, trusted=None),
        checks_off=judge.checks_off,
    )


def like(judge: LocalJudge, embedder: LocalEmbedder) -> LocalJudge:
    """A judge with ``judge``'s models, thresholds and bands and another embedder."""
    return LocalJudge(
        embedder=embedder,
        calibration=judge.calibration,
        relevance_threshold=judge.relevance_threshold,
        answer_model=judge.answer_model,
        sentence_model=judge.sentence_model,
        checks_off=judge.checks_off,
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


def baseline_verdicts(
    task: str, rows: list[dict[str, Any]], others: list[dict[str, Any]]
) -> tuple[list[bool], list[float]]:
    """The overlap baseline's verdicts on ``rows`` at the threshold that is best on
    ``others`` (the other half of the set), and its scores."""
    scores = [lexical_overlap(task, r) for r in rows]
    other = [lexical_overlap(task, r) for r in others]
    other_labels = [int(r["label"]) for r in others]
    cut = max(
        sorted(set(other)) or [0.5],
        key=lambda t: _balanced([s >= t for s in other], other_labels),
    )
    return [s >= cut for s in scores], scores


def baseline(task: str, rows: list[dict[str, Any]], others: list[dict[str, Any]]) -> str:
    """The overlap baseline on ``rows``: its balanced accuracy at the threshold that is best
    on ``others`` (the other half of the set), and its ROC AUC."""
    labels = [int(r["label"]) for r in rows]
    preds, scores = baseline_verdicts(task, rows, others)
    area = auc(scores, labels)
    return f"{_balanced(preds, labels):.3f} | {'n/a' if area is None else f'{area:.3f}'}"


RESAMPLES = 2000
"""Bootstrap resamples of the paired comparison with the overlap baseline."""


def _rank_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC from the scores' ranks (ties share their mean rank)."""
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):  # ties: the mean of their ranks
        tied = scores == value
        ranks[tied] = ranks[tied].mean()
    pos = int(labels.sum())
    neg = len(labels) - pos
    return float((ranks[labels == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def _both(preds: np.ndarray, scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(balanced accuracy, ROC AUC) of one side on these rows."""
    hit = preds == (labels == 1)
    balanced_accuracy = (hit[labels == 1].mean() + hit[labels == 0].mean()) / 2
    return float(balanced_accuracy), _rank_auc(scores, labels)


def paired(
    judge: tuple[list[bool], list[float]],
    overlap: tuple[list[bool], list[float]],
    labels: list[int],
) -> str:
    """The judge minus the overlap baseline on the same rows, forced balanced accuracy and
    ROC AUC, each with the 95 % interval of :data:`RESAMPLES` paired bootstrap resamples of
    the rows (a resample with one class only is drawn again)."""
    y = np.array(labels)
    sides = [(np.array(p), np.array(s, dtype=float)) for p, s in (judge, overlap)]
    rng = np.random.default_rng(0)
    differences = []
    while len(differences) < RESAMPLES:
        pick = rng.integers(0, len(y), len(y))
        if 0 < y[pick].sum() < len(pick):
            mine, theirs = (_both(p[pick], s[pick], y[pick]) for p, s in sides)
            differences.append((mine[0] - theirs[0], mine[1] - theirs[1]))
    observed = [a - b for a, b in zip(*(_both(p, s, y) for p, s in sides), strict=True)]
    low, high = np.percentile(np.array(differences), [2.5, 97.5], axis=0)
    return (
        f"balanced acc. {observed[0]:+.3f} ({low[0]:+.3f} to {high[0]:+.3f}), "
        f"ROC AUC {observed[1]:+.3f} ({low[1]:+.3f} to {high[1]:+.3f})"
    )


async def on_the_baselines_footing(
    judge: LocalJudge, rows: list[dict[str, Any]], others: list[dict[str, Any]]
) -> tuple[float, list[bool]]:
    """(the support threshold with the best forced balanced accuracy on ``others``, the other
    half of the set, and the judge's forced verdicts on ``rows`` at it): the judge on the
    footing of the overlap baseline, whose threshold is chosen so. The shipped threshold is
    one for every set; this says how much of a gap to the baseline is that choice."""
    threshold = default_threshold("faithfulness")
    theirs = [(await fitting.claim_items(judge, r), int(r["label"])) for r in others]
    candidates = [round(0.05 + 0.01 * i, 2) for i in range(86)]

    def accuracy(cut: float) -> float:
        preds = [fitting.row_verdicts(items, cut, None, threshold)[0] for items, _ in theirs]
        return _balanced(preds, [y for _, y in theirs])

    cut = max(candidates, key=lambda c: (round(accuracy(c), 3), -c))
    mine = [await fitting.claim_items(judge, r) for r in rows]
    return cut, [fitting.row_verdicts(items, cut, None, threshold)[0] for items in mine]


def decided_cells(decided: list[bool | None], labels: list[int]) -> str:
    """The accuracy and the balanced accuracy of the verdicts the judge decided, and their
    share of the rows."""
    kept = [(d, y) for d, y in zip(decided, labels, strict=True) if d is not None]
    if not kept:
        return "n/a | n/a | 0.00"
    right = sum(d == bool(y) for d, y in kept) / len(kept)
    accuracy = _balanced([d for d, _ in kept], [y for _, y in kept])
    return f"{right:.3f} | {accuracy:.3f} | {len(kept) / len(labels):.2f}"


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
    other.cache = loaded.cache  # --vectors: kept on disk for every run
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


async def hard_cases(judge: LocalJudge, path: Path, half: str) -> None:
    """Score the hard-cases set (every row, each by its own metric at its default threshold)
    and print its row, the accuracy on each label and per failure class, and the decided
    rows of ``half`` (the rows of each task split by question, as the other sets are)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    tasks = dict.fromkeys(str(r["task"]) for r in rows)
    in_half = {r["id"] for task in tasks for r in split(hard_rows(path, task), half)}
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
        f"decided (the unsure band): accuracy, balanced accuracy and coverage "
        f"{decided_cells(list(decided), labels)}; wrong decided verdicts: "
        f"{', '.join(wrong_decided) or 'none'}"
    )
    mine = [r["id"] in in_half for r in rows]
    print(
        f"the {half} half ({sum(mine)} rows): decided accuracy, balanced accuracy and coverage "
        + decided_cells(
            [d for d, m in zip(decided, mine, strict=True) if m],
            [y for y, m in zip(labels, mine, strict=True) if m],
        )
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


# ----------------------------------------------------------------------------- main


def _balanced(preds: list[bool], labels: list[int]) -> float:
    return fitting.balanced(preds, labels)


def set_files(data: Path) -> list[Path]:
    """The ``<set>/dev.jsonl`` files of ``data``, and the project's own sets of
    ``benchmarks/data`` (the HaluEval sample and the relevance sets written for the project)
    where ``data`` has no set of that name."""
    files = {path.parent.name: path for path in (HERE / "data").glob("*/dev.jsonl")}
    files.update({path.parent.name: path for path in data.glob("*/dev.jsonl")})
    return [files[name] for name in sorted(files)]


def hard_rows(path: Path, task: str) -> list[dict[str, Any]]:
    """The hard cases of one task: a set of their own, split by question as the others."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if r["task"] == task]


async def fit_faithfulness(judge: LocalJudge, sets: list[tuple[str, list[dict[str, Any]]]]) -> None:
    """Fit the support model, its threshold and its band on the tune halves of the sets that
    may be fitted on, and print each kind of evidence's precision on them."""
    fitting_sets = [fitting.may_fit(name) for name, _ in sets]
    tables = [
        [(await fitting.features_of(judge, r), int(r["label"])) for r in rows] for _, rows in sets
    ]
    weights, bias = fitting.fit([n for n, _ in sets], tables, fitting_sets)
    refitted = LocalJudge(
        embedder=judge.embedder,
        calibration=replace(judge.calibration, weights=weights, bias=bias, unsure=None),
        checks_off=judge.checks_off,
    )
    parts = [
        (name, [(await fitting.claim_items(refitted, r), int(r["label"])) for r in rows])
        for name, rows in sets
    ]
    cut = fitting.support_threshold(parts, fitting_sets)
    band = fitting.band_of(parts, fitting_sets, cut)
    print(f"\nthe fitted calibration: weights={weights}, bias={bias}, support={cut}, unsure={band}")


async def fit_relevance(
    judge: LocalJudge, task: str, sets: list[tuple[str, list[dict[str, Any]]]]
) -> None:
    """Fit the relevance model of ``task``, its cut and its band on the rows of the sets that
    may be fitted on (of the relevance sets, the hard cases), the others printed beside."""
    parts = [
        (name, [await relevance_fitting.read_row(judge, task, r) for r in rows])
        for name, rows in sets
    ]
    relevance_fitting.fit(task, parts)


async def kinds(judge: LocalJudge, by_task: dict[str, list[tuple[str, list[Row]]]]) -> None:
    """Print, per task, the precision of each kind of evidence behind the verdicts on these
    rows (the shipped band; each kind beside the kinds that ship), the kinds that decide
    alone, and each set's decided rows with them and with the shipped ones."""
    cut, band = judge.calibration.support, judge.calibration.unsure
    shipped = {
        "faithfulness": judge.calibration.trusted,
        "answer_relevance": judge.answer_model.trusted,
        "context_relevance": judge.sentence_model.trusted,
    }
    for task, sets in by_task.items():
        if task not in shipped:
            continue
        parts = []
        for name, rows in sets:
            read = []
            for row in rows:
                if task == "faithfulness":
                    items = [i.read(cut, band) for i in await fitting.claim_items(judge, row)]
                else:
                    items = await fitting.relevance_items(judge, task, row)
                read.append((items, int(row["label"])))
            parts.append((name, read))
        threshold = default_threshold(task)
        print(f"\n{task}: each kind of evidence, right / the rows it decides beside the shipped")
        trusted = fitting.kinds_table(parts, threshold, shipped[task])
        print(f"\n{task}: kinds that decide alone (>= 0.95 on 5+ rows, all and each set):")
        print(f"  {sorted(trusted)}")
        print("  decided rows, accuracy | balanced accuracy | coverage: with these kinds; shipped")
        for name, rows in parts:
            labels = [y for _, y in rows]
            cells = []
            for kept in (trusted, shipped[task]):
                decided = [fitting.decide(r, threshold, kept)[1] for r, _ in rows]
                cells.append(decided_cells(decided, labels))
            print(f"  {name}: {cells[0]}; {cells[1]}")


def halves_of(data: Path, hard: Path, wanted: set[str], limit: int) -> list[ablation.Half]:
    """The tune and held-out halves of every set (``wanted``: those named), each row with
    its task; the hard cases as one set, each task's rows split by question."""
    halves = []
    for path in set_files(data):
        name = path.parent.name
        if wanted and name not in wanted:
            continue
        every = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        rows = [{**r, "task": task_of(name, r)} for r in every]
        halves += [ablation.Half(name, h, split(rows, h)[: limit or None]) for h in HALVES]
    if not wanted or "hard_cases" in wanted:
        for half in HALVES:
            rows = []
            for task in HARD_TASKS:
                rows += split(hard_rows(hard, task), half)[: limit or None]
            halves.append(ablation.Half("hard_cases", half, rows))
    return halves


HALVES = ("tune", "held-out")
HARD_TASKS = ("faithfulness", "answer_correctness", "answer_relevance", "context_relevance")


async def ablation_verdicts(judges: ablation.Judges, task: str, row: Row) -> ablation.Verdicts:
    """(the forced verdict, the decided one or ``None``) of one row."""
    judge, forced_judge = judges
    return (await score_row(forced_judge, task, row))[1], await decided_row(judge, task, row)


async def run_ablation(judge: LocalJudge, options: argparse.Namespace) -> None:
    """``--ablate``: every check switched off in turn, on both halves of every set, the
    vectors computed once."""

    def make(off: frozenset[str]) -> ablation.Judges:
        like_this = LocalJudge(
            embedder=judge.embedder,
            calibration=judge.calibration,
            relevance_threshold=judge.relevance_threshold,
            answer_model=judge.answer_model,
            sentence_model=judge.sentence_model,
            checks_off=off,
        )
        return like_this, forced(like_this)

    wanted = {s for s in options.sets.split(",") if s}
    halves = halves_of(options.data, options.hard, wanted, options.limit)
    print(f"ablation: {len(halves)} halves, checks {', '.join(ablation.CHECK_NAMES)}")
    table = await ablation.ablate(make, halves, ablation_verdicts)
    ablation.print_table(table, halves)
    print(f"\nchecks that pay on no held-out half: {', '.join(ablation.unpaid(table)) or 'none'}")


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
    parser.add_argument(
        "--fit",
        action="store_true",
        help="fit the support model, its threshold and its band on the faithfulness rows of "
        "the sets that may be fitted on (fitting.LICENCES; use --split tune)",
    )
    parser.add_argument(
        "--kinds",
        action="store_true",
        help="the precision of each kind of evidence behind the faithfulness verdicts on "
        "these rows (use the held-out halves)",
    )
    parser.add_argument(
        "--overrides",
        action="store_true",
        help="the precision of each hand-written rule that moves a claim's score against the "
        "support model, on the rows whose forced verdict it sets (the held-out halves decide; "
        "--split tune for the tune halves)",
    )
    parser.add_argument(
        "--without",
        default="",
        help="comma-separated checks of the local judge to switch off (judge.local.checks: "
        f"{', '.join(ablation.CHECK_NAMES)})",
    )
    parser.add_argument(
        "--wrong",
        action="store_true",
        help="print each row whose decided verdict is wrong, with the judge's verdict on "
        "each of its items",
    )
    parser.add_argument(
        "--ablate",
        action="store_true",
        help="every check of the local judge switched off in turn, on the tune and held-out "
        "halves of every set: what each changes (the table of benchmarks/README.md)",
    )
    parser.add_argument(
        "--vectors",
        type=Path,
        default=None,
        help="keep the sentence vectors in this folder, so that a second run encodes nothing "
        "(the timings then measure no encoding)",
    )
    parser.add_argument(
        "--hard",
        type=Path,
        default=HERE / "data" / "hard_cases.jsonl",
        help="the hard-cases set, scored whole beside the sets (name it in --sets as "
        "hard_cases to run it alone)",
    )
    options = parser.parse_args()
    off = {name: False for name in options.without.split(",") if name}
    judge = _local_judge(JudgeSettings(kind="local", local={"checks": off}))
    assert isinstance(judge, LocalJudge)
    if options.vectors is not None:
        judge.embedder.use_cache(options.vectors)
    await judge.embed(["load the model"])
    if options.ablate:
        await run_ablation(judge, options)
        return
    wanted = {s for s in options.sets.split(",") if s}
    floors: list[tuple[str, int, float, float, float, float]] = []
    by_task: dict[str, list[tuple[str, list[Row]]]] = {}
    without = f"; checks off: {', '.join(sorted(off))}" if off else ""
    print(f"judge: {judge.describe()}; rows: {options.split} half of each set{without}\n")
    print(
        "| set | task | rows | accuracy | balanced acc. | F1 | ROC AUC | decided: accuracy "
        "| decided: balanced acc. | decided: coverage | overlap baseline: balanced acc. "
        "| overlap baseline: ROC AUC | rows/s | peak memory |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in set_files(options.data):
        name = path.parent.name
        if wanted and name not in wanted:
            continue
        every = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        rows = split(every, options.split)
        others = [r for r in every if r not in rows] if options.split != "all" else every
        if options.limit:
            rows = rows[: options.limit]
        task = task_of(name, rows[0])
        by_task.setdefault(task, []).append((name, rows))
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
        if options.wrong:
            for row, verdict in zip(rows, decided, strict=True):
                if verdict is not None and verdict != bool(row["label"]):
                    await show_wrong(fresh, name, task, row)
        print(report(name, task, results, labels, seconds, extra), flush=True)
        instead = {
            "faithfulness": "the weakest claim's support",
            "context_relevance": "the metric's score (the share of needed sentences)",
        }
        if task in instead:
            other = auc([w for _, w in rankings], labels)
            print(f"  {name}: ROC AUC on {instead[task]} instead: {other:.3f}")
        mine = ([p for _, p, _ in results], [r for _, _, r in results])
        versus = paired(mine, baseline_verdicts(task, rows, others), labels)
        print(f"  {name}: the judge minus the overlap baseline, paired (95 % interval): {versus}")
        if task == "faithfulness" and options.split != "all":
            cut, preds = await on_the_baselines_footing(fresh, rows, others)
            level = paired((preds, mine[1]), baseline_verdicts(task, rows, others), labels)
            print(
                f"  {name}: with its support threshold chosen on the other half as the"
                f" baseline's is ({cut:.2f}), paired: {level}"
            )
        if task == "faithfulness":
            runs, bases = [(seconds, cpu)], [encoding_floor(judge, rows)]
            for _ in range(options.repeat - 1):
                runs.append(await timed_run(judge, rows))
                bases.append(encoding_floor(judge, rows))
            floors.append((name, len(rows), *np.median(runs, axis=0), *np.median(bases, axis=0)))
    if not wanted or "hard_cases" in wanted:
        await hard_cases(like(judge, fresh_embedder(judge)), options.hard, options.split)
        for task in ("faithfulness", "answer_relevance", "context_relevance"):
            hard = split(hard_rows(options.hard, task), options.split)
            rows = hard[: options.limit] if options.limit else hard
            by_task.setdefault(task, []).append(("hard_cases", rows))
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
    if options.fit and "faithfulness" in by_task:
        await fit_faithfulness(like(judge, fresh_embedder(judge)), by_task["faithfulness"])
    for task in ("answer_relevance", "context_relevance"):
        if options.fit and task in by_task:
            await fit_relevance(like(judge, fresh_embedder(judge)), task, by_task[task])
    if options.kinds:
        await kinds(like(judge, fresh_embedder(judge)), by_task)
    if options.overrides and "faithfulness" in by_task:
        await fitting.overrides_table(like(judge, fresh_embedder(judge)), by_task["faithfulness"])


if __name__ == "__main__":
    asyncio.run(main())
