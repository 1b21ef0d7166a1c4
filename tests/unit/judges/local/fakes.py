"""Stand-ins for what the local judge loads: PyTorch (importing it takes seconds), an encoder
that gives each text a fixed unit vector and counts its calls, and an embedder for the judge
built on that encoder. Nothing here loads a model."""

from __future__ import annotations

import contextlib
import hashlib
import sys
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest

from rag_eval_pytest.judges.local.embeddings import DIMENSIONS, LocalEmbedder


def fake_torch(
    monkeypatch: pytest.MonkeyPatch, *, cuda: bool = False, build: str | None = None
) -> ModuleType:
    """``torch`` as the modules under test use it: its version, whether CUDA is seen (and
    whether the build has CUDA), devices, dtypes and inference mode."""
    torch = ModuleType("torch")
    for name, value in {
        "__version__": "2.13.0+cpu",
        "cuda": SimpleNamespace(is_available=lambda: cuda),
        "version": SimpleNamespace(cuda=build),
        "device": lambda name: f"device({name})",
        "float32": "float32",
        "inference_mode": contextlib.nullcontext,
    }.items():
        setattr(torch, name, value)
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


def unit_vector(text: str, width: int = DIMENSIONS) -> np.ndarray:
    """A unit vector of its own for each text (the same every time)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).normal(size=width).astype(np.float32)
    return vector / np.linalg.norm(vector)


class Encoder:
    """The loaded model: the texts of each call, and their vectors (an error, if given)."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.calls: list[list[str]] = []
        self.batch_sizes: list[int] = []
        self.error = error

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        self.calls.append(list(texts))
        self.batch_sizes.append(batch_size)
        if self.error is not None:
            raise self.error
        return np.vstack([unit_vector(t) for t in texts])


def embedder(encoder: Encoder | None = None, **settings: Any) -> LocalEmbedder:
    """An embedder whose model is ``encoder``, already loaded."""
    made = LocalEmbedder(**settings)
    made._model = encoder or Encoder()
    return made
