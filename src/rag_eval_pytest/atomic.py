"""Replacing a file atomically: the data goes to a temporary file beside the target, which is
then renamed over it, so a concurrent reader (another xdist worker, a parallel CI job, a
dashboard polling the report) sees the old file or the whole new one, never half of it.
Used by the reports and by the judge and vector caches.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

TEMP_PREFIX = ".tmp-"
"""Temporary files start with this; none is left behind, whatever happens."""


def write_atomic(path: Path, data: str | bytes, *, durable: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically. ``durable`` also flushes it to
    the disk before the rename (the reports; a cache entry can do without). Raises
    :class:`OSError` when it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX, suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
