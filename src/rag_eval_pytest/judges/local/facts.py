"""Facts a sentence states that similarity cannot see: its words as written, negation, and
whether a name is known to a text.

Rule-based and deterministic (no model), English only. The local judge compares these
between a claim and its evidence (:mod:`.checks`); they are plain functions so that each can
be tested alone. Numbers are :mod:`.quantities`', dates :mod:`.dates`'.
"""

from __future__ import annotations

import html
import itertools
import re
import unicodedata
from functools import lru_cache

from ...text.lexicon import any_of
from ...text.names import DAYS, NAME_STOP, names
from ...text.sentences import split_sentences
from ...text.words import (
    NEGATIONS,
    PLACE_ALIASES,
    PLACES,
    STOPWORDS,
    content_words,
    stem,
    token_matches,
    tokens,
)
from .quantities import in_digits
from .tables import table

# A space inside a number that only groups its digits: no-break, thin, narrow no-break and
# figure spaces ("1\u202f000 euros"). A plain space stays a space: "in 2019 200 people".
_GROUPING_SPACE = re.compile(r"(?<=\d)[\u00a0\u2007\u2009\u202f](?=\d{3}(?!\d))")
# Soft hyphens, zero-width spaces and joiners, the word joiner and the byte-order mark: they
# split a word for the rules without showing anything.
_INVISIBLE = re.compile(r"[\u00ad\u200b-\u200d\u2060\ufeff]")
# A temperature's unit in words: "2-8°C" states degrees Celsius.
_DEGREES = re.compile(r"\s*°\s*([CF])\b")
_SCALE_NAMES = table("units").mapping("degree_signs")
# A word broken at the end of a line, as text taken from a PDF keeps it: "pur-\nchase".
_BROKEN_WORD = re.compile(r"(?<=[^\W\d_])-[ \t]*\r?\n[ \t]*(?=[a-z])")


def plain_form(text: str) -> str:
    """``text`` as the local judge reads it, one spelling per word whatever the source did
    to it: compatibility characters as the letters they stand for (NFKC: the ligature "\ufb01"
    as "fi", full-width digits, no-break spaces), one character per accented letter
    ("Angoul\u00eame" written as "e" and a combining circumflex is one word), no invisible
    characters inside words, digits grouped by a thin or no-break space as one number
    ("1\u202f000" is 1000), character references as their characters ("&nbsp;") and words
    broken at a line's end joined. Otherwise a correct
    claim read against a PDF's text would miss its words, or contradict "000 euros"."""
    if "&" in text:  # "30&nbsp;days", "Returns &amp; refunds" from a web page's source
        text = html.unescape(text)
    if not text.isascii():
        text = _GROUPING_SPACE.sub("", text)
        text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
        text = _DEGREES.sub(lambda m: f" degrees {_SCALE_NAMES[m.group(1).lower()]}", text)
    return _BROKEN_WORD.sub("", text) if "-" in text else text


def spelled_out(claim: str, contexts: str) -> str:
    """``claim`` with each acronym in the words the contexts spell it out with: a name no
    context writes as the acronym ("US": "the United States", "EU": "European Union"), or
    words a context defines it by where another writes it ("SL" beside "sick leave"). "We
    deliver to the US" states what "We deliver to the United States" does, and no check
    should read "US" as a name the context replaced, or "SL" as a word only the sentence
    that writes it has."""
    return _ACRONYM.sub(lambda m: _spelling(m.group(0), contexts), claim)


def _spelling(acronym: str, contexts: str) -> str:
    """The words of ``contexts`` ``acronym`` stands for (itself where none spells it out)."""
    low = acronym.lower()
    if not re.search(rf"\b{acronym}\b", contexts):
        return next((name for name in names(contexts) if initials(name) == low), acronym)
    return _defined(acronym, contexts) or acronym


def _defined(acronym: str, contexts: str) -> str:
    """The words the contexts define ``acronym`` by: before it in brackets ("sick leave
    (SL)"), or in a sentence that does not write it, each of four letters or more and no
    stop word ("sick leave" beside "Unused SL carries over"; not "handles requests" in "HR
    handles requests"), or ""."""
    words = r"\s+".join(f"{c}[a-z]{{3,}}" for c in acronym.lower())
    bracketed = re.search(rf"\b({words})\s*\(\s*{acronym}\s*\)", contexts, re.IGNORECASE)
    if bracketed is not None:
        return bracketed.group(1)
    apart = [s for s in split_sentences(contexts) if acronym not in s]
    return next(filter(None, (_spelled_in(words, s) for s in apart)), "")


def _spelled_in(words: str, sentence: str) -> str:
    """The words of ``sentence`` the pattern ``words`` finds, none a stop word, or ""."""
    found = re.search(rf"\b{words}\b", sentence)
    if found is None or set(found.group(0).lower().split()) & STOPWORDS:
        return ""
    return found.group(0)


_ACRONYM = re.compile(r"\b[A-Z]{2,4}\b")


def coverage(claim: str, evidence: str) -> float:
    """Share of the claim's content words found (stemmed) in the evidence; 1.0 when the claim
    has none."""
    words = content_words(claim)
    if not words:
        return 1.0
    return len(words & content_words(evidence)) / len(words)


def word_pairs(text: str) -> set[tuple[str, str]]:
    """Adjacent word pairs (stemmed), except pairs of two stopwords: the phrases of a text."""
    words = [t.lower() for t in tokens(text)]
    return {
        (stem(a), stem(b))
        for a, b in itertools.pairwise(words)
        if not (a in STOPWORDS and b in STOPWORDS)
    }


def phrase_coverage(
    claim: str, evidence_pairs: set[tuple[str, str]], without_pairs: float = 1.0
) -> float:
    """Share of the claim's word pairs found in the evidence's (:func:`word_pairs`): a claim
    that reuses the context's words in another order scores low. A claim of one word has no
    pair: ``without_pairs`` (the share of its words found) stands for it."""
    pairs = word_pairs(claim)
    if not pairs:
        return without_pairs
    return len(pairs & evidence_pairs) / len(pairs)


# ----------------------------------------------------------------------------- negation


_NEGATION = table("negation")
# Phrases with a negation word that negate nothing ("not only", "if not impossible"), and
# bounds ("no more than 5 projects" is "up to 5 projects").
# A bound is followed by an amount: "no more than 5 projects", "not later than two weeks",
# "no bigger than a shoebox"; "is not larger than the Economy room" denies a comparison.
_AMOUNT_NEXT = (
    rf"(?=\s+(?:[$€£]?\d|(?:{any_of((*table('numbers').numbers('ones'), 'a', 'an', 'half'))})\b))"
)
_BOUNDS = rf"(?:no|not) (?:{any_of(_NEGATION.phrases('bounds'))}) than{_AMOUNT_NEXT}"
_NOT_NEGATING = re.compile(rf"\b({any_of(_NEGATION.phrases('idioms'))}|{_BOUNDS})\b", re.I)
_LIMITS = _NEGATION.phrases("limits")
_NOT_NEGATING_A_LIMIT = re.compile(
    rf"\b({any_of([i for i in _NEGATION.phrases('idioms') if i not in _LIMITS])}|{_BOUNDS})\b",
    re.I,
)
# A limit the other text states undenied: "only" or "just", no "not" before it.
_LIMIT = re.compile(
    rf"(?<!\bnot )(?<!\bnot the )\b(?:{any_of(w.split()[-1] for w in _LIMITS)})\b", re.I
)


def _idioms_read_out(text: str, other: str) -> str:
    """``text`` with its idioms blanked out, but for a "not only" or "not just" that denies a
    limit ``other`` states ("is not only covered if ..." against "is only covered if ...")."""
    if other and _LIMIT.search(other) and not _LIMIT.search(text):
        return _NOT_NEGATING_A_LIMIT.sub(" ", text)
    return _NOT_NEGATING.sub(" ", text)


def negation_cues(text: str, other: str = "") -> list[str]:
    """The negation words of ``text`` ("not", "never", "n't" forms, "is non-..."), lowercased;
    idioms such as "not only", "if not" and "no more than" do not count, nor a word of a name
    (see :func:`_read_words`; ``other``: the text ``text`` is read against)."""
    return list(_cues(text, other))


@lru_cache(maxsize=8192)
def _cues(text: str, other: str) -> tuple[str, ...]:
    """:func:`negation_cues`, memoised: a claim's checks read the same texts many times."""
    words, named = _read_words(text, other)
    return tuple(words[at].lower().replace("\u2019", "'") for at in _cue_positions(words, named))


NEGATED_SPAN = 4  # the words after a negation that it negates
FARTHEST_NEGATED = 8
"""How far a negation reaches where its first words say nothing ("has not made it out of
icu" denies "icu")."""


def _first_said(after: list[str]) -> frozenset[str]:
    """What a negation denies of the words ``after`` it: the content words and numbers of
    the first :data:`NEGATED_SPAN`, else of as many more as it takes to reach one."""
    said = said_words(" ".join(after[:NEGATED_SPAN]))
    for end in range(NEGATED_SPAN + 1, len(after) + 1):
        if said:
            break
        said = said_words(" ".join(after[:end]))
    return said


def negated_words(text: str, other: str = "", *, further: bool = True) -> frozenset[str]:
    """The content words a negation of ``text`` negates: the few words after each cue of
    :func:`negation_cues` ("be returned" in "cannot be returned"), further where those say
    nothing (:func:`_first_said`; not ``further``: the few words only), the rest of a "non-"
    word ("refundable"); every content word when a negation ends the text (``other``: the
    text ``text`` is read against)."""
    words, named = _read_words(text, other)
    reach = FARTHEST_NEGATED if further else NEGATED_SPAN
    found: set[str] = set()
    for at in _cue_positions(words, named):
        after = words[at + 1 : at + 1 + reach]
        found |= _first_said(after) if after else said_words(text)
        if words[at].lower().startswith("non-"):
            found |= content_words(words[at][4:])
    return frozenset(found)


def said_words(text: str) -> frozenset[str]:
    """The content words of ``text`` and its numbers as written ("$7,500", "1st"): what a
    negation can deny ("The minimum loan amount is not $7,500.")."""
    numbers = {w.strip(".,;:").lower() for w in tokens(text) if any(c.isdigit() for c in w)}
    return content_words(text) | numbers


# What ends a sentence or opens a quotation or an aside: a capitalised word after it may open
# a sentence of its own.
_OPENING = re.compile(r"[.!?:;\"“”(\[]")


def _read_words(text: str, other: str = "") -> tuple[list[str], frozenset[int]]:
    """The words of ``text`` as the negation cues are read (idioms left out), and where a
    word is part of a name (:func:`_name_words`)."""
    matches = list(token_matches(_idioms_read_out(text, other)))
    return [m.group() for m in matches], _name_words(matches, other)


def _name_words(matches: list[re.Match[str]], other: str) -> frozenset[int]:
    """Which of a text's words (its :func:`token_matches`) are words of a name: capitalised
    after another word of their sentence ("featured along with Never Shout Never and Hey
    Monday" names two bands, it denies nothing and gives no day), or opening one before
    another capitalised word where ``other`` writes the two inside a sentence ("Never Shout
    Never played" against "with Blur and Never Shout Never")."""
    words = [m.group() for m in matches]

    def inside(at: int) -> bool:
        between = matches[at].string[matches[at - 1].end() : matches[at].start()]
        return at > 0 and not _OPENING.search(between)

    def opens_a_name(at: int) -> bool:
        follows = at + 1 < len(words) and words[at + 1][0].isupper()
        return follows and _inside(f"{words[at]} {words[at + 1]}", other)

    named = {
        at for at, w in enumerate(words) if w[0].isupper() and (inside(at) or opens_a_name(at))
    }
    return frozenset(named)


_DAY_NAMES = frozenset(DAYS)


def without_names(text: str, other: str = "") -> str:
    """``text`` with the words of its names (:func:`_name_words`, ``other`` the text it is
    read against) that read as a denial or a day blanked out: "with Never Shout Never", a
    day after another word of a name ("and Hey Monday")."""
    matches = list(token_matches(text))
    named = _name_words(matches, other)
    blanked = [
        matches[at]
        for at in sorted(named)
        if matches[at].group().lower() in NEGATIONS
        or (matches[at].group().lower() in _DAY_NAMES and at - 1 in named)
    ]
    for match in reversed(blanked):
        text = text[: match.start()] + " " * len(match.group()) + text[match.end() :]
    return text


def _inside(phrase: str, text: str) -> bool:
    """Whether ``text`` writes ``phrase`` after another word of the same sentence."""
    for match in re.finditer(rf"\b{re.escape(phrase)}\b", text):
        gap = re.search(r"\w(\W*)$", text[: match.start()])
        if gap and not _OPENING.search(gap.group(1)):
            return True
    return False


def _cue_positions(words: list[str], named: frozenset[int] = frozenset()) -> list[int]:
    """Where the negation cues of a text's words are (not at ``named``, words of a name)."""
    lowered = [word.lower().replace("\u2019", "'") for word in words]
    return [
        at
        for at, low in enumerate(lowered)
        if at not in named and _is_cue(low, lowered[at - 1] if at else "")
    ]


def _is_cue(low: str, before: str) -> bool:
    """Whether a lowercased word denies, the word ``before`` it given: "are non-refundable"
    is "are not refundable"; "in non-Muslim nations" negates nothing."""
    stated = low.startswith("non-") and before in _COPULAS
    return low in NEGATIONS or low.endswith("n't") or stated


_COPULAS = _NEGATION.words("copulas")


# ----------------------------------------------------------------------------- names


def words_of_name(name: str) -> set[str]:
    """The words of one name, lowercased, without possessive "'s" ("Mike's Gym" -> mike,
    gym)."""
    words = {re.sub(r"['’]s$", "", word).lower() for word in name.split()}
    return {w for w in words if w and w not in NAME_STOP}


_IDENTIFIER = re.compile(r"[^\W_]+(?:['’\-.][^\W_]+)*")


@lru_cache(maxsize=256)
def lower_words(text: str) -> frozenset[str]:
    """Every word of ``text`` lowercased, without possessive "'s" (for name look-ups), with
    identifiers as written ("aes-256", "gpt-4o"), the parts of hyphenated words ("french",
    "born"), numbers in words also in digits ("tier-two" -> "tier-2"), and the places that
    demonyms name ("french" -> "france")."""
    words = _written_words(text)
    for word in list(words):
        words.update(_hyphen_parts(word))
        words.add(in_digits(word))
    words.update(PLACES[w] for w in list(words) if w in PLACES)
    words.update(unaccented(w) for w in list(words) if not w.isascii())
    words.update(alias_words(text.lower()))
    return frozenset(words)


def alias_words(text: str) -> set[str]:
    """The words of the other names of the places ``text`` names ("britain" beside "the
    United Kingdom", "united" and "kingdom" beside "Britain")."""
    found: set[str] = set()
    for place, others in PLACE_ALIASES.items():
        names = [place, *others]
        if any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text) for n in names):
            found.update(w for n in names for w in n.split())
    return found


def _written_words(text: str) -> set[str]:
    """The words of ``text`` lowercased, without possessive "'s", and its identifiers."""
    words = {re.sub(r"['’]s$", "", t).lower() for t in tokens(text)}
    words.update(w.lower().rstrip(".") for w in _IDENTIFIER.findall(text))
    return words


def _hyphen_parts(word: str) -> list[str]:
    return [part for part in word.split("-") if part]


def unaccented(word: str) -> str:
    """``word`` without its accents ("François" -> "Francois", "Péruwelz" -> "Peruwelz"):
    a name is often written both ways."""
    spelled = unicodedata.normalize("NFD", word)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in spelled if not unicodedata.combining(ch))
    )


@lru_cache(maxsize=256)
def initials(text: str) -> str:
    """The first letters of the words of ``text``, lowercased ("paid time off" -> "pto")."""
    return "".join(t[0].lower() for t in tokens(text) if t[0].isalpha())


def known_name(name: str, text: str) -> bool:
    """Whether every word of ``name`` occurs in ``text`` (in a name of several words, a word
    also as its plural, and a day as written: "Hey Monday"; a day alone is no name); an
    acronym of three letters or more
    also counts when the text spells it out ("PTO" beside "paid time off"), one of two letters
    when the text names what it stands for ("UK" beside "the United Kingdom")."""
    known = lower_words(text)
    words = name.split()
    if len(words) == 1:
        return _known_word(name, text, known) or name.lower() in DAYS  # a day alone: no name
    return all(_known_word(w, text, known) or _plural_of(w, known) for w in words)


def _plural_of(word: str, known: frozenset[str]) -> bool:
    """Whether a word of a name of several words is the plural of one of ``known`` ("Flights
    LX 318 and LX 320" names "Flight LX 318")."""
    low = word.lower()
    return low.endswith("s") and (low[:-1] in known or (low.endswith("es") and low[:-2] in known))


def _known_word(word: str, text: str, known: frozenset[str]) -> bool:
    """Whether one word of a name occurs in ``text`` (whose words are ``known``), or it
    spells the word out."""
    low = re.sub(r"['’]s$", "", word).lower()
    low = low if low.isascii() else unaccented(low)
    return _plainly_known(low, known) or _spelled_out(word, low, text) or _clipped(low, known)


def _plainly_known(low: str, known: frozenset[str]) -> bool:
    """Whether a lowercased word of a name is no name's or among the text's words ``known``
    (a place by any of its names, a number in digits or in words: "Tier-two" beside
    "Tier-2", "Terminal Two" beside "Terminal 2")."""
    stop = low in NAME_STOP and low not in DAYS  # "Hey Monday" names a day: a band's name
    if not low or stop or low in known or PLACES.get(low, low) in known:
        return True
    return in_digits(low) in known


CLIPPED_LETTERS = 5
"""The least letters of a word clipped from a longer one ("Physio" of "Physiotherapy")."""


def _clipped(low: str, known: frozenset[str]) -> bool:
    """Whether the word, of :data:`CLIPPED_LETTERS` letters or more, starts a word of the
    text nearly twice its length or longer ("physio" of "physiotherapy", "admin" of
    "administration"; not "roberts" of "robertson")."""
    return len(low) >= CLIPPED_LETTERS and any(
        w.startswith(low) and len(w) >= 2 * len(low) - 1 for w in known
    )


def _spelled_out(word: str, low: str, text: str) -> bool:
    """Whether ``text`` spells out an acronym: one of three letters or more by the first
    letters of its words; one of two letters only for a name it is the initials of ("UK":
    "United Kingdom")."""
    if not word.isupper():
        return False
    if len(word) >= 3:
        return low in initials(text)
    return len(word) == 2 and any(initials(n) == low for n in names(text))
