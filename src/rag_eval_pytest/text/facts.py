"""Facts a sentence states that similarity cannot see: numbers with units, dates, negation,
names and content words.

Rule-based and deterministic (no model), English only. The local judge compares these
between a claim and its evidence (``judges/local/checks.py``); they are plain functions so
that each can be tested alone.
"""

from __future__ import annotations

import html
import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "for",
        "from",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "me",
        "my",
        "myself",
        "of",
        "on",
        "or",
        "our",
        "ours",
        "ourselves",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "too",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "also",
        "about",
        "any",
        "each",
        "all",
        "some",
        "such",
        "only",
        "own",
        "same",
        "just",
        "should",
        "may",
        "might",
        "must",
        "shall",
        "very",
        "more",
        "most",
        "other",
        "another",
        "every",
        "up",
        "out",
        "over",
        "under",
        "again",
        "further",
        "once",
        "here",
        "both",
        "few",
        "nor",
        "off",
        "until",
        "because",
        "during",
        "before",
        "after",
        "above",
        "below",
        "between",
        "through",
        "against",
        "among",
        "within",
        "upon",
        "onto",
        "per",
        "via",
        "like",
        "well",
        "even",
        "still",
        "yet",
        "however",
        "thus",
        "therefore",
        "although",
        "though",
        "whether",
        "either",
        "many",
        "much",
        "one",
        "ones",
        "get",
        "gets",
        "got",
        "make",
        "makes",
        "made",
        "let",
        "lets",
        "say",
        "says",
        "said",
        "use",
        "used",
        "using",
        "way",
        "ways",
        "thing",
        "things",
        "often",
        "usually",
        "generally",
        "typically",
        "really",
        "actually",
        "basically",
        "simply",
        "quite",
        "rather",
        "lot",
        "lots",
    ]
)

NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "cannot",
        "without",
        "nowhere",
        "hardly",
        "barely",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "don't",
        "doesn't",
        "didn't",
        "won't",
        "can't",
        "couldn't",
        "shouldn't",
        "wouldn't",
        "hasn't",
        "haven't",
        "hadn't",
        "mustn't",
        "needn't",
        "ain't",
    ]
)

# Places and their demonyms: "The French-born painter" states that the painter is from France.
_DEMONYMS = {
    "america": ("american",),
    "australia": ("australian",),
    "austria": ("austrian",),
    "belgium": ("belgian",),
    "brazil": ("brazilian",),
    "britain": ("british", "briton"),
    "canada": ("canadian",),
    "china": ("chinese",),
    "denmark": ("danish", "dane"),
    "egypt": ("egyptian",),
    "england": ("english",),
    "europe": ("european",),
    "finland": ("finnish", "finn"),
    "france": ("french",),
    "germany": ("german",),
    "greece": ("greek",),
    "india": ("indian",),
    "ireland": ("irish",),
    "israel": ("israeli",),
    "italy": ("italian",),
    "japan": ("japanese",),
    "korea": ("korean",),
    "mexico": ("mexican",),
    "netherlands": ("dutch",),
    "norway": ("norwegian",),
    "poland": ("polish",),
    "portugal": ("portuguese",),
    "russia": ("russian",),
    "scotland": ("scottish", "scot", "scots"),
    "spain": ("spanish", "spaniard"),
    "sweden": ("swedish", "swede"),
    "switzerland": ("swiss",),
    "turkey": ("turkish",),
    "ukraine": ("ukrainian",),
    "wales": ("welsh",),
}
PLACES = {word: place for place, adjectives in _DEMONYMS.items() for word in (place, *adjectives)}

_UNITS_ONES = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twice": 2,  # "twice daily" is two times a day
    "thrice": 3,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {
    "dozen": 12,
    "hundred": 100,
    "thousand": 1_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
    "trillion": 1_000_000_000_000,
}
# Number words, which the local judge compares as numbers ("Two years." and "2 years") rather
# than as words; not "one", a pronoun first ("one of them"), nor "zero", a point ("below zero").
NUMBER_WORDS = frozenset([*_UNITS_ONES, *_TENS, *_SCALES]) - {"one", "zero"}
MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]

_TOKEN = re.compile(r"\$?\d+(?:[.,]\d+)*(?:%|st|nd|rd|th|s)?|[^\W\d_]+(?:['’\-][^\W\d_]+)*")
CURRENCY_SIGNS = "$€£¥₹"
_NUMERIC = re.compile(rf"^([{CURRENCY_SIGNS}]?)(\d+(?:[.,]\d+)*)(%|st|nd|rd|th|s)?$")
# The words of a quantity: an amount keeps its currency sign ("€25"), and a sign written
# apart from its number ("£ 575,000", "2,50 €") is a word of its own.
_QUANTITY_TOKEN = re.compile(
    rf"[{CURRENCY_SIGNS}]?\d+(?:[.,]\d+)*(?:%|st|nd|rd|th|s)?|[^\W\d_]+(?:['’\-][^\W\d_]+)*"
    rf"|[{CURRENCY_SIGNS}]"
)


# A space inside a number that only groups its digits: no-break, thin, narrow no-break and
# figure spaces ("1\u202f000 euros"). A plain space stays a space: "in 2019 200 people".
_GROUPING_SPACE = re.compile(r"(?<=\d)[\u00a0\u2007\u2009\u202f](?=\d{3}(?!\d))")
# Soft hyphens, zero-width spaces and joiners, the word joiner and the byte-order mark: they
# split a word for the rules without showing anything.
_INVISIBLE = re.compile(r"[\u00ad\u200b-\u200d\u2060\ufeff]")
# A temperature's unit in words: "2-8°C" states degrees Celsius.
_DEGREES = re.compile(r"\s*°\s*([CF])\b")
_SCALE_NAMES = {"C": "Celsius", "F": "Fahrenheit"}
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
        text = _DEGREES.sub(lambda m: f" degrees {_SCALE_NAMES[m.group(1)]}", text)
    return _BROKEN_WORD.sub("", text) if "-" in text else text


def tokens(text: str) -> list[str]:
    """Words and numbers of ``text`` in order (hyphenated words and "don't" stay whole)."""
    return _TOKEN.findall(text)


# A plural of a three-letter word: "dogs", "days", "fees" (not "news", "plus", "this").
_SHORT_PLURAL = re.compile(r"[a-z]{2}[^suiwo]s")
_DOUBLED = re.compile(r"(bb|dd|gg|mm|nn|pp|rr|tt)$")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: enough to match "refunds"/"refunded"/"refund"."""
    word = word.lower().replace("’", "'").strip("'-")
    if word.endswith("'s"):
        word = word[:-2]
    word = _without_suffix(word)
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    # One spelling for British and American English: "colour" and "color", "grey" and "gray".
    if len(word) >= 6 and word.endswith("our"):
        word = word[:-2] + "r"
    return _SPELLINGS.get(word, word)


# The suffixes a stem loses, each with what replaces it, the first that applies only.
_SUFFIXES = (
    ("ies", "y"),
    ("ied", "y"),
    ("ing", ""),
    ("ness", ""),
    ("ment", ""),
    ("edly", ""),
    ("ly", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
)


def _without_suffix(word: str) -> str:
    """``word`` without the first of :data:`_SUFFIXES` it ends with, where the rest is long
    enough (or a short plural: "dogs")."""
    for suffix, replacement in _SUFFIXES:
        if _strips(word, suffix):
            return _undoubled(word[: -len(suffix)] + replacement, suffix)
    return word


def _strips(word: str, suffix: str) -> bool:
    return word.endswith(suffix) and (
        len(word) > len(suffix) + 3 or (suffix == "s" and bool(_SHORT_PLURAL.fullmatch(word)))
    )


def _undoubled(word: str, suffix: str) -> str:
    """The consonant an inflection doubles, once: "submitted", "planned", "running"."""
    if suffix in ("ed", "ing") and len(word) >= 4 and _DOUBLED.search(word):
        return word[:-1]
    return word


_SPELLINGS = {
    "grey": "gray",
    "centr": "center",
    "metr": "meter",
    "litr": "liter",
    "tyre": "tire",
    "chequ": "check",
    "programm": "program",
    "catalogu": "catalog",
    "licenc": "licens",
    "defenc": "defens",
    "aluminium": "aluminum",
}


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """Stemmed words that carry meaning: no stopwords, negations, numbers or short words. A
    demonym counts as its place ("French", "French-born" -> france). Memoised: a claim's
    checks read the same passages many times."""
    words: set[str] = set()
    for t in tokens(text):
        if _carries_meaning(t):
            words.update(_token_words(t))
    return frozenset(words)


def _carries_meaning(token: str) -> bool:
    """Whether a token may carry meaning: no number, amount, stopword or negation."""
    low = token.lower()
    return not (token[0].isdigit() or token.startswith("$") or low in STOPWORDS or low in NEGATIONS)


def _token_words(token: str) -> list[str]:
    """The content words of one token: its stem (a demonym's place) but for a short word,
    and the places of a hyphenated word's demonyms ("French-born")."""
    low = token.lower()
    words = [PLACES.get(low) or stem(token)] if len(token) > 2 else []
    if "-" in low:
        words += [PLACES[part] for part in low.split("-") if part in PLACES]
    return words


def coverage(claim: str, evidence: str) -> float:
    """Share of the claim's content words found (stemmed) in the evidence; 1.0 when the claim
    has none."""
    words = content_words(claim)
    if not words:
        return 1.0
    return len(words & content_words(evidence)) / len(words)


def word_pairs(text: str) -> set[tuple[str, str]]:
    """Adjacent word pairs (stemmed), except pairs of two stopwords: the phrases of a text."""
    words = [stem(t) for t in tokens(text)]
    return {(a, b) for a, b in itertools.pairwise(words) if not (a in STOPWORDS and b in STOPWORDS)}


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


# ----------------------------------------------------------------------------- quantities


@dataclass(frozen=True)
class Quantity:
    """A number as stated: ``value`` normalised, ``unit`` stemmed ("" when none), ``text`` as
    written ("30 days")."""

    value: float
    unit: str
    text: str


def _parse_number(token: str) -> float | None:
    match = _NUMERIC.match(token)
    if match is None:
        return None
    digits = match.group(2)
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", digits):
        digits = digits.replace(",", "")
    elif "," in digits:
        digits = digits.replace(",", ".") if digits.count(",") == 1 else digits.replace(",", "")
    try:
        return float(digits)
    except ValueError:
        return None


def _word_number(words: list[str], i: int) -> tuple[float, int] | None:
    """A number written in words starting at ``words[i]`` ("twenty-five", "two hundred"):
    (value, words used)."""
    spelled = _Spelled()
    used = 0
    for j in range(i, len(words)):
        word = words[j].lower()
        if not (spelled.add(word) or _joins_ones(word, words, j, used)):
            break
        used += 1
    if not used:
        return None
    return spelled.total + spelled.current, used


@dataclass
class _Spelled:
    """A number read from its words: the parts a scale of a thousand or more closed
    ("two thousand"), and the part being read ("three hundred and five")."""

    total: float = 0.0
    current: float = 0.0

    def add(self, word: str) -> bool:
        """Add a number word ("twenty-five", "five", "twenty") or a scale ("hundred"); false
        for another word."""
        value = _number_word(word)
        if value is not None:
            self.current += value
            return True
        if word in _SCALES:
            self.current = max(self.current, 1) * _SCALES[word]
            if _SCALES[word] >= 1000:
                self.total += self.current
                self.current = 0
            return True
        return False


def _number_word(word: str) -> int | None:
    """The value of "twenty-five", "five" or "twenty" (``None`` for another word)."""
    parts = word.split("-")
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _UNITS_ONES:
        return _TENS[parts[0]] + _UNITS_ONES[parts[1]]
    if word in _UNITS_ONES:
        return _UNITS_ONES[word]
    return _TENS.get(word)


def _joins_ones(word: str, words: list[str], j: int, used: int) -> bool:
    """Whether ``word`` is the "and" of "hundred and five"."""
    return bool(
        word == "and" and used and j + 1 < len(words) and words[j + 1].lower() in _UNITS_ONES
    )


# What an amount of money is written with after its number: "$65k", "€2.5m", "$3bn".
_MONEY_SCALES = {"k": 1_000, "m": 1_000_000, "mn": 1_000_000, "bn": 1_000_000_000}


def _scaled(value: float, words: list[str], j: int, money: bool = False) -> tuple[float, int]:
    """Apply "million"/"billion"/"thousand" written after a digit number ("1.5 million"), and
    after an amount of money "k", "m" or "bn" ("$65k")."""
    if j < len(words):
        scale = _SCALES.get(words[j].lower()) or (money and _MONEY_SCALES.get(words[j].lower()))
        if scale:
            return value * scale, j + 1
    return value, j


# Currencies by sign, code or name: "$25", "25 USD" and "25 dollars" count the same thing.
_CURRENCIES = {
    "$": "dollar",
    "usd": "dollar",
    "€": "euro",
    "eur": "euro",
    "£": "pound",
    "gbp": "pound",
    "¥": "yen",
    "jpy": "yen",
    "₹": "rupee",
    "inr": "rupee",
}
# Units written short, as the word they stand for ("5 km" and "5 kilometres" count the same).
_ABBREVIATED_UNITS = {
    "km": "kilometer",
    "kms": "kilometer",
    "cm": "centimeter",
    "mm": "millimeter",
    "mi": "mile",
    "kg": "kilogram",
    "kgs": "kilogram",
    "lb": "pound",
    "lbs": "pound",
    "ml": "milliliter",
    "h": "hour",
    "hr": "hour",
    "hrs": "hour",
    "min": "minute",
    "mins": "minute",
    "sec": "second",
    "secs": "second",
    "yr": "year",
    "yrs": "year",
    "wk": "week",
    "wks": "week",
    "kb": "kilobyte",
    "mb": "megabyte",
    "gb": "gigabyte",
    "tb": "terabyte",
    "pct": "percent",
}


def unit_of(word: str) -> str:
    """A unit word normalised for comparison: lowercase, singular ("days" -> "day"), written
    out ("km" -> "kilometer"), spelled one way ("metre" -> "meter"); a currency by its name
    ("€", "EUR" and "euros" -> "euro")."""
    word = word.lower()
    if word in _CURRENCIES or word in _ABBREVIATED_UNITS:
        return _CURRENCIES.get(word) or _ABBREVIATED_UNITS[word]
    word = _singular(word)
    if word.endswith("tre") and len(word) > 4:  # metre, litre, kilometre
        word = word[:-3] + "ter"
    return word


def _singular(word: str) -> str:
    """A plural unit word singular ("days" -> "day", "centuries" -> "century")."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def quantities(text: str, skip: tuple[tuple[int, int], ...] = ()) -> list[Quantity]:
    """The numbers of ``text`` with the word after each as its unit ("30 days"). Numbers that
    are part of a date ("8 December 1984", "in 2010") are left to :func:`dates`, and those in
    the spans ``skip`` (times of day) to whoever passes them."""
    return list(_quantities(text, skip))


@lru_cache(maxsize=4096)
def _quantities(text: str, skip: tuple[tuple[int, int], ...]) -> tuple[Quantity, ...]:
    words = _number_words(text, skip)
    found: list[Quantity] = []
    i = 0
    while i < len(words):
        quantity, i = _quantity_at(words, i)
        if quantity is not None:
            found.append(quantity)
    return tuple(found)


def _number_words(text: str, skip: tuple[tuple[int, int], ...]) -> list[str]:
    """The words of ``text`` outside its dates and the spans ``skip``, a number word joined
    to what it counts apart."""
    taken = [*_date_spans(text), *skip]
    return [
        word
        for m in _QUANTITY_TOKEN.finditer(text)
        if not any(s <= m.start() < e for s, e in taken)
        for word in _number_apart(m.group(0))
    ]


def _quantity_at(words: list[str], i: int) -> tuple[Quantity | None, int]:
    """(the quantity that starts at ``words[i]``, or ``None``; where the next one may
    start)."""
    currency = _currency_at(words, i)
    value, j = _number_at(words, i, currency)
    if value is None:
        return None, j
    unit, j = _unit_at(words, i, j, currency)
    with_unit = unit and unit not in ("percent", "ordinal") and not currency
    shown = " ".join(words[i : j + 1] if with_unit else words[i:j])
    return Quantity(value, unit, shown), j


def _currency_at(words: list[str], i: int) -> str:
    """The currency of the number ``words[i]``: its sign ("$25"), or the word before it."""
    return _CURRENCIES.get(words[i][0], "") or (i > 0 and _CURRENCIES.get(words[i - 1])) or ""


def _number_at(words: list[str], i: int, currency: str) -> tuple[float | None, int]:
    """(the value of the number at ``words[i]``, in digits and scaled or in words, and the
    index after it); ``None`` for no number, or "one" as a pronoun ("one of the"), which is
    not a count worth checking."""
    value = _parse_number(words[i])
    if value is not None:
        return _scaled(value, words, i + 1, money=bool(currency))
    spelled = _word_number(words, i)
    if spelled is None:
        return None, i + 1
    j = i + spelled[1]
    if words[i].lower() == "one" and (j >= len(words) or words[j].lower() == "of"):
        return None, j
    return spelled[0], j


def _unit_at(words: list[str], i: int, j: int, currency: str) -> tuple[str, int]:
    """(the unit of the number at ``words[i]``, whose words end before ``j``; the index after
    the number and a "percent" it has)."""
    if words[i].endswith("%"):
        return "percent", j
    if j < len(words) and words[j].lower() == "percent":
        return "percent", j + 1
    if currency:  # "$15 million in funding" counts dollars
        return currency, j
    return _word_unit(words, i, j), j


def _word_unit(words: list[str], i: int, j: int) -> str:
    """The unit the word after the number names, else "ordinal" for an ordinal ("due on the
    1st of each month")."""
    unit = _next_unit(words, j)
    if not unit and re.search(r"\d(st|nd|rd|th)$", words[i]):
        return "ordinal"
    return unit


def _next_unit(words: list[str], j: int) -> str:
    """The unit the word ``words[j]`` names, if it may be one (no number, stopword or
    negation)."""
    if j >= len(words):
        return ""
    word = words[j].lower()
    if word[0].isdigit() or word in STOPWORDS or word in NEGATIONS:
        return ""
    return unit_of(word)


_NO_UNIT = frozenset(_UNITS_ONES) | STOPWORDS


def _number_apart(token: str) -> list[str]:
    """A number word joined to what it counts, apart: "three-point" is "three point" (as
    "3-point" is 3 points); "twenty-five" stays one number."""
    first, _, rest = token.partition("-")
    low = rest.lower()
    if first.lower() in _UNITS_ONES and low.isalpha() and low not in _NO_UNIT:
        return [first, rest]
    return [token]


_ASIDE = re.compile(
    r"(\d[^\W\d_]*(?:\s+[^\W\d_]+){0,2})\s*"
    r"\((?:about |approx\.? |roughly |or |i\.e\.,? )?\$?\d[^()]*\)"
)


def without_asides(text: str) -> str:
    """``text`` without the parenthetical restatements of a number it gives ("0 degrees
    Celsius (32 degrees Fahrenheit)", "5 km (3 miles)"): the same fact, converted."""
    return _ASIDE.sub(lambda m: m.group(1), text)


def same_value(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


# ----------------------------------------------------------------------------- dates

_DAY_MONTH_YEAR = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Z][a-z]+)\.?,?\s+(\d{4})\b"
)
_MONTH_DAY_YEAR = re.compile(r"\b([A-Z][a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_MONTH_YEAR = re.compile(r"\b([A-Z][a-z]+)\.?,?\s+(\d{4})\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# "03/15/2025", "15/03/2025", "15.03.2025": the order of day and month is known when one of
# them is above 12 (or the dots, which only day-first writing uses); else only the year is.
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4})\b")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)s?\b")


@dataclass(frozen=True)
class Date:
    """A date as precise as it was written: year, optional month and day."""

    year: int
    month: int | None = None
    day: int | None = None

    def show(self) -> str:
        if self.month is None:
            return str(self.year)
        month = _MONTH_NAMES[self.month - 1]
        return f"{self.day} {month} {self.year}" if self.day else f"{month} {self.year}"

    def compatible(self, other: Date) -> bool:
        """Whether the two can be the same date (one may be less precise than the other)."""
        if self.year != other.year:
            return False
        if self.month is None or other.month is None:
            return True
        return self.month == other.month and _same_or_unknown(self.day, other.day)


def _same_or_unknown(one: int | None, other: int | None) -> bool:
    return one is None or other is None or one == other


def dates(text: str) -> list[Date]:
    """Dates of ``text``: "8 December 1984", "December 8, 1984", "March 2020",
    "2020-03-08", "03/15/2020" and "15.03.2020", and bare years (1500-2099)."""
    return list(_dates(text)[0])


def _date_spans(text: str) -> list[tuple[int, int]]:
    return _dates(text)[1]


@lru_cache(maxsize=4096)
def _dates(text: str) -> tuple[list[Date], list[tuple[int, int]]]:
    """The dates of ``text`` and their spans, each form of :data:`_DATE_FORMS` in turn; a
    date that starts inside one found before is part of it."""
    found: list[Date] = []
    spans: list[tuple[int, int]] = []
    for pattern, read in _DATE_FORMS:
        for m in pattern.finditer(text):
            date = read(m)
            if date is not None and not any(s <= m.start() < e for s, e in spans):
                found.append(date)
                spans.append(m.span())
    return found, spans


def _valid(month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


def _iso_date(m: re.Match[str]) -> Date | None:
    month, day = int(m.group(2)), int(m.group(3))
    return Date(int(m.group(1)), month, day) if _valid(month, day) else None


def _numeric_date(m: re.Match[str]) -> Date | None:
    """A date in digits: its day and month where their order is known, else its year."""
    first, second, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
    day_first = m.group(2) == "." or first > 12
    day, month = (first, second) if day_first else (second, first)
    if not _valid(month, day):
        return None
    known = day_first or second > 12
    return Date(year, month, day) if known else Date(year)


def _day_month_year(m: re.Match[str]) -> Date | None:
    month = MONTHS.get(m.group(2).lower())
    return Date(int(m.group(3)), month, int(m.group(1))) if month and _day(m.group(1)) else None


def _month_day_year(m: re.Match[str]) -> Date | None:
    month = MONTHS.get(m.group(1).lower())
    return Date(int(m.group(3)), month, int(m.group(2))) if month and _day(m.group(2)) else None


def _day(digits: str) -> bool:
    return 1 <= int(digits) <= 31


def _month_year(m: re.Match[str]) -> Date | None:
    month = MONTHS.get(m.group(1).lower())
    return Date(int(m.group(2)), month) if month else None


def _year(m: re.Match[str]) -> Date | None:
    return Date(int(m.group(1)))


# The forms of a date, most precise first: a date inside one found before is part of it.
_DATE_FORMS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Date | None]], ...] = (
    (_ISO, _iso_date),
    (_NUMERIC_DATE, _numeric_date),
    (_DAY_MONTH_YEAR, _day_month_year),
    (_MONTH_DAY_YEAR, _month_day_year),
    (_MONTH_YEAR, _month_year),
    (_YEAR, _year),
)


# ----------------------------------------------------------------------------- negation


# Phrases with a negation word that negate nothing ("not only", "if not impossible").
_NOT_NEGATING = re.compile(
    r"\b(not only|not just|if not|whether or not|no doubt|no matter|nothing but|"
    r"not to mention|no sooner|none other"
    # A bound, not a negation: "no more than 5 projects" is "up to 5 projects".
    r"|(?:no|not) (?:more|less|fewer|later|earlier|longer|shorter|greater|higher|lower|"
    r"older|younger|sooner|bigger|smaller|larger) than)\b",
    re.IGNORECASE,
)


def negation_cues(text: str) -> list[str]:
    """The negation words of ``text`` ("not", "never", "n't" forms, "is non-..."), lowercased;
    idioms such as "not only", "if not" and "no more than" do not count."""
    words = tokens(_NOT_NEGATING.sub(" ", text))
    return [words[at].lower().replace("\u2019", "'") for at in _cue_positions(words)]


NEGATED_SPAN = 4  # the words after a negation that it negates


def negated_words(text: str) -> frozenset[str]:
    """The content words a negation of ``text`` negates: the few words after each cue of
    :func:`negation_cues` ("be returned" in "cannot be returned"), the rest of a "non-" word
    ("refundable"); every content word when a negation ends the text."""
    words = tokens(_NOT_NEGATING.sub(" ", text))
    found: set[str] = set()
    for at in _cue_positions(words):
        after = words[at + 1 : at + 1 + NEGATED_SPAN]
        found |= content_words(" ".join(after)) if after else content_words(text)
        if words[at].lower().startswith("non-"):
            found |= content_words(words[at][4:])
    return frozenset(found)


def _cue_positions(words: list[str]) -> list[int]:
    """Where the negation cues of a text's words are."""
    found = []
    before = ""
    for at, word in enumerate(words):
        low = word.lower().replace("\u2019", "'")
        # "are non-refundable" is "are not refundable"; "in non-Muslim nations" negates nothing.
        stated = low.startswith("non-") and before in _COPULAS
        if low in NEGATIONS or low.endswith("n't") or stated:
            found.append(at)
        before = low
    return found


_COPULAS = frozenset(["is", "are", "was", "were", "be", "been", "being", "remain", "remains"])


# ----------------------------------------------------------------------------- names

_NAME_STOP = STOPWORDS | frozenset(
    [
        "i",
        "i'm",
        "i've",
        "however",
        "but",
        "so",
        "yes",
        "no",
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "it",
        "he",
        "she",
        "they",
        "we",
        "you",
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "mondays",
        "tuesdays",
        "wednesdays",
        "thursdays",
        "fridays",
        "saturdays",
        "sundays",
    ]
)


def names(text: str) -> list[str]:
    """Likely names: runs of capitalised words that do not start a sentence ("Garth Brooks",
    "Mike's Gym"), and acronyms anywhere ("NASA"). Month names are dates, not names."""
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n+", text):
        found += _sentence_names(sentence)
    return list(dict.fromkeys(found))


def _sentence_names(sentence: str) -> list[str]:
    """The names of one sentence: its runs of name words, a comma ending one ("the UK,
    Norway and Switzerland" names three places)."""
    matches = list(re.finditer(r"[^\W_]+(?:['’\-.][^\W_]+)*", sentence))
    words = [m.group(0) for m in matches]
    named = [_name_word(words, index) for index in range(len(words))]
    return _runs(words, named, _comma_before(sentence, matches))


def _name_word(words: list[str], index: int) -> bool:
    """Whether ``words[index]`` is a word of a name: capitalised and no stopword or month
    (a sentence's first word only when a capitalised word follows it: "Alexandre Dumas wrote
    ...", not "Refunds are ..."), or an acronym."""
    word = words[index]
    return (_capitalised(word) and not _opens(words, index)) or _acronym(word)


def _capitalised(word: str) -> bool:
    low = word.lower()
    return (
        word[:1].isupper()
        and not word[:1].isdigit()
        and low not in _NAME_STOP
        and (low not in MONTHS)
    )


def _opens(words: list[str], index: int) -> bool:
    """Whether the word opens its sentence, and no capitalised word follows it."""
    return index == 0 and not (index + 1 < len(words) and words[index + 1][:1].isupper())


def _acronym(word: str) -> bool:
    return len(word) >= 2 and word.isupper() and word.isalpha()


def _comma_before(sentence: str, matches: list[re.Match[str]]) -> list[bool]:
    """Whether a comma stands before each word (the first has none)."""
    return [
        index > 0 and "," in sentence[matches[index - 1].end() : m.start()]
        for index, m in enumerate(matches)
    ]


def _runs(words: list[str], named: list[bool], apart: list[bool]) -> list[str]:
    """The runs of name words, each ended by a word of no name or a comma."""
    runs: dict[int, list[str]] = {}
    run = 0
    for word, name, cut in zip(words, named, apart, strict=True):
        if cut or not name:
            run += 1
        if name:
            runs.setdefault(run, []).append(word)
    return [" ".join(run_words) for run_words in runs.values()]


def words_of_name(name: str) -> set[str]:
    """The words of one name, lowercased, without possessive "'s" ("Mike's Gym" -> mike,
    gym)."""
    words = {re.sub(r"['’]s$", "", word).lower() for word in name.split()}
    return {w for w in words if w and w not in _NAME_STOP}


_IDENTIFIER = re.compile(r"[^\W_]+(?:['’\-.][^\W_]+)*")


@lru_cache(maxsize=256)
def lower_words(text: str) -> frozenset[str]:
    """Every word of ``text`` lowercased, without possessive "'s" (for name look-ups), with
    identifiers as written ("aes-256", "gpt-4o"), the parts of hyphenated words ("french",
    "born"), and the places that demonyms name ("french" -> "france")."""
    words = _written_words(text)
    for word in list(words):
        words.update(_hyphen_parts(word))
    words.update(PLACES[w] for w in list(words) if w in PLACES)
    words.update(unaccented(w) for w in list(words) if not w.isascii())
    return frozenset(words)


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
    """Whether every word of ``name`` occurs in ``text``; an acronym of three letters or more
    also counts when the text spells it out ("PTO" beside "paid time off"), one of two letters
    when the text names what it stands for ("UK" beside "the United Kingdom")."""
    known = lower_words(text)
    return all(_known_word(word, text, known) for word in name.split())


def _known_word(word: str, text: str, known: frozenset[str]) -> bool:
    """Whether one word of a name occurs in ``text`` (whose words are ``known``), or it
    spells the word out."""
    low = re.sub(r"['’]s$", "", word).lower()
    low = low if low.isascii() else unaccented(low)
    if not low or low in _NAME_STOP or low in known or PLACES.get(low, low) in known:
        return True
    return _spelled_out(word, low, text)


def _spelled_out(word: str, low: str, text: str) -> bool:
    """Whether ``text`` spells out an acronym: one of three letters or more by the first
    letters of its words; one of two letters only for a name it is the initials of ("UK":
    "United Kingdom")."""
    if not word.isupper():
        return False
    if len(word) >= 3:
        return low in initials(text)
    return len(word) == 2 and any(initials(n) == low for n in names(text))
