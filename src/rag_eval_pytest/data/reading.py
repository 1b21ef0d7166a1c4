"""Reading an input file whole, up to one size limit: a dataset, a file to convert, a report.

A path may name something without an end (``/dev/zero``, a pipe that never closes) or a
file far larger than memory: the reading stops one byte past :data:`MAX_FILE_BYTES`, so the
file is refused by name instead of the process growing until the kernel ends it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from io import FileIO
    from pathlib import Path

MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest input file read (256 MiB): a dataset of a few hundred thousand cases. A larger
dataset is split into several files (each given to ``--rag-dataset``) or run in shards."""

_CHUNK = 1024 * 1024


class FileTooLarge(ValueError):
    """The file holds more than :data:`MAX_FILE_BYTES`; the message says so."""

    def __init__(self) -> None:
        super().__init__(
            f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB, the most an input file may hold"
        )


def read_limited(path: Path) -> bytes:
    """The bytes of ``path``. Raises :class:`FileTooLarge` past :data:`MAX_FILE_BYTES`
    (having read at most one more byte), and ``OSError`` as ``open`` does."""
    limit = MAX_FILE_BYTES
    with path.open("rb", buffering=0) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise FileTooLarge
        parts = _parts(fh, size, limit)
    if sum(map(len, parts)) > limit:
        raise FileTooLarge
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _parts(fh: FileIO, size: int, limit: int) -> list[bytes]:
    """The file's bytes as read, up to one byte past ``limit``: a regular file in one read
    of its ``size``, a device or a pipe (size 0) by chunks."""
    parts: list[bytes] = []
    total = 0
    want = size + 1 if size else _CHUNK
    while total <= limit:
        part = fh.read(min(want, limit + 1 - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
        want = _CHUNK
    return parts
