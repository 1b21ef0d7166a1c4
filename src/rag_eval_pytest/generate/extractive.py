"""The offline generator: extractive questions, made by rule, no model and no key.

From each chunk, informative sentences are found and a question is made from each by one of
a few rules; the sentence is the ground truth and the chunk its expected context:

* ``number``: a quantity (an amount, a percentage, a time, a year, a count of something) is
  asked for in its place: "Standard delivery takes how many business days outside the EU?";
* ``definition``: "X is a ..." gives "What is X?";
* ``step``: an instruction ("Click ...", "Open ...") under a heading gives "What is the first
  step of <heading>?" ("step 2", ... for the next ones of the section);
* ``name``: a name (a product, a place, a person) is asked for in its place.

Questions good enough to test retrieval and faithfulness, tagged ``extractive``; they are
not paraphrases (an LLM judge writes those). The choice is deterministic for a seed:
documents get questions in proportion to their size, spread over their chunks.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..text.names import names
from ..text.sentences import split_sentences
from .cases import Generated
from .dedup import Deduplicator

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .chunking import Chunk

MIN_WORDS, MAX_WORDS = 5, 35
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
    "|sixty|ninety|hundred"
)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONEY = (
    r"(?:[$€£]\s?\d[\d,.]*(?:\s?(?:k|million|billion))?"
    r"|\b\d[\d,.]*\s?(?:USD|EUR|GBP|dollars|euros|pounds)\b)"
)
_DATE = (
    rf"\b(?:{_MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b"
    rf"|\b\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?\b"
)
_COUNT = rf"\b(?:\d[\d,.]*|{_NUMBER_WORDS})\s+(?P<unit>(?:[a-z][a-z-]+\s)?[a-z][a-z-]*s)\b"
_QUANTITIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(_MONEY), "how much"),
    (re.compile(r"\b\d[\d,.]*\s?(?:%|percent\b)"), "what percentage"),
    (re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)(?=\W|$)", re.I), "what time"),
    (re.compile(_DATE), "what date"),
    (re.compile(r"\b(?:in|since|from|until) (?:19|20)\d{2}\b"), "in what year"),
    (re.compile(_COUNT, re.IGNORECASE), "how many"),
)
_DEFINITION = re.compile(
    r"^(?P<term>(?:(?:The|A|An)\s+)?[A-Za-z][\w'’-]*(?:\s+[\w'’-]+){0,4}?)\s+(?P<verb>is|are)\s+"
    r"(?P<rest>(?:an?|the|one of|used|defined as)\s.{6,})$"
)
_NOT_A_TERM = frozenset(
    """it this that they there these those we you he she i if when while since because
    although then also now thus only not so formally usually often always never here which
    what who how why""".split()  # noqa: SIM905 - a word list, as text
)
_REFERS = re.compile(r"\b(?:it|its|they|them|their|this|these|those|he|she|his|her)\b", re.I)
_PREPOSITIONS = frozenset("in at with by from to via of for on under into".split())  # noqa: SIM905
_CODE = re.compile(r"[_=<>{}\[\]|\\@]|--|\.\w+\(|\w/\w")
_STEPS = frozenset(
    """add allow call change check choose click close connect contact copy create delete
    disable download enable enter fill find follow go install log open paste press read
    remove restart run save scan select send set sign start submit switch tap turn type
    update upload use visit wait write""".split()  # noqa: SIM905 - a word list, as text
)
_MARKUP = re.compile(r"\*\*|__|`|\[(?P<label>[^\]]*)\]\([^)]*\)")
_QUOTED = re.compile(r"[\"“'‘][^\"”'’]{1,60}[\"”'’]")
_WEIGHTS = {"number": 3.0, "definition": 3.0, "step": 2.0, "name": 1.5}


@dataclass(frozen=True)
class Candidate:
    chunk: Chunk
    sentence: str
    question: str
    rule: str

    @property
    def score(self) -> float:
        words = len(self.sentence.split())
        return _WEIGHTS[self.rule] + (0.5 if 10 <= words <= 30 else 0.0)


def plain(text: str) -> str:
    """Inline Markdown markup removed (emphasis, code marks; a link's label kept)."""
    return " ".join(_MARKUP.sub(lambda m: m.group("label") or "", text).split())


def question_for(sentence: str, heading: str | None) -> tuple[str, str] | None:
    """The question a rule makes from ``sentence`` and that rule's name, or ``None``."""
    if not _plain_sentence(sentence):
        return None
    rules: tuple[tuple[str, Callable[[str, str | None], str | None]], ...] = (
        ("definition", _definition),
        ("number", _number),
        ("step", _step),
        ("name", _name),
    )
    for rule, make in rules:
        question = make(sentence, heading)
        if question is not None:
            return question, rule
    return None


def _plain_sentence(sentence: str) -> bool:
    """Whether ``sentence`` reads as prose a question can be made from: a capital at its
    start, a stop at its end, not too short or long, no code or markup (``a_b``, ``--x``,
    ``<tag>``), nothing that needs the sentence before ("it", "they")."""
    words = sentence.split()
    return (
        MIN_WORDS <= len(words) <= MAX_WORDS
        and sentence[:1].isupper()
        and sentence.endswith((".", "!"))
        and _CODE.search(sentence) is None
        and _REFERS.search(sentence) is None
        and sentence.count("(") <= 1
    )


def _asked(sentence: str, start: int, end: int, wh: str) -> str:
    """``sentence`` with its span ``start:end`` asked for by ``wh``, as a question."""
    text = f"{sentence[:start]}{wh}{sentence[end:]}".rstrip(" .!;")
    return f"{text[0].upper()}{text[1:]}?"


def _number(sentence: str, heading: str | None) -> str | None:
    for pattern, wh in _QUANTITIES:
        match = pattern.search(sentence)
        if match is None or re.search(r"\b[A-Z]{2,}\s*$", sentence[: match.start()]):
            continue
        unit = match.groupdict().get("unit")
        asked = f"{wh} {unit}" if unit else wh
        return _asked(sentence, match.start(), match.end(), asked)
    return None


def _definition(sentence: str, heading: str | None) -> str | None:
    match = _DEFINITION.match(sentence)
    if match is None or any(w.lower() in _NOT_A_TERM for w in match["term"].split()):
        return None
    return f"What {match['verb']} {_term(match['term'])}?"


def _term(term: str) -> str:
    """The defined term as asked for: a common noun, capitalised at the sentence's start, in
    lower case."""
    first, _, rest = term.partition(" ")
    if first in ("The", "A", "An") or (rest and rest.islower() and first[1:].islower()):
        return f"{first[0].lower()}{first[1:]} {rest}"
    return term


def _step(sentence: str, heading: str | None) -> str | None:
    first = sentence.split()[0].strip(",.:").lower()
    if heading is None or first not in _STEPS or not _task_heading(heading):
        return None
    topic = heading if heading.isupper() else heading[0].lower() + heading[1:]
    return f"What is the first step of {topic.rstrip(' .:?')}?"


def _task_heading(heading: str) -> bool:
    """Whether a heading names a task its steps can be asked for by: a word first, no code
    and no marks."""
    return (
        _CODE.search(heading) is None
        and heading[:1].isalpha()
        and not any(mark in heading for mark in "().!*")
    )


def _name(sentence: str, heading: str | None) -> str | None:
    """A name of two words or more ("Rotterdam Port"), or an acronym ("AES"), after a
    preposition ("encrypted with AES"), asked for in its place; a one-word capitalised word
    is too often an ordinary word after a colon, a name elsewhere too often a title."""
    for name in names(sentence):
        start = sentence.find(name)
        if not _askable(sentence, name, start):
            continue
        quoted = _QUOTED.search(sentence, max(start - 1, 0))
        if quoted is not None and quoted.start() == start - 1:  # "Forgot password": whole
            return _asked(sentence, quoted.start(), quoted.end(), "what")
        wh = _after_preposition(sentence[:start])  # "encrypted with AES"
        if wh is not None:
            return _asked(sentence, start, start + len(name), wh)
    return None


def _askable(sentence: str, name: str, start: int) -> bool:
    """A name of two words or more, or an acronym, not at the sentence's start nor an
    identifier ("PEP 378")."""
    if start <= 0 or not (" " in name or (name.isupper() and len(name) >= 3)):
        return False
    return not re.match(r"\s*\d", sentence[start + len(name) :])


def _after_preposition(before: str) -> str | None:
    """The question word for a name after a preposition ("whom" after "by"), or ``None``
    when the name follows none."""
    words = before.split()
    if not words or words[-1].lower() not in _PREPOSITIONS:
        return None
    return "whom" if words[-1].lower() == "by" else "what"


def candidates(chunk: Chunk) -> list[Candidate]:
    """The questions the rules make from the sentences of ``chunk``, one per sentence."""
    found: list[Candidate] = []
    for sentence in _sentences(chunk):
        made = question_for(sentence.strip(), chunk.heading)
        if made is not None:
            question, rule = made
            question = _numbered(question, rule, found)
            found.append(Candidate(chunk, sentence.strip(), question, rule))
    return found


def _sentences(chunk: Chunk) -> list[str]:
    """The chunk's sentences, paragraph by paragraph, without their inline markup."""
    return [s for part in chunk.text.split("\n\n") for s in split_sentences(plain(part))]


def _numbered(question: str, rule: str, found: list[Candidate]) -> str:
    """A step's question numbered after the steps found before it: the steps of a section
    in their order."""
    steps = sum(c.rule == "step" for c in found)
    if rule == "step" and steps:
        return question.replace("the first step", f"step {steps + 1}", 1)
    return question


def shares(sizes: Sequence[int], count: int) -> list[int]:
    """``count`` split in proportion to ``sizes`` (largest remainders first, ties in
    order)."""
    total = sum(sizes)
    if not total:
        return [0] * len(sizes)
    exact = [count * size / total for size in sizes]
    shares = [int(x) for x in exact]
    order = sorted(range(len(sizes)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[: count - sum(shares)]:
        shares[i] += 1
    return shares


def generate_extractive(
    chunks: Sequence[Chunk], count: int, seed: int, dedup: Deduplicator | None = None
) -> list[Generated]:
    """Up to ``count`` extractive cases, spread over the documents by their size, then over
    each document's chunks; near-duplicates left out."""
    rng = random.Random(seed)
    by_document, sizes = _by_document(chunks)
    queues = {name: _spread(found, rng) for name, found in by_document.items()}
    chosen = _choose(queues, sizes, dedup or Deduplicator(), count)
    order = {chunk.id: n for n, chunk in enumerate(chunks)}
    chosen.sort(key=lambda c: (order[c.chunk.id], c.chunk.text.find(c.sentence)))
    return [
        Generated("extractive", c.question, c.sentence, (c.chunk,), rule=c.rule) for c in chosen
    ]


def _by_document(chunks: Sequence[Chunk]) -> tuple[dict[str, list[Candidate]], dict[str, int]]:
    """Each document's candidates, and its size in characters."""
    by_document: dict[str, list[Candidate]] = {}
    sizes: dict[str, int] = {}
    for chunk in chunks:
        by_document.setdefault(chunk.document, []).extend(candidates(chunk))
        sizes[chunk.document] = sizes.get(chunk.document, 0) + len(chunk.text)
    return by_document, sizes


def _choose(
    queues: dict[str, list[Candidate]], sizes: dict[str, int], dedup: Deduplicator, count: int
) -> list[Candidate]:
    """Up to ``count`` candidates, each document's share in proportion to its size; a
    document short of sentences leaves the rest to the others."""
    wanted = dict(zip(sizes, shares(list(sizes.values()), count), strict=True))
    chosen = _fill(queues, wanted, dedup, count)
    if len(chosen) < count:
        chosen += _fill(queues, dict.fromkeys(queues, count), dedup, count - len(chosen))
    return chosen


def _fill(
    queues: dict[str, list[Candidate]], wanted: dict[str, int], dedup: Deduplicator, count: int
) -> list[Candidate]:
    """Up to ``count`` candidates, round by round one from each document, each document up
    to its ``wanted`` number; a near-duplicate of one taken is passed over."""
    chosen: list[Candidate] = []
    room = {name: wanted[name] for name in queues}
    progress = True
    while progress and len(chosen) < count:
        progress = _round(queues, room, dedup, chosen, count)
    return chosen


def _round(
    queues: dict[str, list[Candidate]],
    room: dict[str, int],
    dedup: Deduplicator,
    chosen: list[Candidate],
    count: int,
) -> bool:
    """One candidate more from each document with room left, while fewer than ``count`` are
    chosen; whether any was taken."""
    progress = False
    for name, queue in queues.items():
        if room[name] <= 0 or len(chosen) >= count:
            continue
        candidate = _next_new(queue, dedup)
        if candidate is not None:
            chosen.append(candidate)
            room[name] -= 1
            progress = True
    return progress


def _next_new(queue: list[Candidate], dedup: Deduplicator) -> Candidate | None:
    """The queue's next candidate that is no near-duplicate of one taken; the duplicates
    before it are dropped from the queue."""
    while queue:
        candidate = queue.pop(0)
        if dedup.add(candidate.question, candidate.sentence):
            return candidate
    return None


def _spread(found: list[Candidate], rng: random.Random) -> list[Candidate]:
    """A document's candidates in the order they are taken: the best of each chunk in
    turn (chunks in a seeded order), then the next best of each, ..."""
    by_chunk = _best_first(found, rng)
    order = list(by_chunk)
    rng.shuffle(order)
    return _interleaved([by_chunk[k] for k in order])


def _best_first(found: list[Candidate], rng: random.Random) -> dict[str, list[Candidate]]:
    """Each chunk's candidates, the best first, ties in a seeded order."""
    by_chunk: dict[str, list[Candidate]] = {}
    for candidate in found:
        by_chunk.setdefault(candidate.chunk.id, []).append(candidate)
    for group in by_chunk.values():
        keys = {id(c): rng.random() for c in group}
        group.sort(key=lambda c: (-c.score, keys[id(c)]))
    return by_chunk


def _interleaved(groups: list[list[Candidate]]) -> list[Candidate]:
    """The first of each group in turn, then the second of each, ..."""
    spread: list[Candidate] = []
    depth = max((len(g) for g in groups), default=0)
    for level in range(depth):
        spread.extend(g[level] for g in groups if level < len(g))
    return spread
