"""An optional entailment (NLI) model beside the rules: a local cross-encoder folder.

``judge.local.nli_model: path/to/cross-encoder`` points at a sentence-transformers
``CrossEncoder`` saved on disk (for example a fine-tuned NLI model you are licensed to use);
nothing is downloaded. For each claim and its best passage the model gives the probability
that the passage entails the claim; ``labels`` names the model's outputs in order (the common
NLI order is ``contradiction, entailment, neutral``). A single-output model is read as the
probability of entailment.
"""

from __future__ import annotations

import asyncio
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ConfigError


@dataclass(frozen=True)
class Entailment:
    entailment: float
    contradiction: float


class EntailmentModel:
    def __init__(self, path: str, labels: list[str]) -> None:
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise ConfigError(
                f"judge.local.nli_model {path!r} is not a folder with a saved cross-encoder"
            )
        if "entailment" not in labels:
            raise ConfigError("judge.local.nli_labels must name the 'entailment' output")
        self.path = folder
        self.labels = [label.lower() for label in labels]
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from sentence_transformers import CrossEncoder

                try:
                    self._model = CrossEncoder(str(self.path), local_files_only=True, device="cpu")
                except Exception as exc:  # a broken folder: say which and why
                    raise ConfigError(
                        f"judge.local.nli_model {str(self.path)!r} cannot be loaded: {exc}"
                    ) from None
            return self._model

    def predict(self, pairs: list[tuple[str, str]]) -> list[Entailment]:
        """(premise, hypothesis) pairs -> entailment and contradiction probabilities."""
        if not pairs:
            return []
        raw = self._load().predict(pairs, show_progress_bar=False, apply_softmax=False)
        results = []
        for row in raw:
            values = [float(v) for v in (row if hasattr(row, "__len__") else [row])]
            if len(values) == 1:
                p = 1 / (1 + math.exp(-values[0]))
                results.append(Entailment(p, 0.0))
                continue
            peak = max(values)
            exps = [math.exp(v - peak) for v in values]
            probs = dict(zip(self.labels, (e / sum(exps) for e in exps), strict=False))
            results.append(
                Entailment(probs.get("entailment", 0.0), probs.get("contradiction", 0.0))
            )
        return results

    async def apredict(self, pairs: list[tuple[str, str]]) -> list[Entailment]:
        return await asyncio.to_thread(self.predict, pairs)
