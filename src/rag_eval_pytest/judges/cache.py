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
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import write_atomic

if TYPE_CHECKING:
    from collections.abc import Mapping

CACHE_VERSION = 1


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
            or not isinstance(data.get(field), dict)
            or data.get("checksum") != _checksum(key, field, data[field])
        ):
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


def _checksum(key: str, field: str, record: dict[str, Any]) -> str:
    """SHA-256 of the entry's key, field name and value, serialised canonically."""
    material = json.dumps([key, field, record], sort_keys=True, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(material.encode("utf-8")).hexdigest()


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
