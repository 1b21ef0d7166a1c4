"""The relevance models that ship and how they are chosen: the answer-relevance model (an
answer's similarity to its question, the share of the question's words it holds, whether it
gives what the question asks for) and the context-sentence model (a sentence's similarity to
the question), each with its cut and unsure band, fitted only on the rows of the sets whose
licence allows it (``fitting.LICENCES``: of the relevance sets, the hard cases alone); the
others are printed beside them, measured, never fitted on.

The part of ``judge_accuracy.py --fit`` for the two relevance tasks. A row's forced verdict
is the one the judge gives with every item decided: an answer is relevant where a rule says
it answers its question (it restates the question and gives what it asks for, or it is a
short direct answer) or its probability reaches the cut, and not where it only declines; a
passage where one of its sentences answers the question by the rule or reaches the cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import fitting  # benchmarks/fitting.py, beside this script
import numpy as np

from rag_eval_pytest.judges.local import LocalJudge
from rag_eval_pytest.judges.local.support import logistic


@dataclass(frozen=True)
class Row:
    """One relevance row as the models read it: the features of each of its items (the
    answer, or each context sentence), whether a rule says the item answers the question
    whatever its probability, and whether the answer only declines."""

    features: list[list[float]]
    answers: list[bool]
    declines: bool
    label: int

    def fitted_on(self) -> list[float]:
        """The features a row is fitted on: its answer's, or its closest sentence's (a
        passage is relevant when one sentence is)."""
        return max(self.features, key=lambda f: f[0])

    def needed(self, weights: tuple[float, ...], bias: float, cut: float) -> list[bool]:
        """Per item: whether a rule or its probability at the cut makes it relevant."""
        return [
            rule or logistic(weights, bias, f) >= cut
            for f, rule in zip(self.features, self.answers, strict=True)
        ]

    def forced(self, weights: tuple[float, ...], bias: float, cut: float) -> bool:
        return not self.declines and any(self.needed(weights, bias, cut))

    def share(self, weights: tuple[float, ...], bias: float, cut: float) -> float:
        """The context relevance metric's score: the share of the row's sentences needed."""
        needed = self.needed(weights, bias, cut)
        return sum(needed) / len(needed) if needed else 0.0

    def by_score(self, weights: tuple[float, ...], bias: float, band: tuple[float, float]) -> str:
        """ "yes" or "no" where its score alone, outside ``band``, decides the row (no rule
        does), else ""."""
        if self.declines or any(self.answers):
            return ""
        ps = [logistic(weights, bias, f) for f in self.features]
        if any(p >= band[1] for p in ps):
            return "yes"
        return "no" if all(p < band[0] for p in ps) else ""


async def read_row(judge: LocalJudge, task: str, row: dict[str, Any]) -> Row:
    """A row of ``task`` as the judge reads it."""
    from rag_eval_pytest.judges.local.claims import declines
    from rag_eval_pytest.judges.local.facts import plain_form
    from rag_eval_pytest.judges.local.relevance import (
        answer_features,
        answers_question,
        direct_answer,
        restates,
    )
    from rag_eval_pytest.text.sentences import split_sentences

    question = plain_form(row.get("question") or "")
    label = int(row["label"])
    if task == "answer_relevance":
        answer = plain_form(row["answer"])
        q, a = await judge.embedder.vectors([question, answer])
        features = answer_features(question, answer, q, a)
        rule = restates(features) or direct_answer(question, answer, features[2])
        return Row([features], [rule], declines(row["answer"]), label)
    sentences = [plain_form(s) for c in row["contexts"] for s in split_sentences(c)]
    vectors = await judge.embedder.vectors([question, *sentences])
    features = [[float(v @ vectors[0])] for v in vectors[1:]]
    rules = [answers_question(question, s, f[0]) for s, f in zip(sentences, features, strict=True)]
    return Row(features, rules, False, label)


Part = tuple[str, list[Row]]


@dataclass(frozen=True)
class Fitted:
    weights: tuple[float, ...]
    bias: float
    support: float
    unsure: tuple[float, float]


def fit(task: str, parts: list[Part]) -> Fitted:
    """The model of ``task`` fitted on the rows of the sets that may be fitted on, its cut
    by the rule of ``fitting.support_threshold`` (the pooled balanced accuracy averaged over
    the cuts near each one), its band widened from the ends of the scale while no fitted row
    is decided wrong by its score alone; each printed beside every set's numbers."""
    from sklearn.linear_model import LogisticRegression

    used = [i for i, (name, _) in enumerate(parts) if fitting.may_fit(name)]
    rows = [r for i in used for r in parts[i][1] if not r.declines]
    model = LogisticRegression(C=1.0, max_iter=5000)
    model.fit(np.array([r.fitted_on() for r in rows]), np.array([r.label for r in rows]))
    weights = tuple(round(float(w), 2) for w in model.coef_[0])
    bias = round(float(model.intercept_[0]), 2)
    names = ", ".join(parts[i][0] for i in used)
    print(f"\n{task}: fitted on {names}: weights {weights}, bias {bias}")
    cut = _cut(task, parts, used, weights, bias)
    band = _band(parts, used, weights, bias, cut)
    fitted = Fitted(weights, bias, cut, band)
    print(f"  the fitted {task} model: {fitted}")
    if task == "context_relevance":
        _metric_thresholds(parts, used, fitted)
    return fitted


def _metric_thresholds(parts: list[Part], used: list[int], fitted: Fitted) -> None:
    """Print the context relevance metric's balanced accuracy by its threshold (the share of
    needed sentences from which a passage passes), with the fitted sentence model: its
    default, 0.1, is a rule (one sentence in ten), not chosen here."""
    hits = []
    for _, rows in parts:
        shares = [r.share(fitted.weights, fitted.bias, fitted.support) for r in rows]
        right = [
            [(v >= t) == bool(r.label) for t in fitting.CUTS]
            for v, r in zip(shares, rows, strict=True)
        ]
        hits.append(np.array(right))
    labels = [np.array([r.label for r in rows]) for _, rows in parts]
    print("  context_relevance: the metric's balanced accuracy by its threshold")
    fitting.print_curves("threshold", [n for n, _ in parts], hits, labels, used)


def _cut(
    task: str, parts: list[Part], used: list[int], weights: tuple[float, ...], bias: float
) -> float:
    hits = [
        np.array(
            [[r.forced(weights, bias, c) == bool(r.label) for c in fitting.CUTS] for r in rows]
        )
        for _, rows in parts
    ]
    labels = [np.array([r.label for r in rows]) for _, rows in parts]
    print(f"  {task}: forced balanced accuracy by cut")
    pooled = fitting.print_curves("cut", [n for n, _ in parts], hits, labels, used)
    cut = fitting.stable_cut(pooled)
    print(
        f"  the pooled balanced accuracy averaged over {fitting.SMOOTHING} steps each side: {cut}"
    )
    return cut


def _band(
    parts: list[Part], used: list[int], weights: tuple[float, ...], bias: float, cut: float
) -> tuple[float, float]:
    fitted = [r for i in used for r in parts[i][1]]

    def wrong(band: tuple[float, float], said: str) -> bool:
        return any(
            r.by_score(weights, bias, band) == said and (said == "yes") != bool(r.label)
            for r in fitted
        )

    low, high = fitting.widened_band(
        cut, lambda edge: wrong((edge, 2.0), "no"), lambda edge: wrong((-1.0, edge), "yes")
    )
    print(f"  the unsure band [{low:.2f}, {high:.2f}) (no fitted row decided wrong by its score)")
    for name, rows in parts:
        said = [(r.by_score(weights, bias, (low, high)), r.label) for r in rows]
        kept = [(s, y) for s, y in said if s]
        right = sum((s == "yes") == bool(y) for s, y in kept)
        print(f"  {name}: by score alone {right}/{len(kept)} right, of {len(rows)} rows")
    return low, high
