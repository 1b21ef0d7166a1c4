"""Where a judge's statements stand in the answer: character offsets ``[start, end)``.

One deterministic rule, the same for every judge (:func:`statement_spans`):

1. **Exact**: the statement's words, in order, are a run of the answer's words, compared
   without case, punctuation or white space. The local judge's claims are pieces of the
   answer (a sentence, a clause with its leading "but" dropped, a list item without its
   bullet), so they are found this way; an LLM judge's statement that quotes the answer too.
2. **Overlap**: otherwise the answer sentence holding the largest share of the statement's
   content words (:func:`~rag_eval_pytest.text.facts.content_words`), when that share is at
   least :data:`MIN_OVERLAP`; the earliest such sentence on a tie. This finds an LLM judge's
   paraphrase ("The warranty lasts 5 years." for "Our warranty runs for five years, ...").
3. Otherwise the statement has no span (``None``): it is reported as not found in the
   answer, never placed by a guess.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .facts import content_words
from .sentences import split_sentences
from .shorten import cut

MIN_OVERLAP = 0.6
"""The share of a statement's content words an answer sentence must hold to be its span."""

_WORD = re.compile(r"[^\W_]+")
_CLOSING = ".!?…\"'”’)]"


class Span(NamedTuple):
    """Character offsets into the answer: ``answer[start:end]`` is the statement's text."""

    start: int
    end: int


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().casefold(), m.start(), m.end()) for m in _WORD.finditer(text)]


def _runs(words: list[tuple[str, int, int]], wanted: list[str]) -> list[tuple[int, int]]:
    """Every place (first, last word index) where ``wanted`` is a run of ``words``."""
    size = len(wanted)
    return [
        (i, i + size - 1)
        for i in range(len(words) - size + 1)
        if words[i][0] == wanted[0] and [w[0] for w in words[i : i + size]] == wanted
    ]


def _closed(answer: str, end: int) -> int:
    """``end`` moved past the sentence's closing punctuation that follows it directly."""
    while end < len(answer) and answer[end] in _CLOSING:
        end += 1
    return end


def _sentence_spans(answer: str, words: list[tuple[str, int, int]]) -> list[Span]:
    """The answer's sentences (:func:`split_sentences`) as spans, found in order."""
    spans: list[Span] = []
    position = 0  # the first word index not yet used by a sentence
    for sentence in split_sentences(answer):
        run = next((r for r in _text_runs(words, sentence) if r[0] >= position), None)
        if run is None:
            continue
        first, last = run
        spans.append(Span(words[first][1], _closed(answer, words[last][2])))
        position = last + 1
    return spans


def _text_runs(words: list[tuple[str, int, int]], text: str) -> list[tuple[int, int]]:
    """Every place where the words of ``text`` are a run of ``words`` (none without words)."""
    wanted = [w for w, _, _ in _words(text)]
    return _runs(words, wanted) if wanted else []


def statement_spans(answer: str, statements: list[str]) -> list[Span | None]:
    """The span of each statement in ``answer`` (see the module's rule), in the order given;
    ``None`` for a statement not found. A statement given twice takes the next place it
    occurs each time (the first again once every place is taken); spans of different
    statements may overlap (a sentence and one of its clauses)."""
    words = _words(answer)
    sentences: list[Span] | None = None
    used: set[tuple[int, int]] = set()
    spans: list[Span | None] = []
    for statement in statements:
        span = _exact_span(answer, words, statement, used)
        if span is None:
            if sentences is None:
                sentences = _sentence_spans(answer, words)
            span = _best_sentence(answer, statement, sentences)
        spans.append(span)
    return spans


def _exact_span(
    answer: str, words: list[tuple[str, int, int]], statement: str, used: set[tuple[int, int]]
) -> Span | None:
    """Where the statement's words are a run of the answer's: the first place not ``used``
    yet (then used), else the first; with the closing punctuation when the statement has
    it."""
    runs = _text_runs(words, statement)
    if not runs:
        return None
    run = next((r for r in runs if r not in used), runs[0])
    used.add(run)
    end = words[run[1]][2]
    if statement.rstrip()[-1:] in _CLOSING:
        end = _closed(answer, end)
    return Span(words[run[0]][1], end)


def _best_sentence(answer: str, statement: str, sentences: list[Span]) -> Span | None:
    wanted = content_words(statement)
    if not wanted:
        return None
    best: Span | None = None
    best_share = 0.0
    for span in sentences:
        share = len(wanted & content_words(answer[span.start : span.end])) / len(wanted)
        if share >= MIN_OVERLAP and share > best_share:
            best, best_share = span, share
    return best


def merged(spans: list[Span]) -> list[Span]:
    """``spans`` sorted, with overlapping or touching ones joined: the ranges to mark."""
    joined: list[Span] = []
    for span in sorted(spans):
        if joined and span.start <= joined[-1].end:
            last = joined[-1]
            joined[-1] = Span(last.start, max(last.end, span.end))
        else:
            joined.append(span)
    return joined


def marked_pieces(
    answer: str, spans: list[Span], context: int | None = None
) -> list[tuple[str, bool]]:
    """``answer`` as pieces ``(text, marked)``, the marked ones being ``spans`` (merged), for
    a renderer to escape piece by piece and then mark. Spans outside the answer are left
    out. With ``context``, white space is collapsed, unmarked text keeps ``context``
    characters beside each mark ("…" for the rest) and a marked piece is cut at four times
    that: an excerpt of a long answer that still shows every mark."""
    pieces = _pieces(answer, spans)
    if context is None:
        return [(text, marked) for text, marked in pieces if text]
    return _excerpts(pieces, context)


def _pieces(answer: str, spans: list[Span]) -> list[tuple[str, bool]]:
    """The answer cut at the merged spans inside it: unmarked and marked pieces in turn,
    from an unmarked one (perhaps empty) to an unmarked one."""
    inside = [s for s in merged(spans) if 0 <= s.start < s.end <= len(answer)]
    pieces: list[tuple[str, bool]] = []
    position = 0
    for span in inside:
        pieces.append((answer[position : span.start], False))
        pieces.append((answer[span.start : span.end], True))
        position = span.end
    pieces.append((answer[position:], False))
    return pieces


def _excerpts(pieces: list[tuple[str, bool]], context: int) -> list[tuple[str, bool]]:
    """The pieces with white space collapsed and shortened to ``context`` characters beside
    each mark; the empty ones left out."""
    last = len(pieces) - 1
    shown = (
        (_excerpt(text, marked, index, last, context), marked)
        for index, (text, marked) in enumerate(pieces)
    )
    return [(text, marked) for text, marked in shown if text]


def _excerpt(text: str, marked: bool, index: int, last: int, context: int) -> str:
    flat = re.sub(r"\s+", " ", text)
    if marked:
        return cut(flat, 4 * context)
    return _unmarked_excerpt(flat, index, last, context)


def _unmarked_excerpt(flat: str, index: int, last: int, context: int) -> str:
    """The text before the first mark keeps its end, the text after the last its start,
    the text between two marks both ("…" for the rest)."""
    if index == 0:
        return "…" + flat[-context:] if len(flat) > context else flat
    if index == last:
        return flat[:context] + "…" if len(flat) > context else flat
    return flat[:context] + "…" + flat[-context:] if len(flat) > 2 * context else flat
