"""The documents a test set is generated from: found under the paths given, read, made text.

Files and folders are given; a folder is walked (sorted, hidden entries skipped, links
followed once: a link back to a folder being walked is a loop and refused). Each file is read
whole up to the input size limit (:mod:`..data.reading`) and made text by its type:

* Markdown and plain text as they are;
* HTML: its text and headings (as Markdown headings), nothing of ``script``, ``style`` or
  other elements that are not read;
* PDF: each page's text, through ``pypdf`` (the ``pdf`` extra);
* JSONL: one ``{"text": ..., "source": ...}`` row per line, each a chunk a team has already
  made: kept as it is, its ``source`` as its id.

Anything unusable is one :class:`DocumentError` naming the file (and the line of a JSONL
row): an empty folder, a binary or unreadable file, one over the size limit, a link loop, a
PDF without text. Nothing is written before every document has been read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import TYPE_CHECKING

from ..data.reading import FileTooLarge, read_limited
from ..errors import DocumentError

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

KINDS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".jsonl": "jsonl",
}
"""The document types read, by file suffix; files of other types in a folder are skipped."""
KNOWN = "Markdown (.md), text (.txt), HTML (.html), PDF (.pdf) or JSONL (.jsonl)"
_BINARY_SAMPLE = 8192


@dataclass(frozen=True)
class Row:
    """One line of a JSONL document: a chunk the team has already made."""

    text: str
    source: str


@dataclass(frozen=True)
class Document:
    """One document: its ``name`` as given on the command line (a folder's files as the
    folder and their path in it), its type, and its text (headings as Markdown headings);
    ``rows`` for a JSONL file of chunks."""

    name: str
    kind: str
    text: str
    rows: tuple[Row, ...] = ()

    @property
    def size(self) -> int:
        return len(self.text) if not self.rows else sum(len(r.text) for r in self.rows)


def find_files(paths: Sequence[Path]) -> list[tuple[str, Path]]:
    """The document files under ``paths``, each once, with the name it is given by."""
    found: list[tuple[str, Path]] = []
    seen: set[Path] = set()
    for path in paths:
        for name, file in _files_of(path):
            real = file.resolve()
            if real not in seen:
                seen.add(real)
                found.append((name, file))
    return found


def _files_of(path: Path) -> list[tuple[str, Path]]:
    """The document files a path given names: a folder's, or the file itself."""
    if not (path.exists() or path.is_symlink()):
        raise DocumentError(f"{path}: no such file or folder")
    if path.is_dir():
        inside = list(_walk(path, path, ()))
        if not inside:
            raise DocumentError(f"{path}: holds no document ({KNOWN})")
        return inside
    if path.is_file():
        return [_document_file(path)]
    raise DocumentError(f"{path}: not a file or a folder (a broken link, a device)")


def _document_file(path: Path) -> tuple[str, Path]:
    if path.suffix.lower() not in KINDS:
        raise DocumentError(
            f"{path}: unknown document type {path.suffix or '(none)'!r}: give {KNOWN}"
        )
    return path.as_posix(), path


def _walk(
    root: Path, folder: Path, walking: tuple[tuple[int, int], ...]
) -> Iterator[tuple[str, Path]]:
    """The documents under ``folder``, sorted; ``walking``: the folders it is inside of."""
    here = _entered(folder, walking)
    for entry in _entries(folder):
        if entry.is_dir():
            yield from _walk(root, entry, (*walking, here))
        elif entry.is_file() and entry.suffix.lower() in KINDS:
            yield (root / entry.relative_to(root)).as_posix(), entry


def _entered(folder: Path, walking: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """The folder's identity (device, inode), refused when it is one it is inside of."""
    stat = folder.stat()
    here = (stat.st_dev, stat.st_ino)
    if here in walking:
        raise DocumentError(
            f"{folder}: a link loop (it leads back to a folder it is inside of); remove the "
            "link or give the folders apart"
        )
    return here


def _entries(folder: Path) -> list[Path]:
    """The folder's entries by name, the hidden ones left out."""
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise DocumentError(f"{folder}: cannot be read ({exc.strerror})") from None
    return [entry for entry in entries if not entry.name.startswith(".")]


def read_documents(paths: Sequence[Path]) -> list[Document]:
    """Every document under ``paths``, read; one :class:`DocumentError` for the first that
    cannot be used."""
    return [read_document(name, file) for name, file in find_files(paths)]


def read_document(name: str, path: Path) -> Document:
    kind = KINDS[path.suffix.lower()]
    data = _read(name, path)
    if kind == "pdf":
        from .pdf import pdf_text

        return Document(name, kind, pdf_text(name, data))
    text = _text(name, data)
    if kind == "jsonl":
        return Document(name, kind, "", _rows(name, text))
    if kind == "html":
        text = html_text(text)
    if not text.strip():
        raise DocumentError(f"{name}: holds no text")
    return Document(name, kind, text)


def _read(name: str, path: Path) -> bytes:
    try:
        return read_limited(path)
    except FileTooLarge as exc:
        raise DocumentError(f"{name}: {exc}; split it into several files") from None
    except OSError as exc:
        raise DocumentError(f"{name}: cannot be read ({exc.strerror})") from None


def _text(name: str, data: bytes) -> str:
    if b"\x00" in data[:_BINARY_SAMPLE]:
        raise DocumentError(f"{name}: not a text file (it holds binary data)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"{name}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from None


def _rows(name: str, text: str) -> tuple[Row, ...]:
    rows: list[Row] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        rows.append(_row(f"{name}: line {number}", line))
    if not rows:
        raise DocumentError(f'{name}: holds no row (one {{"text", "source"}} object a line)')
    return tuple(rows)


def _row(where: str, line: str) -> Row:
    try:
        item = json.loads(line)
    except ValueError as exc:
        raise DocumentError(f"{where}: not JSON ({exc})") from None
    if not isinstance(item, dict):
        raise DocumentError(f'{where}: expected an object {{"text", "source"}}')
    for field in ("text", "source"):
        _check_text(where, field, item.get(field))
    return Row(text=item["text"], source=item["source"])


def _check_text(where: str, field: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        problem = "is required" if value is None else "must be non-empty text"
        raise DocumentError(f"{where}: field {field!r} {problem}")


# --------------------------------------------------------------------------- HTML

_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "head", "iframe"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = frozenset(
    {"p", "div", "section", "article", "li", "ul", "ol", "tr", "table", "br", "pre",
     "blockquote", "main", "header", "footer", "nav", "aside", "dd", "dt", "dl", "hr"}
)  # fmt: skip


class _HtmlText(HTMLParser):
    """The text of an HTML page, block by block, headings as Markdown headings."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._current: list[str] = []
        self._skipping = 0
        self._heading: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skipping += 1
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._flush()
            self._heading = _HEADINGS.get(tag, self._heading)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skipping = max(self._skipping - 1, 0)
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._flush()
            if tag in _HEADINGS:
                self._heading = None

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self._current.append(data)

    def _flush(self) -> None:
        text = " ".join("".join(self._current).split())
        self._current = []
        if text:
            self.blocks.append(f"{'#' * self._heading} {text}" if self._heading else text)

    def close(self) -> None:
        super().close()
        self._flush()


def html_text(page: str) -> str:
    """The text of an HTML page: its paragraphs apart, its headings as Markdown headings."""
    parser = _HtmlText()
    parser.feed(page)
    parser.close()
    return "\n\n".join(parser.blocks)


def digest(documents: Sequence[Document]) -> str:
    """One digest of the documents' names and contents (``sha256:...``)."""
    hasher = hashlib.sha256()
    for document in sorted(documents, key=lambda d: d.name):
        hasher.update(document.name.encode("utf-8") + b"\0" + document.text.encode("utf-8"))
        for row in document.rows:
            hasher.update(b"\0" + row.source.encode("utf-8") + b"\0" + row.text.encode("utf-8"))
        hasher.update(b"\1")
    return f"sha256:{hasher.hexdigest()}"
