"""The persistent judge cache: an unchanged re-run costs nothing.

One JSON file per judge request, named by a hash of everything that determines the reply:
judge kind, model, the full prompt (system and user text, so the question, its instructions
and the data), the output schema and the pass index (passes of a vote are distinct
requests). Only the reply and its token counts are stored — never the prompt, a header or a
key. Writes go to a temporary file in the same directory and are renamed into place, which is
atomic, so concurrent processes (xdist workers, parallel CI jobs) never read a half-written
entry; two writers of one key write the same content and the last rename wins. An entry that
cannot be read (truncated, edited, another version) is a miss and is rewritten.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

CACHE_VERSION = 1


def cache_key(
    *, kind: str, model: str, system: str, user: str, schema: Any, pass_index: int
) -> str:
    material = json.dumps(
        {
            "v": CACHE_VERSION,
            "kind": kind,
            "model": model,
            "system": system,
            "user": user,
            "schema": schema,
            "pass": pass_index,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class JudgeCache:
    """Reply records by key under ``directory`` (created on first write)."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.directory)!r})"

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored record, or ``None`` for a miss (absent or unreadable)."""
        try:
            data = json.loads(
                self._path(key).read_text(encoding="utf-8"),
                parse_float=_finite_float,
                parse_constant=_no_constant,
            )
        except (OSError, ValueError):
            return None
        if (
            not isinstance(data, dict)
            or data.get("version") != CACHE_VERSION
            or data.get("key") != key
            or not isinstance(data.get("reply"), dict)
        ):
            return None
        reply: dict[str, Any] = data["reply"]
        return reply

    def put(self, key: str, reply: dict[str, Any]) -> None:
        """Store ``reply`` atomically. A failed write only costs a future miss."""
        path = self._path(key)
        record = {"version": CACHE_VERSION, "key": key, "reply": reply}
        write_atomically(path, json.dumps(record, ensure_ascii=False).encode("utf-8"))


def write_atomically(path: Path, data: bytes) -> bool:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place, so that a
    concurrent reader sees the old file or the whole new one. ``False`` when it could not
    be written (a cache only loses an entry)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def _finite_float(text: str) -> float:
    # An edited entry's 1e999 would be infinity, which no token count can be.
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text}")
    return value


def _no_constant(text: str) -> float:
    raise ValueError(f"{text} is not valid in a cache entry")
