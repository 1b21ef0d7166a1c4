"""Markdown tables read as sentences.

A context taken from documentation or a web page often holds a table (``| Plan | Price |``,
a rule of dashes, one row per thing). Read as text, its cells run together with the header's
words far from each value, and a correct answer ("The Pro plan costs $25 per month.") looks
like a claim that replaces a term of the table. Each row is read instead as one sentence that
names every value by its column: "Plan: Pro; Price: $25/month."
"""

from __future__ import annotations

import re

_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str] | None:
    """The cells of a table row, or ``None`` when the line is no row (fewer than two cells)."""
    inner = line.strip()
    if "|" not in inner:
        return None
    inner = inner.removeprefix("|").removesuffix("|")
    cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", inner)]
    return cells if len(cells) >= 2 else None


def tables_as_sentences(text: str) -> tuple[str, frozenset[str]]:
    """``text`` with each Markdown table (a header row, a rule, rows) written as one sentence
    per row, "Header: value; Other header: value.", on lines of their own; everything else as
    it was. Also the rows' sentences: each states one thing's values, not to be read with its
    neighbours."""
    if "|" not in text or "-" not in text:
        return text, frozenset()
    lines = text.split("\n")
    out: list[str] = []
    rows: set[str] = set()
    i = 0
    while i < len(lines):
        header = _header_at(lines, i)
        if header is None:
            out.append(lines[i])
            i += 1
            continue
        i = _read_rows(lines, i + 2, header, out, rows)
    return "\n".join(out), frozenset(rows)


def _header_at(lines: list[str], i: int) -> list[str] | None:
    """The cells of the header row at line ``i``, when a rule follows it: a table starts."""
    header = _cells(lines[i])
    if header is None or i + 1 >= len(lines) or not _RULE.match(lines[i + 1]):
        return None
    return header


def _read_rows(lines: list[str], i: int, header: list[str], out: list[str], rows: set[str]) -> int:
    """Each row of the table from line ``i`` as its sentence, added to ``out`` and ``rows``;
    the line after the table."""
    while i < len(lines) and (row := _cells(lines[i])) is not None:
        sentence = _row_sentence(header, row)
        if sentence:
            out.append(sentence)
            rows.add(sentence)
        i += 1
    return i


def _row_sentence(header: list[str], row: list[str]) -> str:
    """ "Header: value; Other header: value." (a value without a header as it is; empty cells
    left out); empty for a row of empty cells."""
    named = [f"{h}: {c}" if h else c for h, c in zip(header, row, strict=False) if c]
    return "; ".join(named).rstrip(".") + "." if named else ""


__all__ = ["tables_as_sentences"]
