"""Sentence vectors on disk, beside the judge cache: a re-run encodes only new texts, and a
run whose texts are all known never loads the model (nor imports torch).

One file per text, named by a hash of the model, its package version and the text; the file
holds the vector's float32 bytes only (never the text). Writes go to a temporary file renamed
into place, so concurrent processes never read half a vector. A file of the wrong size, or
with a vector that is not finite and of unit length (damaged, edited), is a miss and is
rewritten. A vector read counts as used, and the judge cache's pruning removes the vectors
not used for a while with its own entries (:func:`~rag_eval_pytest.judges.cache.prune_cache`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..cache import read_entry, write_atomically

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]


class VectorCache:
    def __init__(self, directory: Path | str, model: str, dimensions: int | None) -> None:
        self.directory = Path(directory)
        self.model = model
        self.dimensions = dimensions

    def __repr__(self) -> str:
        return f"VectorCache({str(self.directory)!r}, {self.model!r})"

    def _path(self, text: str) -> Path:
        key = hashlib.sha256(f"{self.model}\0{text}".encode()).hexdigest()
        return self.directory / key[:2] / f"{key}.f32"

    def get_many(self, texts: Iterable[str]) -> dict[str, Vector]:
        """The stored vectors of ``texts`` that are on disk and sound."""
        found: dict[str, Vector] = {}
        for text in texts:
            vector = self._read(text)
            if vector is not None:
                found[text] = vector
        return found

    def _read(self, text: str) -> Vector | None:
        """The vector stored for ``text``; ``None`` when it is missing or unsound."""
        data = read_entry(self._path(text))
        if data is None or not self._sized(data):
            return None
        vector = np.frombuffer(data, dtype="<f4").astype(np.float32)
        return vector if _sound(vector) else None

    def _sized(self, data: bytes) -> bool:
        """Whole float32 numbers, as many as the model's dimensions where they are known."""
        if not data or len(data) % 4:
            return False
        return self.dimensions is None or len(data) == 4 * self.dimensions

    def put_many(self, vectors: Mapping[str, Vector]) -> None:
        """Store ``vectors`` atomically. A failed write only costs a future miss."""
        for text, vector in vectors.items():
            data = np.asarray(vector, dtype="<f4").tobytes()
            if not write_atomically(self._path(text), data):
                return


def _sound(vector: Vector) -> bool:
    """Finite and of unit length, as the encoder writes them: else damaged or edited."""
    return bool(np.isfinite(vector).all()) and abs(float(np.dot(vector, vector)) - 1.0) < 1e-3
