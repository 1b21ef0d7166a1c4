"""Replacing a file atomically: the data goes to a temporary file beside the target, which is
then renamed over it, so a concurrent reader (another xdist worker, a parallel CI job, a
dashboard polling the report) sees the old file or the whole new one, never half of it.
Used by the reports and by the judge and vector caches.

No command writes over one of its inputs (under any name: a link, a relative path), and an
output that exists is replaced only with ``--force``: :func:`output_refusal`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

TEMP_PREFIX = ".tmp-"
"""Temporary files start with this; none is left behind, whatever happens."""


def write_atomic(
    path: Path, data: str | bytes, *, durable: bool = True, shared: bool = False
) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically. ``durable`` also flushes it to
    the disk before the rename (the reports; a cache entry can do without). ``shared`` gives
    the file the mode a plain ``open()`` would (0644 under umask 022: the reports, which an
    artifact uploader running as another user reads); otherwise it is private to its owner
    (0600: the caches). Raises :class:`OSError` when it cannot be written."""
    with atomic_writer(path, durable=durable, shared=shared, binary=True) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)


@contextlib.contextmanager
def atomic_writer(
    path: Path, *, durable: bool = True, shared: bool = False, binary: bool = False
) -> Iterator[Any]:
    """A file to write ``path`` through, in parts (a report written case by case): text in
    UTF-8, or bytes with ``binary``; renamed over ``path`` when the block ends, and removed
    when it raises, as :func:`write_atomic` does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if shared:
        fd, tmp = _open_temp(path)
    else:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX, suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") if binary else _text(fd) as fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _text(fd: int) -> Any:
    """The file as text in UTF-8, each line ending written as it is."""
    return open(fd, "w", encoding="utf-8", newline="")


def _open_temp(path: Path) -> tuple[int, str]:
    """A new temporary file beside ``path`` created with mode 0666, which the kernel narrows
    by the process's umask, as it does for any file a program creates."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = str(path.parent / f"{TEMP_PREFIX}{secrets.token_hex(8)}{path.suffix}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:  # pragma: no cover - 64 random bits taken
            continue


def output_refusal(
    out: Path,
    inputs: Sequence[Path],
    *,
    force: bool,
    role: str,
    advice: str = "name another file to write",
) -> str | None:
    """Why ``out`` is not written, or ``None``: it is one of the command's input files
    (under any name: a link, a relative path), or it exists and ``--force`` was not given."""
    if not (out.exists() or out.is_symlink()):
        return None
    same = _input_named(out, inputs)
    if same is not None:
        return f"{out}: {role} is the input file {same}; {advice}"
    if not force:
        return f"{out}: already exists; give --force to replace it"
    return None


def _input_named(out: Path, inputs: Sequence[Path]) -> Path | None:
    """The input file that ``out`` names, under whichever name, if it names one."""
    return next((path for path in inputs if _same_file(path, out)), None)


def _same_file(path: Path, other: Path) -> bool:
    try:
        return os.path.samefile(path, other)
    except OSError:  # one of them does not exist (a link to nowhere)
        return False
