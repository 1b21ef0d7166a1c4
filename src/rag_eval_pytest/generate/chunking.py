"""Documents split into chunks with stable ids, the ids a RAG system returns.

A document is split at its headings (Markdown ``#`` lines; an HTML page's headings became
such lines when it was read), then at its paragraphs: paragraphs of one section are joined
into a chunk up to :data:`MAX_CHARS`, a longer paragraph is split between its sentences. A
chunk's id is ``<document>#<n>``, its number in its document counted from 1: the same
documents give the same ids. A JSONL row is one chunk as it is, named by its ``source``.

``expected_contexts`` name a case's chunks as the user's RAG system names what it returns
(:func:`source_name`): the document path as given (``path``, the default), or the chunk's
id (``chunk``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..text.sentences import split_sentences

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .documents import Document

SourceFormat = Literal["path", "chunk"]
MAX_CHARS = 1200
"""The most characters of text a chunk is joined up to from its section's paragraphs."""
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_FENCE = re.compile(r"^\s{0,3}(```|~~~).*?^\s{0,3}\1[^\n]*$", re.DOTALL | re.MULTILINE)
_TABLE = re.compile(r"^\s*\|")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?P<text>.+)$")


@dataclass(frozen=True)
class Chunk:
    """One chunk: its ``id``, its ``document`` (the name given), the heading it is under,
    its text."""

    id: str
    document: str
    heading: str | None
    text: str

    def source(self, form: SourceFormat) -> str:
        """How the user's RAG system names this chunk."""
        return self.id if form == "chunk" else self.document

    @property
    def full_text(self) -> str:
        """The heading and the text, as a retriever indexes them."""
        return f"{self.heading}\n{self.text}" if self.heading else self.text


def chunk_documents(documents: Sequence[Document]) -> list[Chunk]:
    """Every document's chunks, in the documents' order."""
    chunks: list[Chunk] = []
    for document in documents:
        chunks.extend(chunk_document(document))
    return chunks


def chunk_document(document: Document) -> list[Chunk]:
    if document.rows:
        return _row_chunks(document)
    pieces = [
        (heading, text)
        for heading, paragraphs in _sections(document.text, titled=document.kind == "text")
        for text in _joined(paragraphs)
    ]
    return [
        Chunk(f"{document.name}#{n}", document.name, heading, text)
        for n, (heading, text) in enumerate(pieces, start=1)
    ]


def _row_chunks(document: Document) -> list[Chunk]:
    """A JSONL document's rows: each a chunk, named by its ``source`` (``source#n`` where
    several rows share one)."""
    counts: dict[str, int] = {}
    for row in document.rows:
        counts[row.source] = counts.get(row.source, 0) + 1
    seen: dict[str, int] = {}
    chunks = []
    for row in document.rows:
        seen[row.source] = seen.get(row.source, 0) + 1
        shared = counts[row.source] > 1
        chunk_id = f"{row.source}#{seen[row.source]}" if shared else row.source
        chunks.append(Chunk(chunk_id, row.source, None, row.text.strip()))
    return chunks


def _sections(text: str, *, titled: bool = False) -> list[tuple[str | None, list[str]]]:
    """The document's sections: each heading (``None`` before the first) and the
    paragraphs under it. ``titled`` (plain text): a short line of its own without a final
    stop is a heading."""
    text = _FENCE.sub("", _FRONT_MATTER.sub("", text.replace("\r\n", "\n")))
    reader = _SectionReader(titled)
    for line in text.split("\n"):
        reader.read(line)
    reader.end_paragraph()
    return [(h, p) for h, p in reader.sections if p]


class _SectionReader:
    """A document's sections as its lines are read: each heading and its paragraphs."""

    def __init__(self, titled: bool) -> None:
        self.titled = titled
        self.sections: list[tuple[str | None, list[str]]] = [(None, [])]
        self.lines: list[str] = []
        """The lines of the paragraph being read."""

    def read(self, line: str) -> None:
        heading = _HEADING.match(line)
        if heading:
            self.end_paragraph()
            self.sections.append((heading.group(2).strip(), []))
        elif not line.strip() or _TABLE.match(line):  # a table row is no prose: left out
            self.end_paragraph()
        else:
            self.lines.append(line)

    def end_paragraph(self) -> None:
        """The paragraph read so far added to its section, or as a heading when it is a
        title of plain text."""
        joined = _paragraph(self.lines)
        if self.titled and len(self.lines) == 1 and _title(joined):
            self.sections.append((joined, []))
        elif joined:
            self.sections[-1][1].append(joined)
        self.lines.clear()


def _paragraph(lines: list[str]) -> str:
    return " ".join(_line(line) for line in lines if line.strip())


def _title(line: str) -> bool:
    """Whether a line of its own in plain text is a title: short, without a final stop."""
    return 0 < len(line.split()) <= 8 and not line.endswith((".", "!", "?", ":", ";", ","))


def _line(line: str) -> str:
    """A line of a paragraph; a list item as a sentence of its own (a step, a fact)."""
    item = _ITEM.match(line)
    if item is None:
        return line.strip()
    text = item.group("text").strip()
    return text if text.endswith((".", "!", "?", ":", ";")) else f"{text}."


def _joined(paragraphs: list[str]) -> list[str]:
    """A section's paragraphs joined into chunks of up to :data:`MAX_CHARS`."""
    return _packed((piece for paragraph in paragraphs for piece in _pieces(paragraph)), "\n\n")


def _pieces(paragraph: str) -> list[str]:
    """A paragraph, or its sentences grouped up to :data:`MAX_CHARS` when it is longer."""
    if len(paragraph) <= MAX_CHARS:
        return [paragraph]
    return _packed(split_sentences(paragraph), " ")


def _packed(texts: Iterable[str], separator: str) -> list[str]:
    """``texts`` joined by ``separator`` into runs of up to :data:`MAX_CHARS` (a longer text
    a run of its own)."""
    runs: list[str] = []
    current = ""
    for text in texts:
        if current and len(current) + len(separator) + len(text) > MAX_CHARS:
            runs.append(current)
            current = ""
        current = f"{current}{separator}{text}" if current else text
    if current:
        runs.append(current)
    return runs
