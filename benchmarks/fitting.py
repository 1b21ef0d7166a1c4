"""What ships and how it was chosen: the support model, its threshold and unsure band, fitted
only on the sets whose licence allows it, and the precision of each kind of evidence behind
the local judge's verdicts (the part of ``judge_accuracy.py`` behind ``--fit`` and
``--kinds``).

* :data:`LICENCES`: each set's licence and whether it may be fitted on. The others measure,
  they never fit: their rows are scored and reported, never read by a fit.
* :func:`fit`: the logistic support model on the fitting sets' tune halves, without the
  features that encode one set's quirk (:data:`QUIRKS`), a number or a date no context
  states never raising support (:data:`NEVER_POSITIVE`), and each feature's ROC AUC on every
  set beside it.
* :func:`support_threshold` and :func:`band_of`: the support threshold and the unsure band,
  from the fitting sets' tune halves.
* :func:`kinds_table`: the precision of each kind of evidence on the rows given (the
  held-out halves), the kinds at or above ``trust.MIN_PRECISION`` marked.
* :func:`overrides_table`: the precision of each hand-written rule that moves a claim's score
  against the model (:data:`OVERRIDES`) on the rows given (the held-out halves): a rule
  stays only at ``trust.MIN_PRECISION`` or more.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rag_eval_pytest.judges.local import LocalJudge, support, trust
from rag_eval_pytest.judges.local.support import FEATURES, claim_features
from rag_eval_pytest.metrics.registry import default_threshold

LICENCES: dict[str, tuple[str, bool]] = {
    "halueval_qa": ("MIT (knowledge text from HotpotQA and Wikipedia, CC BY-SA 4.0)", True),
    "hard_cases": ("the project's own (written for it, shipped with it)", True),
    "own_answer_relevance": ("the project's own (written for it, shipped with it)", True),
    "own_context_relevance": ("the project's own (written for it, shipped with it)", True),
    # The checks were mended after reading its wrong verdicts: it measures them, never fits.
    "support_bot_answers": ("the project's own (written for it, shipped with it)", False),
    "support_bot_answers_more": ("the project's own (written for it, shipped with it)", False),
    "lfqa_verification": ("none stated: research and evaluation only", False),
    "faithbench": ("CC BY-NC-SA 4.0: non-commercial", False),
    "trec_dl_answer_relevance": ("MS MARCO terms: non-commercial research", False),
    "trec_dl_context_relevance": ("MS MARCO terms: non-commercial research", False),
    "wikiqa_answer_relevance": ("WikiQA: 'other', research and evaluation only", False),
}
"""(licence, may the shipped weights, thresholds and bands be fitted on it)."""


def may_fit(name: str) -> bool:
    return LICENCES.get(name, ("", False))[1]


QUIRKS = {
    "short_x_coverage": "a short claim's coverage: on HaluEval the right answers are the short "
    "ones (ROC AUC 0.92-0.94 there, 0.50 on LFQA, FaithBench and the hard cases)",
    "similarity": "fitted on HaluEval and the hard cases alone its weight is negative (a long "
    "fabricated answer that copies the context sits closer to it than a short right answer "
    "read with its question): the same length quirk",
}
"""Features that mostly encode one set's quirk: left out of the fit (weight 0)."""

NEVER_POSITIVE = (
    "number_gap",
    "date_gap",
    "missing_names",
    *(name for name in FEATURES if name.startswith("conflict_")),
)
"""A number, a date or a name no context states, and a conflict of any kind, never raises
support: a positive weight is fixed at 0 and the model fitted again."""

MIN_VERDICTS = 5
"""A kind of evidence behind fewer decided rows of the held-out halves is not measured: it
decides nothing alone."""


def fit(
    names: list[str],
    tables: list[list[tuple[list[list[float]], int]]],
    fitting: list[bool],
) -> tuple[tuple[float, ...], float]:
    """Fit the support model on the tune rows of the fitting sets (an unfaithful answer by
    its weakest claim, a faithful one by all its claims), print each feature's ROC AUC on
    every set (each answer by its weakest claim) and the weights, and return them."""
    from sklearn.linear_model import LogisticRegression

    print("\nfaithfulness: each feature's ROC AUC alone (each answer by its weakest claim)")
    print("  | set | " + " | ".join(FEATURES) + " |")
    for name, table in zip(names, tables, strict=True):
        labels = [y for _, y in table]
        cells = [
            _auc([min(f[i] for f in rows) for rows, _ in table], labels)
            for i in range(len(FEATURES))
        ]
        print(f"  | {name} | " + " | ".join(cells) + " |")
    xs: list[list[float]] = []
    ys: list[int] = []
    for table, use in zip(tables, fitting, strict=True):
        for rows, label in table if use else []:
            if label == 0:  # an unfaithful answer has at least one unsupported claim
                xs.append(min(rows, key=lambda f: f[0] + f[1]))
                ys.append(0)
            else:
                xs += rows
                ys += [1] * len(rows)
    kept = [i for i, name in enumerate(FEATURES) if name not in QUIRKS]
    while True:
        model = LogisticRegression(C=1.0, max_iter=5000)
        model.fit(np.array(xs)[:, kept], np.array(ys))
        weights = dict(zip(kept, (round(float(w), 2) for w in model.coef_[0]), strict=True))
        raised = [i for i in kept if FEATURES[i] in NEVER_POSITIVE and weights[i] > 0]
        if not raised:
            break
        print(f"  {FEATURES[raised[0]]} came out positive ({weights[raised[0]]}): fixed at 0")
        kept.remove(raised[0])
    fitted = tuple(weights.get(i, 0.0) for i in range(len(FEATURES)))
    bias = round(float(model.intercept_[0]), 2)
    print(f"  fitted on {', '.join(n for n, u in zip(names, fitting, strict=True) if u)}")
    print(f"  left out: {', '.join(f'{n} ({why})' for n, why in QUIRKS.items())}")
    print(f"  weights {fitted} ({', '.join(FEATURES)}), bias {bias}")
    return fitted, bias


def _auc(scores: list[float], labels: list[int]) -> str:
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    if not pos or not neg:
        return "n/a"
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return f"{wins / (len(pos) * len(neg)):.3f}"


async def features_of(judge: LocalJudge, row: dict[str, Any]) -> list[list[float]]:
    """The support model's features of each statement of a row's answer."""
    from rag_eval_pytest.judges.local.judge import statements_of

    question = row.get("question") or ""
    claims = statements_of(row["answer"], question) or [row["answer"]]
    claims, evidence, vectors, question = await judge.read(claims, row["contexts"], question)
    pairs = zip(claims, vectors, strict=True)
    return [claim_features(c, v, evidence, question)[0] for c, v in pairs]


# ----------------------------------------------------------------------------- items


@dataclass(frozen=True)
class Item:
    """One statement of a row as the judge reads it whatever its support threshold: the
    model's probability, the verdict a rule gives it whatever the threshold (``fixed``, with
    the kind of evidence ``basis``; ``None``: the threshold's), whether a number or a word
    no context states keeps it from being supported by its wording (``capped``), the kind of
    evidence of a number or a date no context states (``unstated``), and whether it is a
    comparison of two things or the statement of a bare "No." (always unsure when not
    supported)."""

    probability: float
    fixed: bool | None = None
    basis: str = ""
    capped: bool = False
    unstated: str = ""
    compares: bool = False
    bare_no: bool = False
    beyond: str = ""
    """What it states beyond its passage's sentence (a fact the sentence hedges, or states
    less widely): supported, it is of that kind (``scope.beyond``)."""

    def read(self, cut: float, band: tuple[float, float] | None) -> tuple[bool, str]:
        """(yes, the kind of evidence of its verdict) at the support threshold ``cut`` with
        the unsure band ``band``, as the judge gives them."""
        yes, kind = self._rule(cut)
        in_band = band is not None and band[0] <= self.probability < band[1]
        if kind == "":
            yes = self.probability >= cut
            kind = trust.SCORE_SUPPORTED if yes else trust.SCORE_NOT_MENTIONED
            kind = trust.IN_BAND if in_band else kind
        elif band is not None and not in_band and _scores_alike(kind, yes, self.probability, cut):
            # The score alone gives the rule's verdict outside the band: the score's kind.
            kind = trust.SCORE_SUPPORTED if yes else trust.SCORE_NOT_MENTIONED
        if yes and kind == trust.SCORE_SUPPORTED and self.beyond:
            kind = self.beyond
        if self.compares:
            kind = trust.COMPARISON
        elif self.bare_no and not yes and not kind.startswith("contradicted"):
            kind = trust.BARE_NO
        return yes, kind

    def _rule(self, cut: float) -> tuple[bool, str]:
        if self.fixed is not None:
            return self.fixed, self.basis
        if self.capped and self.probability >= cut:
            return False, trust.WORDING_ONLY
        if self.unstated and self.probability < cut:
            return False, self.unstated
        return False, ""


def _scores_alike(kind: str, yes: bool, probability: float, cut: float) -> bool:
    """Whether the model's score gives the verdict a rule gave (not for a conflict, nor for
    a claim only its wording supports or one its passage hedges)."""
    if kind.startswith("contradicted") or kind in (trust.WORDING_ONLY, trust.HEDGED):
        return False
    return (probability >= cut) == yes


async def claim_items(judge: LocalJudge, row: dict[str, Any]) -> list[Item]:
    """The statements of a row as items, read by the judge with a support threshold no
    probability reaches (so that the rules that read the threshold leave the probability as
    it is), no band and every kind trusted."""
    from rag_eval_pytest.judges.local.claims import bare_no, compares_two
    from rag_eval_pytest.judges.local.pipeline import closest_sentence
    from rag_eval_pytest.judges.local.scope import beyond

    wide = LocalJudge(
        embedder=judge.embedder, calibration=judge.calibration, checks_off=judge.checks_off
    )
    wide.calibration = replace(judge.calibration, support=1.01, unsure=None, trusted=None)
    question = row.get("question") or ""
    claims, verdicts = await wide.statement_support(row["answer"], row["contexts"], question)
    negative = bare_no(row["answer"])
    items = []
    for claim, v in zip(claims, verdicts, strict=True):
        gaps = [f for f in v.findings if f.severity == "gap"]
        compares = compares_two(claim, question)
        if v.basis.startswith("not mentioned: unstated ") or v.basis in _SCORED:
            capped = any(f.in_digits or f.kind == "replaced" for f in gaps)
            unstated = next((f for f in gaps if f.kind in ("numbers", "dates")), None)
            said = trust.unstated_basis(unstated) if unstated is not None else ""
            shown = closest_sentence(claim, v.evidence)
            plain = beyond(claim, shown, "\n".join(row["contexts"]))
            items.append(Item(v.score, None, "", capped, said, compares, negative, plain))
        else:
            fixed = v.verdict == "supported"
            items.append(Item(v.model_score, fixed, v.basis, compares=compares, bare_no=negative))
    return items


_SCORED = (trust.SCORE_SUPPORTED, trust.SCORE_NOT_MENTIONED, trust.IN_BAND)


def row_verdicts(
    items: list[Item],
    cut: float,
    band: tuple[float, float] | None,
    threshold: float,
    trusted: frozenset[str] | None = None,
) -> tuple[bool, bool | None, set[str]]:
    """(the forced verdict, the decided verdict or ``None``, the kinds of evidence the decided
    verdict rests on) of a row of statements at the support threshold ``cut`` and the band
    ``band`` (see :func:`decide`)."""
    return decide([item.read(cut, band) for item in items], threshold, trusted, band is not None)


def decide(
    read: list[tuple[bool, str]],
    threshold: float,
    trusted: frozenset[str] | None = None,
    doubting: bool = True,
) -> tuple[bool, bool | None, set[str]]:
    """(the forced verdict, the decided verdict or ``None``, the kinds of evidence the decided
    verdict rests on) of a row whose score is the share of its items (yes, kind of evidence)
    that are yes, at ``threshold``: decided when counting every unsure item as no still
    passes (it rests on its sure yes items), or as yes still fails (on its sure no items).
    With ``doubting``, an item is unsure for a kind that always is and, with ``trusted``, for
    a kind not in it."""
    yes = [y for y, _ in read]
    kinds = [k for _, k in read]
    unsure = [doubting and trust.doubted(k, trusted) for k in kinds]
    sure = sum(y for y, u in zip(yes, unsure, strict=True) if not u)
    low, high = sure / len(read), (sure + sum(unsure)) / len(read)
    forced = sum(yes) / len(read) >= threshold
    if low >= threshold:
        return forced, True, {k for k, y, u in zip(kinds, yes, unsure, strict=True) if y and not u}
    if high < threshold:
        rest = {k for k, y, u in zip(kinds, yes, unsure, strict=True) if not y and not u}
        return forced, False, rest
    return forced, None, set()


async def relevance_items(judge: LocalJudge, task: str, row: dict[str, Any]) -> list[Read]:
    """The items of a relevance row, each (yes, kind of evidence), as the judge reads them
    with its band and every kind trusted: the answer's rating, or each context sentence."""
    from rag_eval_pytest.judges.local.claims import declines
    from rag_eval_pytest.judges.local.facts import plain_form
    from rag_eval_pytest.judges.local.relevance import answer_relevance, sentence_relevance
    from rag_eval_pytest.text.sentences import split_sentences

    question = plain_form(row.get("question") or "")
    if task == "answer_relevance":
        if declines(row["answer"]):
            return [(False, trust.DECLINES)]
        answer = plain_form(row["answer"])
        q, a = await judge.embedder.vectors([question, answer])
        model = replace(judge.answer_model, trusted=None)
        rating = answer_relevance(question, answer, q, a, model)
        return [(rating.score >= model.shown_at, rating.basis)]
    sentences = [plain_form(s) for c in row["contexts"] for s in split_sentences(c)]
    vectors = await judge.embedder.vectors([question, *sentences])
    model = replace(judge.sentence_model, trusted=None)
    scores = sentence_relevance(question, sentences, vectors[0], vectors[1:], model)
    return [(s.relevant(judge.relevance_threshold), s.basis(model)) for s in scores]


Read = tuple[bool, str]


def balanced(preds: list[bool], labels: list[int]) -> float:
    pos = [p for p, y in zip(preds, labels, strict=True) if y == 1]
    neg = [not p for p, y in zip(preds, labels, strict=True) if y == 0]
    return (sum(pos) / max(1, len(pos)) + sum(neg) / max(1, len(neg))) / 2


Part = tuple[str, list[tuple[list[Item], int]]]


def support_threshold(parts: list[Part], fitting: list[bool]) -> float:
    """Print the forced balanced accuracy of the faithfulness metric per set by support
    threshold, and return the threshold at which the balanced accuracy of the fitting sets'
    rows together, averaged over the thresholds within :data:`SMOOTHING` steps of it, is
    highest (ties: the middle one).

    The table is flat over a wide range, and its own highest point hops with a few rows:
    both rules are printed with how often their choice moves by more than 0.03 when
    :data:`LEFT_OUT` tune rows of each fitting set are left out at random."""
    threshold = default_threshold("faithfulness")
    candidates = CUTS
    # hits[set][row, cut]: whether the row's forced verdict at the cut is right.
    hits = [
        np.array(
            [
                [row_verdicts(items, cut, None, threshold)[0] == bool(y) for cut in candidates]
                for items, y in rows
            ]
        )
        for _, rows in parts
    ]
    labels = [np.array([y for _, y in rows]) for _, rows in parts]
    used = [i for i, use in enumerate(fitting) if use]
    full = [np.arange(len(y)) for y in labels]
    rules = {
        "its highest point": lambda picks: _pooled_curve(hits, labels, picks, used),
        f"averaged over {SMOOTHING} steps each side": lambda picks: _smoothed(
            _pooled_curve(hits, labels, picks, used)
        ),
    }
    print("\nfaithfulness: forced balanced accuracy by support threshold")
    print_curves("threshold", [n for n, _ in parts], hits, labels, used)
    rng = np.random.default_rng(0)
    kept = [
        [np.sort(rng.choice(len(y), max(1, len(y) - LEFT_OUT), replace=False)) for y in labels]
        for _ in range(THRESHOLD_TRIALS)
    ]
    choices = {}
    for name, rule in rules.items():
        choices[name] = candidates[_best(rule(full))]
        moved = np.mean([abs(candidates[_best(rule(k))] - choices[name]) > 0.03 for k in kept])
        print(
            f"  the pooled balanced accuracy {name}: at {choices[name]:.2f}; with {LEFT_OUT}"
            f" tune rows of each fitting set left out, the choice moves by more than 0.03 in"
            f" {moved:.0%} of {THRESHOLD_TRIALS} trials"
        )
    return choices[f"averaged over {SMOOTHING} steps each side"]


CUTS = [round(0.05 + 0.01 * i, 2) for i in range(86)]
"""The thresholds a fit chooses among."""


def print_curves(
    head: str, names: list[str], hits: list[np.ndarray], labels: list[np.ndarray], used: list[int]
) -> np.ndarray:
    """Print the balanced accuracy at every fifth of :data:`CUTS` of the sets ``used``
    pooled and of each set (``hits[set][row, cut]``: whether the row's forced verdict at the
    cut is right), and return the pooled curve."""
    full = [np.arange(len(y)) for y in labels]
    shown = [_pooled_curve(hits, labels, full, used)]
    shown += [_balanced_curve(hits[i], labels[i], full[i]) for i in range(len(names))]
    print(f"  | {head} | fitting sets pooled | " + " | ".join(names) + " |")
    for k in range(0, len(CUTS), 5):
        print(f"  | {CUTS[k]:.2f} | " + " | ".join(f"{c[k]:.3f}" for c in shown) + " |")
    return shown[0]


def stable_cut(pooled: np.ndarray) -> float:
    """The cut whose pooled balanced accuracy, averaged over :data:`SMOOTHING` steps each
    side, is highest (ties: the middle one)."""
    return CUTS[_best(_smoothed(pooled))]


def widened_band(
    cut: float, wrong_below: Callable[[float], bool], wrong_from: Callable[[float], bool]
) -> tuple[float, float]:
    """The band ``[low, high)`` around ``cut``, widened from the ends of the scale towards
    the cut in steps of 0.01 while ``wrong_below(low)`` (a row decided wrong by a score
    below ``low``) and ``wrong_from(high)`` (by a score from ``high``) stay false."""
    grid = [round(0.01 * i, 2) for i in range(101)]
    low = 0.0
    for edge in (g for g in grid if 0 < g <= cut):
        if wrong_below(edge):
            break
        low = edge
    high = 1.01
    for edge in (g for g in reversed(grid) if g > cut):
        if wrong_from(edge):
            break
        high = edge
    return low, high


SMOOTHING = 8
"""Grid steps (of 0.01) on each side over which a threshold's balanced accuracy is averaged."""

LEFT_OUT = 4
"""Tune rows of each fitting set left out at random when a threshold rule's stability is
measured (as many as a new class of hard cases adds)."""

THRESHOLD_TRIALS = 300
"""Trials of leaving tune rows out that measure how far a threshold rule's choice moves."""


def _smoothed(curve: np.ndarray) -> np.ndarray:
    """``curve`` averaged over the :data:`SMOOTHING` points on each side (ends repeated)."""
    padded = np.pad(curve, SMOOTHING, mode="edge")
    return np.convolve(padded, np.ones(2 * SMOOTHING + 1) / (2 * SMOOTHING + 1), mode="valid")


def _balanced_curve(hits: np.ndarray, labels: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """The balanced accuracy at each cut of the rows ``picks`` (indices, repeats allowed)."""
    rows, y = hits[picks], labels[picks]
    pos, neg = rows[y == 1], rows[y == 0]
    rate = [part.mean(axis=0) if len(part) else np.ones(rows.shape[1]) for part in (pos, neg)]
    return np.asarray((rate[0] + rate[1]) / 2)


def _pooled_curve(
    hits: list[np.ndarray], labels: list[np.ndarray], picks: list[np.ndarray], used: list[int]
) -> np.ndarray:
    """The balanced accuracy at each cut of the picked rows of the sets ``used``, pooled."""
    rows = np.concatenate([hits[i][picks[i]] for i in used])
    y = np.concatenate([labels[i][picks[i]] for i in used])
    return _balanced_curve(rows, y, np.arange(len(y)))


def _best(curve: np.ndarray) -> int:
    """The index of the highest point of ``curve`` (to three places; ties: the middle one)."""
    rounded = np.round(curve, 3)
    ties = np.flatnonzero(rounded == rounded.max())
    return int(ties[len(ties) // 2])


def band_of(parts: list[Part], fitting: list[bool], cut: float) -> tuple[float, float]:
    """The unsure band ``[low, high)`` around ``cut``: widened from the ends of the scale
    towards the cut while no row of a fitting set is decided wrong by a score alone (below
    ``low``: not mentioned; from ``high``: supported), and printed with what it decides."""
    threshold = default_threshold("faithfulness")
    fitted = [rows for (_, rows), use in zip(parts, fitting, strict=True) if use]

    def wrong(band: tuple[float, float], kind: str) -> int:
        count = 0
        for rows in fitted:
            for items, label in rows:
                _, decided, kinds = row_verdicts(items, cut, band, threshold)
                count += decided is not None and decided != bool(label) and kind in kinds
        return count

    low, high = widened_band(
        cut,
        lambda edge: wrong((edge, 2.0), trust.SCORE_NOT_MENTIONED) > 0,
        lambda edge: wrong((-1.0, edge), trust.SCORE_SUPPORTED) > 0,
    )
    print(
        f"\nfaithfulness: the unsure band [{low:.2f}, {high:.2f}) (no row of a fitting set decided"
    )
    print("  wrong by its score alone), decided rows' accuracy / coverage per set:")
    for name, rows in parts:
        decided = [(row_verdicts(i, cut, (low, high), threshold)[1], y) for i, y in rows]
        kept = [(d, y) for d, y in decided if d is not None]
        right = sum(d == bool(y) for d, y in kept)
        print(f"  {name}: {right / max(1, len(kept)):.3f} / {len(kept) / len(rows):.2f}")
    return low, high


def _sure(right: int, seen: int) -> bool:
    """Whether ``right`` of ``seen`` decided rows is a measured precision of at least
    ``trust.MIN_PRECISION``."""
    return seen >= MIN_VERDICTS and right / seen >= trust.MIN_PRECISION


def kinds_table(
    parts: list[tuple[str, list[tuple[list[Read], int]]]],
    threshold: float,
    shipped: frozenset[str] | None = None,
) -> frozenset[str]:
    """Print, per kind of evidence, how many of the decided rows resting on it are right on
    each set and on all of them, and return the kinds at or above ``trust.MIN_PRECISION`` on
    :data:`MIN_VERDICTS` rows or more, on all the sets together and on each set where it
    rests under that many. A kind's rows are those it decides beside the ``shipped`` kinds
    (every kind where ``None``): a row another kind leaves unsure is none of its verdicts.
    ``parts``: each set's rows, each row's items read as (yes, kind) with the shipped band,
    and its label."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    seen_kinds = {kind for _, rows in parts for read, _ in rows for _, kind in read}
    for kind in sorted(seen_kinds):
        beside = None if shipped is None else shipped | {kind}
        for name, rows in parts:
            for read, label in rows:
                _, decided, kinds = decide(read, threshold, beside)
                if decided is not None and kind in kinds:
                    for where in (name, "all"):
                        counts[kind][where][0] += decided == bool(label)
                        counts[kind][where][1] += 1
    names = [name for name, _ in parts]
    print("\n| kind of evidence | " + " | ".join(names) + " | all | decides alone |")
    print("|---|" + "---|" * (len(names) + 2))
    trusted = set()
    for kind, cells in sorted(counts.items(), key=lambda kv: -kv[1]["all"][1]):
        right, seen = cells["all"]
        sure = _sure(right, seen) and all(
            _sure(*cells[n]) for n in names if cells[n][1] >= MIN_VERDICTS
        )
        if sure:
            trusted.add(kind)
        shown = [f"{cells[n][0]}/{cells[n][1]}" if cells[n][1] else "" for n in names]
        print(
            f"| {kind} | " + " | ".join(shown) + f" | {right}/{seen} = {right / seen:.3f} | "
            f"{'yes' if sure else 'no'} |"
        )
    return frozenset(trusted)


# ----------------------------------------------------------------------------- overrides


OVERRIDES = ("_wording_only",)
"""The hand-written rules of ``support.SCORE_RULES`` that move a claim's score against the
support model (the others only name the kind of evidence of a verdict)."""


@contextmanager
def _without(name: str) -> Iterator[None]:
    """The local judge with the rule ``name`` of ``support.SCORE_RULES`` switched off."""
    kept = support.SCORE_RULES
    support.SCORE_RULES = tuple(r for r in kept if r.__name__ != name)
    try:
        yield
    finally:
        support.SCORE_RULES = kept


async def _forced_rows(
    judge: LocalJudge, rows: list[dict[str, Any]], capped: bool = True
) -> list[bool]:
    """The forced verdict of each row at the judge's support threshold (``capped``: a claim
    only its wording supports is not supported, the wording-only rule as the judge has it)."""
    cut, threshold = judge.calibration.support, default_threshold("faithfulness")
    verdicts = []
    for row in rows:
        items = await claim_items(judge, row)
        items = items if capped else [replace(i, capped=False) for i in items]
        verdicts.append(row_verdicts(items, cut, None, threshold)[0])
    return verdicts


async def overrides_table(judge: LocalJudge, sets: list[tuple[str, list[dict[str, Any]]]]) -> None:
    """Print, per hand-written rule that moves a claim's score (:data:`OVERRIDES`), the rows
    of each set whose forced verdict it sets (switching it off changes it) and how many of
    them it sets right: its measured precision, which must be at least
    ``trust.MIN_PRECISION`` for the rule to stay (:func:`_stays`)."""
    names = [name for name, _ in sets]
    shipped = [await _forced_rows(judge, rows) for _, rows in sets]
    print("\nfaithfulness: each hand override, right / rows whose forced verdict it sets")
    print("| override | " + " | ".join(names) + " | all | stays |")
    print("|---|" + "---|" * (len(names) + 2))
    for rule in OVERRIDES:
        with _without(rule):
            off = [await _forced_rows(judge, rows, rule != "_wording_only") for _, rows in sets]
        cells = [
            [(s == bool(r["label"])) for s, o, r in zip(on, without, rows, strict=True) if s != o]
            for on, without, (_, rows) in zip(shipped, off, sets, strict=True)
        ]
        right, seen = sum(sum(c) for c in cells), sum(len(c) for c in cells)
        shown = [f"{sum(c)}/{len(c)}" if c else "" for c in cells]
        print(
            f"| {rule.strip('_')} | "
            + " | ".join(shown)
            + f" | {right}/{seen} | {_stays(right, seen)} |"
        )


def _stays(right: int, seen: int) -> str:
    """Whether a hand override stays: no row it sets measures it under
    ``trust.MIN_PRECISION`` (said with how many rows it rests on)."""
    if not seen:
        return "sets no verdict on these rows: nothing measures it"
    if right / seen < trust.MIN_PRECISION:
        return f"no ({right / seen:.3f})"
    few = "" if seen >= MIN_VERDICTS else f", on fewer than {MIN_VERDICTS} rows"
    return f"yes ({right / seen:.3f}{few})"
