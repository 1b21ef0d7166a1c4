"""An optional entailment (NLI) model beside the rules, from a local file: nothing is
downloaded.

``judge.local.nli_model`` names either

* a folder holding a saved sequence-classification cross-encoder (``config.json``, weights,
  tokenizer; loaded with transformers, ``local_files_only``), or
* an ``.onnx`` file with a ``tokenizer.json`` beside it (needs ``onnxruntime`` and
  ``tokenizers``; inputs ``input_ids``, ``attention_mask`` and, if the graph has it,
  ``token_type_ids``; first output the logits).

For each claim and its best context passage the model gives the probability that the passage
entails the claim. ``labels`` names the outputs in order; when not given, the folder's
``config.json`` ``id2label`` is read, else the common NLI order ``contradiction, entailment,
neutral``. A model with one output is read as the logit of entailment.

How it combines with the rules (:func:`combine`): a conflict found by a deterministic check
(a number, a date, a negation) stays contradicted; otherwise the model decides: entailment
from ``threshold`` supports, a contradiction that outweighs entailment contradicts, anything
else is not mentioned.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError
from ...extras import install_line, installed

if TYPE_CHECKING:
    from .support import ClaimSupport, Verdict

DEFAULT_LABELS = ("contradiction", "entailment", "neutral")
MAX_TOKENS = 512
BATCH = 16


@dataclass(frozen=True)
class Entailment:
    entailment: float
    contradiction: float


class EntailmentModel:
    """A local cross-encoder NLI model (folder or ``.onnx`` file), loaded on first use."""

    def __init__(self, path: str, labels: list[str] | None = None) -> None:
        target = Path(path).expanduser()
        self.onnx = target.suffix.lower() == ".onnx"
        (_check_onnx_file if self.onnx else _check_model_folder)(target, path)
        self.path = target
        self.name = target.name
        self.labels = [label.lower() for label in (labels or self._labels_from_config())]
        if "entailment" not in self.labels:
            raise ConfigError(
                f"judge.local.nli_labels {self.labels} must name the 'entailment' output"
            )
        self._model: Any = None
        self._lock = threading.Lock()

    def _labels_from_config(self) -> list[str]:
        """The outputs' names of ``config.json``'s ``id2label``, unless none is
        ``entailment``: then the common NLI order."""
        labels = _config_labels((self.path.parent if self.onnx else self.path) / "config.json")
        if "entailment" in [label.lower() for label in labels]:
            return labels
        return list(DEFAULT_LABELS)

    # ------------------------------------------------------------------ loading

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    self._model = _OnnxRunner(self.path) if self.onnx else _TorchRunner(self.path)
                except ConfigError:
                    raise
                except Exception as exc:  # a broken model: say which and why
                    raise ConfigError(
                        f"judge.local.nli_model {str(self.path)!r} cannot be loaded: {exc}"
                    ) from None
            return self._model

    # ------------------------------------------------------------------ predicting

    def predict(self, pairs: list[tuple[str, str]]) -> list[Entailment]:
        """(premise, hypothesis) pairs -> entailment and contradiction probabilities."""
        if not pairs:
            return []
        runner = self._load()
        results: list[Entailment] = []
        for start in range(0, len(pairs), BATCH):
            for row in runner.logits(pairs[start : start + BATCH]):
                results.append(self._read(row))
        return results

    def _read(self, row: list[float]) -> Entailment:
        values = [v if math.isfinite(v) else 0.0 for v in row]
        if len(values) == 1:
            return Entailment(1 / (1 + math.exp(-max(-30.0, min(30.0, values[0])))), 0.0)
        peak = max(values)
        exps = [math.exp(v - peak) for v in values]
        total = sum(exps)
        probs = dict(zip(self.labels, (e / total for e in exps), strict=False))
        return Entailment(probs.get("entailment", 0.0), probs.get("contradiction", 0.0))

    async def apredict(self, pairs: list[tuple[str, str]]) -> list[Entailment]:
        return await asyncio.to_thread(self.predict, pairs)


def _check_onnx_file(target: Path, path: str) -> None:
    if not target.is_file():
        raise ConfigError(f"judge.local.nli_model {path!r}: no such ONNX file")


def _check_model_folder(target: Path, path: str) -> None:
    """A folder with a saved model's ``config.json``, and transformers to load it."""
    if not (target.is_dir() and (target / "config.json").is_file()):
        raise ConfigError(
            f"judge.local.nli_model {path!r} is neither a folder with a saved model "
            "(config.json) nor an .onnx file"
        )
    if not installed("transformers"):
        raise ConfigError(
            "judge.local.nli_model is a model folder, which needs transformers (it comes "
            f"with sentence-transformers): {install_line('sentence-transformers')}"
        )


def _config_labels(config: Path) -> list[str]:
    """``id2label`` of a model's ``config.json`` in the outputs' order; none when it cannot
    be read."""
    try:
        mapping = json.loads(config.read_text(encoding="utf-8")).get("id2label") or {}
        return [str(mapping[k]) for k in sorted(mapping, key=int)]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _float_rows(rows: list[list[Any]]) -> list[list[float]]:
    return [[float(v) for v in row] for row in rows]


class _TorchRunner:
    def __init__(self, folder: Path) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(
            str(folder), local_files_only=True
        )
        self.model.eval()

    def logits(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
        encoded = self.tokenizer(
            [p for p, _ in pairs],
            [h for _, h in pairs],
            padding=True,
            truncation=True,
            max_length=MAX_TOKENS,
            return_tensors="pt",
        )
        with self.torch.no_grad():
            output = self.model(**encoded).logits
        return _float_rows(output.tolist())


class _OnnxRunner:
    def __init__(self, file: Path) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError:
            raise ConfigError(
                "judge.local.nli_model is an .onnx file: pip install onnxruntime tokenizers"
            ) from None
        tokenizer_file = file.parent / "tokenizer.json"
        if not tokenizer_file.is_file():
            raise ConfigError(f"judge.local.nli_model: no tokenizer.json beside {file.name}")
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding()
        self.session = onnxruntime.InferenceSession(str(file), providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def logits(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
        encoded = self.tokenizer.encode_batch(list(pairs))
        output = self.session.run(None, self._feed(encoded))[0]
        return _float_rows(output.tolist())

    def _feed(self, encoded: list[Any]) -> dict[str, Any]:
        """The tokenised pairs as the graph's inputs (``token_type_ids`` where it has it)."""
        import numpy as np

        return {
            name: np.array([getattr(e, field) for e in encoded], dtype=np.int64)
            for name, field in _ONNX_INPUTS.items()
            if name in self.inputs
        }


_ONNX_INPUTS = {
    "input_ids": "ids",
    "attention_mask": "attention_mask",
    "token_type_ids": "type_ids",
}
"""The graph's inputs, and the field of a tokenised pair that fills each."""


async def combine(
    model: EntailmentModel, claims: list[str], verdicts: list[ClaimSupport], threshold: float
) -> list[ClaimSupport]:
    """The rules' verdicts revised by the entailment model (see the module docstring)."""
    results = await model.apredict([(v.evidence, c) for c, v in zip(claims, verdicts, strict=True)])
    return [_revised(v, nli, threshold) for v, nli in zip(verdicts, results, strict=True)]


def _revised(verdict: ClaimSupport, nli: Entailment, threshold: float) -> ClaimSupport:
    """One claim's verdict after the model: a conflict a rule found, or a claim without a
    passage, stays as the rules said."""
    from .support import ClaimSupport

    conflict = any(f.severity == "conflict" for f in verdict.findings)
    if conflict or not verdict.evidence:
        return verdict
    where = "the closest passage" if verdict.context is None else f"context {verdict.context + 1}"
    said, score, reason = _model_says(nli, threshold, where, verdict.evidence)
    return ClaimSupport(said, score, reason, verdict.evidence, verdict.context, verdict.findings)


def _model_says(
    nli: Entailment, threshold: float, where: str, evidence: str
) -> tuple[Verdict, float, str]:
    """The model's verdict, score and reason: a contradiction that outweighs entailment,
    entailment from ``threshold``, else not mentioned."""
    if nli.contradiction > max(nli.entailment, threshold):
        reason = (
            f"the entailment model finds a contradiction in {where} (p={nli.contradiction:.2f})"
        )
        return "contradicted", round(1 - nli.contradiction, 4), reason
    if nli.entailment >= threshold:
        reason = f"entailed by {where} (p={nli.entailment:.2f}): {evidence[:140]}"
        return "supported", round(nli.entailment, 4), reason
    return (
        "not mentioned",
        round(nli.entailment, 4),
        f"not entailed by {where} (p={nli.entailment:.2f})",
    )
