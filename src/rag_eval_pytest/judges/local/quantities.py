"""Numbers as a text states them: their value, in digits or in words, and the unit each
counts ("30 days", "€25", "two weeks").

Rule-based and deterministic, English only. The local judge's number check compares these
between a claim and its evidence (:mod:`.checks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ...text.words import NEGATIONS, STOPWORDS, stem
from .dates import date_spans
from .tables import table
from .units import (
    ARTICLES,
    COUNTS,
    CURRENCIES,
    LABELS,
    PARTS,
    SHARES,
    Measure,
    dimension_of,
    measure,
    same_measure,
    unit_of,
)

_NUMBERS = table("numbers")
_UNITS_ONES = _NUMBERS.numbers("ones")
_TENS = _NUMBERS.numbers("tens")
_ORDINALS = _NUMBERS.numbers("ordinals")
_ORDINAL_DETERMINERS = _NUMBERS.words("ordinal_determiners")
_SCALES = _NUMBERS.numbers("scales") | COUNTS
# Number words, which the local judge compares as numbers ("Two years." and "2 years") rather
# than as words; not those rarely a count ("one of them", "below zero").
NUMBER_WORDS = frozenset([*_UNITS_ONES, *_TENS, *_SCALES]) - _NUMBERS.words("not_counts")
NUMBER_STEMS = frozenset(stem(word) for word in NUMBER_WORDS)
"""The number words as content words read them ("twenty" is "twenti")."""

CURRENCY_SIGNS = "".join(sign for sign in CURRENCIES if not sign.isalnum())
"""The signs of the currencies: "$€£¥₹"."""
_NUMERIC = re.compile(rf"^([{CURRENCY_SIGNS}]?)(\d+(?:[.,]\d+)*)(%|st|nd|rd|th|s)?$")
# The words of a quantity: an amount keeps its currency sign ("€25"), and a sign written
# apart from its number ("£ 575,000", "2,50 €") is a word of its own.
_QUANTITY_TOKEN = re.compile(
    rf"[{CURRENCY_SIGNS}]?\d+(?:[.,]\d+)*(?:%|st|nd|rd|th|s)?|[^\W\d_]+(?:['’\-][^\W\d_]+)*"
    rf"|[{CURRENCY_SIGNS}]"
)


# ----------------------------------------------------------------------------- quantities


@dataclass(frozen=True)
class Quantity:
    """A number as stated: ``value`` normalised, ``unit`` as :func:`unit_of` gives it ("" when
    none), ``text`` as written ("30 days"); ``money`` for an amount of a currency ("£25", whose
    unit "pound" is no mass)."""

    value: float
    unit: str
    text: str
    money: bool = False
    rough: bool = False
    """Whether it is a share of a whole ("a third of"), which a percentage near it states."""
    opens_range: bool = False
    """Whether it is the start of a range whose end is the next quantity ("1" of "1 to 5
    business days"): one fact with its end, not an amount of a list."""

    def measure(self) -> Measure | None:
        """The amount in its dimension's base unit (:func:`.units.measure`), ``None`` for
        money and a unit of no dimension."""
        return None if self.money else measure(self.value, self.unit)


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
        value = number_word(word)
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


def number_word(word: str) -> float | None:
    """The value of "twenty-five", "five" or "twenty" (``None`` for another word)."""
    parts = word.split("-")
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _UNITS_ONES:
        return _TENS[parts[0]] + _UNITS_ONES[parts[1]]
    if word in _UNITS_ONES:
        return _UNITS_ONES[word]
    return _TENS.get(word)


def in_digits(word: str) -> str:
    """``word`` with its number words in digits, the whole word ("twenty-five" -> "25") or
    each of its hyphen-joined parts ("Tier-two" -> "Tier-2", "two" -> "2"); unchanged where
    it has none."""
    whole = number_word(word.lower())
    if whole is not None:
        return f"{whole:g}"
    parts = word.split("-")
    values = [number_word(part.lower()) for part in parts]
    return "-".join(p if v is None else f"{v:g}" for p, v in zip(parts, values, strict=True))


def numbers_in_digits(text: str) -> str:
    """``text`` with the number words of its hyphenated words in digits (:func:`in_digits`):
    read for its words, "the Tier-two team" holds "tier" as "the Tier-2 team" does."""
    return _HYPHENATED.sub(lambda m: in_digits(m.group(0)), text) if "-" in text else text


_HYPHENATED = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


def _joins_ones(word: str, words: list[str], j: int, used: int) -> bool:
    """Whether ``word`` is the "and" of "hundred and five"."""
    return bool(
        word == "and" and used and j + 1 < len(words) and words[j + 1].lower() in _UNITS_ONES
    )


# What an amount of money is written with after its number: "$65k", "€2.5m", "$3bn".
_MONEY_SCALES = _NUMBERS.numbers("money_scales")


def _scaled(value: float, words: list[str], j: int, money: bool = False) -> tuple[float, int]:
    """Apply "million"/"billion"/"thousand" written after a digit number ("1.5 million"), and
    after an amount of money "k", "m" or "bn" ("$65k")."""
    if j < len(words):
        scale = _SCALES.get(words[j].lower()) or (money and _MONEY_SCALES.get(words[j].lower()))
        if scale:
            return value * scale, j + 1
    return value, j


def quantities(text: str, skip: tuple[tuple[int, int], ...] = ()) -> list[Quantity]:
    """The numbers of ``text`` with the word after each as its unit ("30 days"). Numbers that
    are part of a date ("8 December 1984", "in 2010") are left to :func:`dates`, and those in
    the spans ``skip`` (times of day) to whoever passes them."""
    return list(_quantities(text, skip))


@lru_cache(maxsize=4096)
def _quantities(text: str, skip: tuple[tuple[int, int], ...]) -> tuple[Quantity, ...]:
    words = _number_words(text, skip)
    found: list[tuple[int, Quantity]] = []
    i = 0
    while i < len(words):
        start = i
        quantity, i = _quantity_at(words, i)
        if quantity is not None:
            quantity, i = _compound(quantity, words, i)
            found.append((start, quantity))
    return tuple(_range_start(found, k, words) for k in range(len(found)))


_RANGE_WORDS = frozenset({"to", "and", "or"})
"""What joins the two ends of a range ("1 to 5 business days", "between 3 and 100 seats"),
one of them alone (not a fraction's slash: "4371⁄2 grains", "3/4 cup")."""


def _range_start(found: list[tuple[int, Quantity]], k: int, words: list[str]) -> Quantity:
    """The ``k``-th quantity, with the unit of the next where it has none and starts a range
    that ends in it ("1 to 5 business days": 1 business day, as "3 to 5 business days" has
    3): a range's start counts what its end counts."""
    start, quantity = found[k]
    if quantity.unit or k + 1 == len(found):
        return quantity
    end_at, end = found[k + 1]
    if _joins_a_range(words[start + 1 : end_at], end.unit):
        return replace(quantity, unit=end.unit, money=end.money, opens_range=True)
    return quantity


def _joins_a_range(between: list[str], unit: str) -> bool:
    """Whether the words ``between`` two numbers join them as a range of the second's
    ``unit``, a unit and no label ("Terminal 1 to Terminal 2" are two terminals)."""
    return bool(unit) and unit[0] != LABEL and len(between) == 1 and between[0] in _RANGE_WORDS


def _compound(first: Quantity, words: list[str], i: int) -> tuple[Quantity, int]:
    """(the amount, the index after it) of ``first`` and the smaller part of it that follows
    ("2 h 30 min", "1 hour and 15 minutes", "1 m 80 cm": 2.5 hours, 1.25 hours, 1.8 m); else
    ``first`` as it is."""
    j = _next_number(first, words, i)
    second, k = _quantity_at(words, j) if j is not None else (None, i)
    if second is None or not _smaller_part(first, second):
        return first, i
    joined = " and " if "and" in (w.lower() for w in words[i:k]) else " "
    text = f"{first.text}{joined}{second.text}"
    return Quantity(_joined_value(first, second), first.unit, text, False), k


def _joined_value(first: Quantity, second: Quantity) -> float:
    """``first`` and its smaller part ``second``, in ``first``'s unit."""
    one, other = first.measure(), second.measure()
    if one is None or other is None:
        return first.value
    return first.value * (one.value + other.value) / one.value


def _next_number(first: Quantity, words: list[str], i: int) -> int | None:
    """Where the number right after ``first`` starts, past its unit and an "and"; ``None``
    where another word comes first."""
    own = set(first.text.split()) | {"and"}
    for j in range(i, min(i + 4, len(words))):
        if _parse_number(words[j]) is not None:
            return j
        if words[j] not in own and words[j].lower() != "and":
            return None
    return None


def _smaller_part(first: Quantity, second: Quantity) -> bool:
    """Whether ``second`` is a part of ``first``'s unit it follows: of its dimension, in a
    smaller unit, less than one of ``first``'s units ("30 min" after "2 h")."""
    one, other = first.measure(), second.measure()
    if one is None or other is None or one.dimension != other.dimension or not first.value:
        return False
    unit_size = one.value / first.value
    return first.value.is_integer() and 0 < other.value < unit_size


def _number_words(text: str, skip: tuple[tuple[int, int], ...]) -> list[str]:
    """The words of ``text`` outside its dates and the spans ``skip``, a number word joined
    to what it counts apart, and :data:`_PAUSE` where punctuation parts two words: no number
    counts what follows it ("Terminal 1; flights to Madrid" counts no flights)."""
    taken = [*date_spans(text), *skip]
    words: list[str] = []
    end = 0
    for m in _QUANTITY_TOKEN.finditer(text):
        if words and _PUNCTUATION.search(text, end, m.start()):
            words.append(_PAUSE)
        end = m.end()
        if not any(s <= m.start() < e for s, e in taken):
            words += _number_apart(m.group(0))
    return words


_PAUSE = "|"
"""The word that stands for punctuation between two words of a text's numbers."""
_PUNCTUATION = re.compile(r"[;:,.!?()]")


def _quantity_at(words: list[str], i: int) -> tuple[Quantity | None, int]:
    """(the quantity that starts at ``words[i]``, or ``None``; where the next one may
    start)."""
    share = _share_at(words, i)
    if share is not None:
        return share
    currency = _currency_at(words, i)
    value, j = _number_at(words, i, currency)
    if value is None:
        return None, j
    unit, j, width = _unit_at(words, i, j, currency)
    shown = " ".join(words[i : j + width])
    if _labels(words, i) and (not unit or _named(words[i - 1])):
        # "Terminal 2", "Room 101": the name before the number is what it counts; a name's
        # number before a noun counts no more of it ("the Tier-2 team" is one team).
        unit, j = LABEL + words[i - 1].lower(), i + 1
        shown = f"{words[i - 1]} {words[i]}"
    return Quantity(value, unit, shown, bool(currency)), j


LABEL = "#"
"""What opens the unit of a number a name labels ("#terminal" of "Terminal 2")."""


def _labels(words: list[str], i: int) -> bool:
    """Whether the word before the number ``words[i]`` names what the number labels
    ("Terminal 2", "gate 12", "Building Two", "Tier two customers"; not "Cardiff Blues 23",
    a score): a word of the units table's labels, before digits or, written as a name's,
    before a number word."""
    if i == 0 or words[i - 1].lower() not in LABELS:
        return False
    return words[i][:1].isdigit() or _named(words[i - 1])


def _named(word: str) -> bool:
    """Whether a word is written as a name's ("Building", "Two")."""
    return word[:1].isupper()


def _share_at(words: list[str], i: int) -> tuple[Quantity, int] | None:
    """(the share of a whole that starts at ``words[i]``, as a percentage; the index after
    it): "half of", "a quarter of", "two thirds of"; ``None`` for other words, and for an
    ordinal ("the third of May")."""
    if i > 0 and words[i - 1].lower() == "the":
        return None
    low = [w.lower() for w in words[i : i + 3]] + ["", ""]
    width, value = _share_words(low)
    if not width:
        return None
    return Quantity(value, "percent", " ".join(words[i : i + width]), rough=True), i + width


def _share_words(low: list[str]) -> tuple[int, float]:
    """(how many of the lowercase words ``low`` name a share before "of", the share as a
    percentage); (0, 0) for none."""
    if low[0] in SHARES and low[1] == "of":
        return 1, SHARES[low[0]]
    share = SHARES.get(low[1].removesuffix("s"), 0.0) if low[2] == "of" else 0.0
    if not share or low[0] not in _UNITS_ONES:
        return 0, 0.0
    return 2, _UNITS_ONES[low[0]] * share


def _currency_at(words: list[str], i: int) -> str:
    """The currency of the number ``words[i]``: its sign ("$25"), or the word before it."""
    return CURRENCIES.get(words[i][0], "") or (i > 0 and CURRENCIES.get(words[i - 1])) or ""


def _number_at(words: list[str], i: int, currency: str) -> tuple[float | None, int]:
    """(the value of the number at ``words[i]``, in digits and scaled, a part ("half a dozen")
    or in words, and the index after it); ``None`` for no number, or "one" as a pronoun ("one
    of the"), which is not a count worth checking."""
    value = _parse_number(words[i])
    if value is not None:
        return _with_part(*_scaled(value, words, i + 1, money=bool(currency)), words)
    return _part_at(words, i) or _ordinal_at(words, i) or _with_part(*_words_at(words, i), words)


def _ordinal_at(words: list[str], i: int) -> tuple[float, int] | None:
    """(the value, the index after it) of an ordinal written in words after "the" or a
    possessive and before what it orders ("the second floor" is the 2nd floor, "the
    twenty-first day"); ``None`` for other words ("a second screen", "the third of May", "the
    second half")."""
    value = _ordinal_word(words[i].lower())
    if value is None or i == 0 or words[i - 1].lower() not in _ORDINAL_DETERMINERS:
        return None
    return (value, i + 1) if _orders(words, i + 1) else None


def _orders(words: list[str], j: int) -> bool:
    """Whether ``words[j]`` is what an ordinal before it orders: a noun, not a part of the
    whole ("the first half") or a number ("the first ten years" counts years)."""
    ordered = _next_unit(words, j)
    return bool(ordered) and ordered not in _HALVES and _word_number(words, j) is None


def letter_labels(text: str) -> list[tuple[str, str]]:
    """(the noun, lowercased; its letters) of each thing ``text`` labels by a letter or two
    after its noun: "size M", "gate B", "group AB"."""
    return [(noun.lower(), letter) for noun, letter in _LETTERED.findall(text)]


_LETTERED = re.compile(r"\b([A-Za-z]{3,})\s+([A-Z]{1,2})\b(?![\w'’-])")


def is_ordinal(q: Quantity) -> bool:
    """Whether ``q`` orders rather than counts: "1st", "the first day"."""
    return q.unit == "ordinal" or _ordinal_word(q.text.split()[0].lower()) is not None


def _ordinal_word(word: str) -> float | None:
    """The value of "second" or "twenty-first" (``None`` for another word)."""
    tens, _, ones = word.rpartition("-")
    if not tens:
        return float(_ORDINALS[word]) if word in _ORDINALS else None
    if tens in _TENS and _ORDINALS.get(ones, 10) < 10:
        return float(_TENS[tens] + _ORDINALS[ones])
    return None


_HALVES = frozenset(unit_of(share) for share in (*SHARES, *PARTS))
"""What an ordinal before it does not count: "the first half" is a part of the whole."""


def _with_part(value: float | None, j: int, words: list[str]) -> tuple[float | None, int]:
    """The number ``value`` that ends before ``words[j]`` with the part after it: "two and a
    half hours" is 2.5 hours, "1 and a quarter miles" 1.25 miles."""
    share = _and_a_part(words[j : j + 3]) if value is not None else None
    return (value, j) if value is None or share is None else (value + share, j + 3)


def _and_a_part(after: list[str]) -> float | None:
    """The part "and a half" (or "and a quarter", ...) names, ``None`` for other words."""
    lowered = [w.lower() for w in after]
    if len(lowered) < 3 or lowered[0] != "and" or lowered[1] not in ARTICLES:
        return None
    return PARTS.get(lowered[2])


def _words_at(words: list[str], i: int) -> tuple[float | None, int]:
    """(the value of the number written in words at ``words[i]``, the index after it), as
    :func:`_number_at` gives it."""
    spelled = _word_number(words, i)
    if spelled is None:
        return None, i + 1
    j = i + spelled[1]
    if words[i].lower() == "one" and (j >= len(words) or words[j].lower() == "of"):
        return None, j
    return spelled[0], j


def _part_at(words: list[str], i: int) -> tuple[float, int] | None:
    """(the amount, the index after its number) of a part of what follows an article: "half a
    dozen" is 6, "half an hour" is 0.5 (of the unit after it); ``None`` for other words."""
    share = PARTS.get(words[i].lower())
    if share is None or i + 2 >= len(words) or words[i + 1].lower() not in ARTICLES:
        return None
    taken = words[i + 2].lower()
    if taken in _SCALES:
        return share * _SCALES[taken], i + 3
    return (share, i + 2) if dimension_of(unit_of(taken)) else None


def _unit_at(words: list[str], i: int, j: int, currency: str) -> tuple[str, int, int]:
    """(the unit of the number at ``words[i]``, whose words end before ``j``; the index after
    the number and a "percent" or "per cent" it has; how many words from there name the
    unit: "30 days" one, "100 degrees Celsius" two)."""
    if words[i].endswith("%"):
        return "percent", j, 0
    percent = _percent_after(words, j)
    if percent:
        return "percent", j + percent, 0
    if currency:  # "$15 million in funding" counts dollars
        return currency, j, 0
    unit = _word_unit(words, i, j)
    return unit, j, _unit_width(words, j, unit)


def _unit_width(words: list[str], j: int, unit: str) -> int:
    """How many words from ``words[j]`` name ``unit``: none for no unit or an ordinal, two for
    a scale after "degrees" ("100 degrees Celsius"), else one."""
    if not unit or unit == "ordinal":
        return 0
    return 1 if unit == _next_unit(words, j) else 2


def _percent_after(words: list[str], j: int) -> int:
    """How many words from ``words[j]`` say "percent": "percent" (1), "per cent" (2), else 0."""
    following = [w.lower() for w in words[j : j + 2]]
    if following[:1] == ["percent"]:
        return 1
    return 2 if following == ["per", "cent"] else 0


def _word_unit(words: list[str], i: int, j: int) -> str:
    """The unit the word after the number names ("degrees" followed by a scale's name is that
    scale: "100 degrees Celsius"), else "ordinal" for an ordinal ("due on the 1st of each
    month")."""
    unit = _next_unit(words, j)
    if not unit and re.search(r"\d(st|nd|rd|th)$", words[i]):
        return "ordinal"
    scale = _next_unit(words, j + 1) if unit == "degree" else ""
    return scale if dimension_of(scale) else unit


def _next_unit(words: list[str], j: int) -> str:
    """The unit the word ``words[j]`` names, if it may be one (no number, stopword or
    negation)."""
    if j >= len(words) or words[j] == _PAUSE:
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
    if _labelled_number(first, low):
        return [first, rest.capitalize()]  # "Tier-two" is "Tier Two", as "Tier-2" is "Tier 2"
    return [token]


def _labelled_number(first: str, low: str) -> bool:
    """Whether a hyphenated word is a name's label and its number in words ("Tier-two")."""
    return first.lower() in LABELS and _named(first) and number_word(low) is not None


_ASIDE = re.compile(
    r"((?<![\w.,])\d[\d.,]*[^\W\d_]*(?:\s+[^\W\d_]+){0,2})\s*"
    r"\((?:about |approx\.? |roughly |or |i\.e\.,? )?\$?\d[^()]*\)"
)


def without_asides(text: str) -> str:
    """``text`` without the parenthetical restatements of a number it gives ("0 degrees
    Celsius (32 degrees Fahrenheit)", "5 km (3 miles)"): the same fact, converted. An aside
    that converts to another amount stays, a fact of its own ("12 kilometres (15 miles)"), and
    so does one of another amount in the same unit ("15.5km (9.6 km)")."""
    return _ASIDE.sub(lambda m: m.group(0) if _restates_otherwise(m) else m.group(1), text)


def _restates_otherwise(aside: re.Match[str]) -> bool:
    """Whether the aside gives an amount of the number's dimension that is not its amount, in
    another unit or in its own ("15.5km (9.6 km)")."""
    before, inside = quantities(aside.group(1)), quantities(aside.group(0)[len(aside.group(1)) :])
    if not before or not inside:
        return False
    first, second = before[0], inside[0]
    if first.unit == second.unit:
        return bool(first.unit) and not same_value(first.value, second.value)
    return same_measure(first.value, first.unit, second.value, second.unit) is False


def same_value(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
