"""The persistent judge cache: an unchanged re-run costs nothing.

One JSON file per judge request, named by a hash of everything that determines the reply:
the judge's identity (kind, model and the settings that change answers, see
:meth:`~rag_eval_pytest.judges.base.Judge.fingerprint`), the full prompt (system and user
text, so the question, its instructions and the data), the output schema and the pass
index (passes of a vote are distinct requests). Beside them, one entry per question asked
records the voted outcome (the validated answer, its notes and agreement, and how many
requests it took), so a warm re-run reads one entry per question instead of re-parsing and
re-voting every pass. Only replies, outcomes and token counts are stored — never the prompt,
a header or a key. A judge without a stable identity (a lambda) is not cached on disk.
Writes go to a temporary file in the same directory and are renamed into place, which is
atomic, so concurrent processes (xdist workers, parallel CI jobs) never read a half-written
entry; two writers of one key write the same content and the last rename wins. Each entry
carries a checksum of its key and value: an entry that cannot be read or whose checksum does
not match (truncated, edited, another version, written before entries had checksums) is a
miss and is rewritten. The checksum detects damage and hand edits; it is no signature, so a
cache is restored only from runs that are trusted (never from a fork's).

The cache does not only grow: reading an entry refreshes its file's modification time (at
most once an hour per entry, so a warm run writes almost nothing), and at the end of each run
the process that aggregates it calls :func:`prune_cache`, which removes the entries (and the
sentence vectors kept beside them) not used for ``judge.cache_max_age_days``, then the least
recently used ones until the folder is under ``judge.cache_max_mb``. A warm run reads a
question's outcome, not the replies it was voted from: those go when unused for the age, and
the outcome goes on answering.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import TEMP_PREFIX, write_atomic

if TYPE_CHECKING:
    from collections.abc import Mapping

CACHE_VERSION = 1
REFRESH_AFTER_S = 3600.0
"""A read refreshes an entry's modification time when it is older than this: pruning counts
in days, so a warm run need not write the time of every entry it reads."""


def cache_key(
    *,
    kind: str,
    model: str,
    system: str,
    user: str,
    schema_json: str,
    pass_index: int,
    settings: Mapping[str, str] | None = None,
) -> str:
    """The hash of a request: SHA-256 of ``json.dumps`` (keys sorted, ``ensure_ascii=False``)
    of ``{"v", "kind", "model", "system", "user", "schema", "pass"}``, plus ``"judge"``: the
    rest of the judge's identity (its class, its server), when it has any. The text is
    assembled from its parts, the schema's part serialised once per schema, because the
    prompt is hashed for every lookup of a warm run."""
    judge = (
        '{"judge": ' + json.dumps(dict(settings), sort_keys=True, ensure_ascii=False) + ", "
        if settings
        else "{"
    )
    material = "".join(
        (
            judge,
            '"kind": ',
            _dumps(kind),
            ', "model": ',
            _dumps(model),
            ', "pass": ',
            str(int(pass_index)),
            ', "schema": ',
            _sorted_json(schema_json),
            ', "system": ',
            _dumps(system),
            ', "user": ',
            _dumps(user),
            f', "v": {CACHE_VERSION}}}',
        )
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _dumps(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


@functools.lru_cache(maxsize=256)
def _sorted_json(schema_json: str) -> str:
    return json.dumps(json.loads(schema_json), sort_keys=True, ensure_ascii=False)


class JudgeCache:
    """Reply records by key under ``directory`` (created on first write)."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.directory)!r})"

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, field: str = "reply") -> dict[str, Any] | None:
        """The stored record (a request's ``reply``, a question's voted ``outcome``), or
        ``None`` for a miss (absent or unreadable)."""
        raw = read_entry(self._path(key))
        if raw is None:
            return None
        data = _parsed(raw)
        if not _intact(data, key, field):
            return None
        record: dict[str, Any] = data[field]
        return record

    def put(self, key: str, record: dict[str, Any], field: str = "reply") -> None:
        """Store ``record`` atomically. A failed write only costs a future miss."""
        path = self._path(key)
        entry = {
            "version": CACHE_VERSION,
            "key": key,
            field: record,
            "checksum": _checksum(key, field, record),
        }
        write_atomically(path, json.dumps(entry, ensure_ascii=False).encode("utf-8"))


def _parsed(raw: bytes) -> Any:
    """The entry's data; ``None`` when it is no JSON (or holds a number no count can be)."""
    try:
        return json.loads(
            raw.decode("utf-8"), parse_float=_finite_float, parse_constant=_no_constant
        )
    except ValueError:
        return None


def _intact(data: Any, key: str, field: str) -> bool:
    """Whether the entry is of this version and key, holds ``field``, and its checksum
    matches."""
    return (
        isinstance(data, dict)
        and data.get("version") == CACHE_VERSION
        and data.get("key") == key
        and isinstance(data.get(field), dict)
        and data.get("checksum") == _checksum(key, field, data[field])
    )


def _checksum(key: str, field: str, record: dict[str, Any]) -> str:
    """SHA-256 of the entry's key, field name and value, serialised canonically."""
    material = json.dumps([key, field, record], sort_keys=True, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(material.encode("utf-8")).hexdigest()


def read_entry(path: Path) -> bytes | None:
    """The bytes of a cache file, or ``None`` when it cannot be read; a file read is marked as
    used (its modification time set to now, when older than :data:`REFRESH_AFTER_S`), which
    keeps it from :func:`prune_cache`. A refresh that fails (a read-only cache) costs
    nothing but that."""
    try:
        with path.open("rb") as fh:
            data = fh.read()
            used = os.fstat(fh.fileno()).st_mtime
    except OSError:
        return None
    if time.time() - used > REFRESH_AFTER_S:
        with contextlib.suppress(OSError):
            os.utime(path)
    return data


@dataclass(frozen=True)
class Pruned:
    """What :func:`prune_cache` did: the files removed and kept, and their bytes."""

    removed: int
    removed_bytes: int
    kept: int
    kept_bytes: int


_ENTRY = re.compile(r"[0-9a-f]{64}\.(json|f32)")
_SHARD = re.compile(r"[0-9a-f]{2}")


def prune_cache(
    directory: Path,
    *,
    max_age_days: float | None,
    max_mb: float | None,
    now: float | None = None,
) -> Pruned:
    """Remove the cache files (reply and outcome entries, and the sentence vectors in its
    ``vectors-*`` folders) not used for ``max_age_days``, then the least recently used until
    the rest fit in ``max_mb`` (``None``: no limit of that kind). Only files named as the
    caches name theirs are touched (a ``judge.cache_dir`` shared with other files keeps
    them), and a temporary file older than a day (a write cut short) goes too. A file that
    cannot be removed is left; nothing here raises."""
    now = time.time() if now is None else now
    files, stale = _used_files(directory, now)
    kept, removed = _kept_and_removed(files, *_limits(now, max_age_days, max_mb))
    _remove([p for _, _, p in removed] + stale)
    return Pruned(
        removed=len(removed),
        removed_bytes=sum(size for _, size, _ in removed),
        kept=len(kept),
        kept_bytes=sum(size for _, size, _ in kept),
    )


UsedFile = tuple[float, int, Path]
"""A cache file: when it was last used, its size and its path."""


def _used_files(directory: Path, now: float) -> tuple[list[UsedFile], list[Path]]:
    """The cache's files, the most recently used first; and the temporary files older than a
    day (writes cut short)."""
    files: list[UsedFile] = []
    stale: list[Path] = []
    for path in _cache_files(directory):
        try:
            stat = path.stat()
        except OSError:
            continue
        if path.name.startswith(TEMP_PREFIX):
            if now - stat.st_mtime > 86400:
                stale.append(path)
            continue
        files.append((stat.st_mtime, stat.st_size, path))
    files.sort(key=lambda item: item[0], reverse=True)
    return files, stale


def _limits(
    now: float, max_age_days: float | None, max_mb: float | None
) -> tuple[float | None, float | None]:
    """The time before which a file is unused, and the bytes the cache may hold."""
    cutoff = None if max_age_days is None else now - max_age_days * 86400
    limit = None if max_mb is None else max_mb * 1024 * 1024
    return cutoff, limit


def _kept_and_removed(
    files: list[UsedFile], cutoff: float | None, limit: float | None
) -> tuple[list[UsedFile], list[UsedFile]]:
    """The files kept and those removed: those unused since ``cutoff``, and, once a file
    does not fit in ``limit`` bytes with the more recent ones, it and every older one."""
    kept: list[UsedFile] = []
    removed: list[UsedFile] = []
    total = 0
    full = False
    for item in files:
        used, size, _ = item
        full = full or _beyond(total + size, limit)
        if full or _beyond(cutoff, used):  # last used before the cutoff
            removed.append(item)
        else:
            kept.append(item)
            total += size
    return kept, removed


def _beyond(value: float | None, limit: float | None) -> bool:
    """Whether ``value`` is over ``limit`` (never, without one)."""
    return value is not None and limit is not None and value > limit


def _remove(paths: list[Path]) -> None:
    """Remove each file; one that cannot be removed is left."""
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink()


def _cache_files(directory: Path) -> list[Path]:
    """The cache's files: ``<2 hex>/<64 hex>.json`` and ``vectors-*/<2 hex>/<64 hex>.f32``,
    with the temporary files beside them."""
    try:
        vectors = [p for p in directory.iterdir() if p.name.startswith("vectors-")]
    except OSError:
        return []
    return [path for folder in [directory, *vectors] for path in _folder_files(folder)]


def _folder_files(folder: Path) -> list[Path]:
    """The cache's files in the two-letter shards of ``folder``."""
    try:
        shards = [p for p in folder.iterdir() if _is_shard(p)]
    except OSError:
        return []
    return [path for shard in shards for path in _shard_files(shard)]


def _is_shard(path: Path) -> bool:
    return _SHARD.fullmatch(path.name) is not None and path.is_dir()


def _shard_files(shard: Path) -> list[Path]:
    """The entries and temporary files of one shard."""
    try:
        names = os.listdir(shard)
    except OSError:
        return []
    return [
        shard / name for name in names if _ENTRY.fullmatch(name) or name.startswith(TEMP_PREFIX)
    ]


def write_atomically(path: Path, data: bytes) -> bool:
    """Replace ``path`` with ``data`` atomically; ``False`` when it could not be written (a
    cache only loses an entry)."""
    try:
        write_atomic(path, data, durable=False)
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
