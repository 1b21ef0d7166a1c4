"""Relevance without an LLM: of an answer to its question, of a context sentence to a question.

Both are logistic models on a few signals, fitted on the tune halves of the project's own
human-labelled sets (``benchmarks/judge_accuracy.py --fit``). For an answer: the embedding
similarity of question and answer, the share of the question's content words the answer
contains, and whether it holds the kind of thing the question asks for (see
:func:`expected_type_found`). For a context sentence: its similarity to the question, and a
rule for a short sentence that answers it (:func:`answers_question`). Similarity alone rewards
being on topic; these sets' negatives are on topic. A verdict is decided only where its kind
of evidence is right often enough on the held-out halves (:mod:`.trust`); every other one,
and one whose probability falls in a model's unsure band, is a best guess only (an LLM judge
decides it in a cascade).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ...text.lexicon import any_of
from ...text.names import names
from ...text.words import content_words, stem, tokens
from . import trust
from .claims import yes_no_statement
from .dates import dates
from .quantities import LABEL, Quantity, letter_labels, quantities
from .support import SHORT_CLAIM_WORDS, logistic
from .tables import table
from .units import CURRENCY_NAMES, dimension_of, measures, unit_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class LogisticModel:
    """Weights, bias and the probability from which the text counts as relevant
    (``support``); ``shown_at`` is the score that probability is shown as (the metric's
    default threshold), so that the default threshold and the fitted cut agree."""

    weights: tuple[float, ...]
    bias: float
    support: float = 0.5
    shown_at: float = 0.5
    unsure: tuple[float, float] | None = None
    """The band of probabilities, ``[low, high)``, in which the verdict is the judge's best
    guess only, for an LLM judge to decide (``None``: always decide, at ``support``)."""
    trusted: frozenset[str] | None = None
    """The kinds of evidence (:mod:`.trust`) that decide a verdict alone, where there is an
    unsure band (``None``: every kind but a probability in the band)."""

    def probability(self, features: Sequence[float]) -> float:
        return logistic(self.weights, self.bias, features)

    def is_unsure(self, probability: float) -> bool:
        return self.unsure is not None and self.unsure[0] <= probability < self.unsure[1]

    def basis(self, probability: float, yes: str, no: str) -> str:
        """The kind of evidence of a verdict its probability decides: ``yes`` from the cut,
        ``no`` below it, or a probability in the band."""
        if self.is_unsure(probability):
            return trust.IN_BAND
        return yes if probability >= self.support else no

    def doubts(self, basis: str) -> bool:
        """Whether a verdict resting on ``basis`` is unsure (never without a band and a set
        of trusted kinds: a model that decides everything)."""
        decides_all = self.unsure is None and self.trusted is None
        return not decides_all and trust.doubted(basis, self.trusted)

    def shown(self, p: float) -> float:
        """The probability mapped piecewise-linearly so that ``support`` shows as
        ``shown_at`` (monotone: the ranking is the probability's)."""
        if p <= self.support:
            value = p / self.support * self.shown_at if self.support > 0 else 0.0
        else:
            value = self.shown_at + (p - self.support) / (1 - self.support) * (1 - self.shown_at)
        return round(min(1.0, max(0.0, value)), 4)

    def score(self, features: Sequence[float]) -> float:
        return self.shown(self.probability(features))

    def holding(self, support: float) -> LogisticModel:
        """The model with its cut at ``support`` and its unsure band widened to hold it."""
        band = self.unsure
        if band is not None:
            band = (min(band[0], support), max(band[1], support))
        return replace(self, support=support, unsure=band)


# Fitted on the tune halves of the project's own relevance sets and hard cases
# (``benchmarks/judge_accuracy.py --fit``; TREC DL and WikiQA may only measure, and are
# printed beside them). Only the kinds of evidence right often enough on the held-out halves
# decide alone (trust.ANSWER_KINDS: an answer that restates its question and gives what it
# asks for; trust.SENTENCE_KINDS: none): every other verdict of these models is a best guess,
# for an LLM judge to decide, and the answer model's band only says how far it is from the
# cut. The sentence model's fitted band is not set: no verdict of its score decides alone.
RELEVANCE = LogisticModel(
    weights=(2.05, 1.11, 1.67),
    bias=-3.05,
    support=0.41,
    shown_at=0.7,
    unsure=(0.23, 0.71),
    trusted=trust.ANSWER_KINDS,
)
SENTENCE_RELEVANCE = LogisticModel(
    weights=(2.01,), bias=-1.42, support=0.46, trusted=trust.SENTENCE_KINDS
)

_WORDS = table("relevance")
_HOW_MUCH = any_of(_WORDS.phrases("how_much"))
_WH = re.compile(
    rf"\b(who|whom|whose|when|where|why|what year|what time|how ({_HOW_MUCH})"
    r"|how (is|are|was|were)"
    rf"|what (?:{any_of(_WORDS.phrases('place_nouns'))}))\b",
    re.I,
)
# What answers "when": a time of day, a day, a season or a frequency ("9 am to 5 pm on
# weekdays", "at 8:00 every morning") besides a date.
_WHEN = re.compile(
    r"\b(\d{1,2}(:\d\d)?\s*([ap]\.?m\b\.?)|\d{1,2}:\d\d"
    rf"|{any_of(_WORDS.phrases('when'))})\b",
    re.I,
)
# What answers "who" besides a name: a person, a role or a body named as such ("a mentor",
# "the facilities team", "a pharmacist"; not "competitors must jump").
_WHO = re.compile(
    rf"\b(?:{any_of(_WORDS.phrases('who_determiners'))})\s+(?:[\w-]+\s+)?"
    rf"(\w{{3,}}(?:{any_of(_WORDS.phrases('who_endings'))})"
    rf"|{any_of(_WORDS.phrases('who_nouns'))})\b",
    re.I,
)
# Words that name no one and nothing, only the kind of thing asked for ("the person responsible
# for approving them", "the relevant team", "in due course"): what is asked is not found in them.
_VAGUE = re.compile(
    rf"\b(?:(?:{any_of(_WORDS.phrases('vague_before'))})\s+)?"
    rf"(?:(?:{any_of(_WORDS.phrases('who_determiners'))})\s+"
    rf"(?:{any_of(_WORDS.phrases('vague_qualifiers'))})\s+[\w-]+"
    rf"|(?:{any_of(_WORDS.phrases('who_determiners'))})\s+"
    rf"(?:{any_of(_WORDS.phrases('vague_holders'))})\s+(?:{any_of(_WORDS.phrases('vague_after'))})"
    rf"|{any_of(_WORDS.phrases('vague_phrases'))})\b",
    re.I,
)
# Words ending like a role noun that are not one.
_NOT_WHO = _WORDS.words("not_who")
# What answers "how is it done": the means or manner ("encrypted with AES-256", "by hand").
_HOW = re.compile(rf"\b({any_of(_WORDS.phrases('means'))})\b", re.I)
_WHY = re.compile(rf"\b({any_of(_WORDS.phrases('causes'))})\b", re.I)
# A place without a name answers "where": "in the garage behind the office", "at the front
# desk"; not a time ("in the morning", "at the end of the month").
_WHERE = re.compile(
    rf"\b({any_of(_WORDS.phrases('where_prepositions'))})\s+"
    rf"({any_of(_WORDS.phrases('where_determiners'))})\s+"
    rf"(?!(?:{any_of(_WORDS.phrases('not_places'))})\b)([a-z][\w-]*)",
    re.I,
)


def question_coverage(question: str, text: str) -> float:
    """Share of the question's content words found in the text."""
    words = content_words(question)
    if not words:
        return 0.0
    return len(words & content_words(text)) / len(words)


# The auxiliary after "which X" that ends the noun phrase naming what is asked for ("Which
# payment methods do you accept?").
_AUXILIARY = rf"(?:{any_of(_WORDS.phrases('auxiliaries'))})"
_WHICH = re.compile(
    rf"\b(which|what)\s+(?!{_AUXILIARY}\b)((?:[\w'-]+\s+){{0,2}}?[\w'-]+)\s+{_AUXILIARY}\b",
    re.I,
)
_WHAT_IS = re.compile(
    r"\bwhat(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:the|your|our|a|an)\s+"
    r"((?:[\w'-]+\s+){0,3}?[\w'-]+)(?:\s*(?:\?|$)|\s+(?:of|for|on|in|at|to|if|when|with)\b)",
    re.I,
)
# Nouns whose answer is an amount, a length of time or a time ("the return window", "the
# daily withdrawal limit", "the check-in time").
_AMOUNT_NOUNS = frozenset(content_words(" ".join(_WORDS.phrases("amount_nouns"))))
# The word after "how" that names what is asked ("how long"): no topic the answer repeats.
_HOW_WORDS = re.compile(rf"\bhow\s+({_HOW_MUCH})\b", re.I)
_LIST = re.compile(r"[^\W\d_][\w'-]*(?:\s+[\w'-]+){0,3},\s+[\w'-]+|\b\w+\s+(?:and|or)\s+\w+", re.I)
_SINGULAR_S = _WORDS.phrases("singular_endings")


@lru_cache(maxsize=1024)
def asked_for(question: str) -> tuple[str, frozenset[str]]:
    """(kind, words) of what a question asks for beyond its wh-word, and the words that name
    it, which an answer gives by instance rather than repeats:

    * "items" for "which X" with X plural, and "what X do ..." ("Which payment methods do
      you accept?": names or a list answer it), "item" for "which X" with X singular;
    * "amount" when X, or the X of "what is the X", ends with a noun of an amount, a length
      of time or a time ("What is the return window?", "Which days ...");
    * "" otherwise, with the word after "how" ("long" in "how long") as the words."""
    how = _HOW_WORDS.search(question)
    if how:
        return "", frozenset(content_words(how.group(1)))
    which = _WHICH.search(question)
    asked = _which_asked(which) if which else None
    if asked is not None:
        return asked
    what = _WHAT_IS.search(question)
    if what:
        return _kind(what.group(1), "")
    return "", frozenset()


def _which_asked(which: re.Match[str]) -> tuple[str, frozenset[str]] | None:
    """What "which X" asks for, and "what X do ..." with X plural or an amount (``None``
    for another "what X")."""
    last = which.group(2).lower().split()[-1]
    plural = last.endswith("s") and not last.endswith(_SINGULAR_S)  # "methods", not "gas"
    if which.group(1).lower() == "which" or plural or _names_amount(which.group(2)):
        return _kind(which.group(2), "items" if plural else "item")
    return None


def _kind(phrase: str, otherwise: str) -> tuple[str, frozenset[str]]:
    """The kind "amount" and the amount words of a noun phrase that ends with one ("minimum
    password length"), else ``otherwise`` and the phrase's words."""
    words = content_words(phrase)
    if _names_amount(phrase):
        return "amount", words & _AMOUNT_NOUNS
    return otherwise, words if otherwise else frozenset()


def _names_amount(phrase: str) -> bool:
    """Whether a noun phrase ends with a noun of an amount or a time ("check-in time")."""
    head = content_words(phrase.split()[-1])
    return bool(head) and head <= _AMOUNT_NOUNS


def topic_coverage(question: str, text: str) -> float:
    """Share of the question's content words found in the text, the words that name what it
    asks for left out (:func:`asked_for`: an answer gives the payment methods, it does not
    repeat "payment methods"); a hyphenated word counts when its parts are there
    ("check-in" in "check in")."""
    words = content_words(question) - asked_for(question)[1]
    if not words:
        return 0.0
    found = content_words(text)
    parts = {w for w in words if "-" in w and content_words(w.replace("-", " ")) <= found}
    return len(words & found | parts) / len(words)


def expected_type_found(question: str, answer: str) -> float:
    """1 when the answer holds what the question's wh-word asks for, 0 when it does not,
    0.5 when the question asks for no particular kind of thing: a number for "how many", a
    date, a time of day or a day for "when", a name or a person's role for "who", the means
    for "how is it done", a cause for "why", names or a list for "which payment methods",
    a number, a time or a date for "what is the return window" (:func:`asked_for`)."""
    kind = asked_for(question)[0]
    answer = _own_numbers_removed(question, _VAGUE.sub(" ", answer))
    if kind.startswith("item"):
        return _items_found(question, answer, kind)
    if _asks_a_price(question, kind):
        return 1.0 if _price_found(answer) else 0.0
    return _wh_found(question, answer, kind)


def _own_numbers_removed(question: str, answer: str) -> str:
    """The answer without the numbers the question gives ("737" of "How many seats does a
    Boeing 737 have?", "1975" of "Who founded Microsoft in 1975?"): the answer repeats them,
    it does not give them."""
    own = frozenset(_NUMBER.findall(question))
    return _NUMBER.sub(lambda m: " " if m.group(0) in own else m.group(0), answer)


_NUMBER = re.compile(r"(?<![\w.,:])\d+(?:[.,:]\d+)*(?![\w.,:]?\d)")


def _wh_found(question: str, answer: str, kind: str) -> float:
    """What the question's wh-word asks for, found or not (0.5: it asks for no kind)."""
    match = _WH.search(question)
    if match is None:
        return _amount_found(question, answer) if kind == "amount" else 0.5
    found = _FOUND.get(_wh_asked(match), _who_found)(question, answer)
    return 1.0 if found else 0.0


def _asks_a_price(question: str, kind: str) -> bool:
    """Whether the question asks for a price ("How much is the late fee?", "What is the
    deposit?")."""
    return bool(_PRICE.search(question)) and (kind == "amount" or bool(_COUNTED.search(question)))


# A question about a price ("How much is the late fee?", "What is the deposit?").
_PRICE = re.compile(rf"\b(?:{any_of(_WORDS.phrases('price_nouns'))})\b", re.IGNORECASE)
_FREE = re.compile(rf"\b(?:{any_of(_WORDS.phrases('free'))})\b", re.IGNORECASE)


def _price_found(answer: str) -> bool:
    """An amount of money, a share, or "free" answers a question about a price."""
    return bool(_FREE.search(answer)) or any(
        q.money or q.unit in CURRENCY_NAMES or q.unit == "percent" for q in quantities(answer)
    )


def _items_found(question: str, answer: str, kind: str) -> float:
    """Names the question does not give, or a list, answer "which payment methods" ("Leeds"
    gives no platform for "Which platform does the Leeds train leave from?"); "which gas"
    asks for one thing, maybe a common noun."""
    if _new_name(question, answer) or _LIST.search(answer) or _labelled(question, answer):
        return 1.0
    return 0.0 if kind == "items" else 0.5


def _labelled(question: str, answer: str) -> bool:
    """Whether the answer labels the thing "which X" asks for by a number or a letter
    ("platform 4", "the 3rd floor", "gate B")."""
    asked = asked_for(question)[1]
    numbered = any(content_words(q.unit.lstrip("#")) & asked for q in quantities(answer))
    return numbered or any(content_words(noun) & asked for noun, _ in letter_labels(answer))


def _amount_found(question: str, answer: str) -> float:
    """A number of an amount, a time or a date answers "what is the return window"; a
    count of another thing does not ("The speed limit is enforced by 12 cameras.")."""
    amounts = [q for q in _numbers(answer) if _an_amount(q, question)]
    return 1.0 if amounts or dates(answer) or _time_found(question, answer) else 0.0


def _numbers(answer: str) -> list[Quantity]:
    """The answer's numbers but labels ("section 4", "page 2"): a label is no amount."""
    return [q for q in quantities(answer) if not q.unit.startswith(LABEL)]


def _an_amount(q: Quantity, question: str) -> bool:
    """Whether ``q`` is an amount, not a count of things the question does not name ("12
    cameras" for "What is the speed limit?"): a bare number, money, a share, a measure, a
    unit ("30 mph"), or a count of the question's own thing."""
    if _counts_its_thing(q, question) or q.money or q.unit == "percent" or measures(q.unit):
        return True
    return not q.text.split()[-1].lower().endswith("s")  # "12 cameras" counts, "30 mph" not


def _counts_its_thing(q: Quantity, question: str) -> bool:
    """Whether ``q`` is a bare number, or counts a thing the question names ("120 rooms" for
    "How many rooms ...?"), people or times."""
    return not q.unit or q.unit in _COUNTERS or stem(q.unit) in content_words(question)


_COUNTERS = frozenset(unit_of(word) for word in _WORDS.words("counters"))


def _counts_how_many(q: Quantity, question: str, answer: str) -> bool:
    """Whether ``q`` counts how many of what the question asks about there are."""
    return _counts_its_thing(q, question) and not _each(q, answer)


def _each(q: Quantity, answer: str) -> bool:
    """Whether ``q`` counts each one of the things, not how many there are ("rooms for 2
    people each"; "200 calories per serving" is a rate, which may be the answer)."""
    at = answer.find(q.text)
    return at >= 0 and bool(_EACH.match(answer, at + len(q.text)))


_EACH = re.compile(rf"\s+(?:[a-z]+\s+)?(?:{any_of(_WORDS.phrases('each_one'))})\b", re.IGNORECASE)


def _wh_asked(match: re.Match[str]) -> str:
    """The wh-words of a question, "how" read as "how done" ("how is it done": the means)
    or "how many" (a number: "how long", "how old"), "what city" as "where"."""
    wh = match.group(0).lower()
    if wh.startswith("how"):
        return "how done" if match.group(3) else "how many"
    return "where" if wh.startswith("what ") and wh not in _FOUND else wh


def _when_found(question: str, answer: str) -> bool:
    """A date, a time of day, a day, a season, a frequency, or a length of time ("after 5
    days"); not a word of the question ("spring" of "When does the spring term start?")."""
    return bool(dates(answer)) or _time_found(question, answer) or _lasts(answer)


def _time_found(question: str, answer: str) -> bool:
    """A time of day, a day, a season or a frequency the question does not give ("spring" of
    "When does the spring term start?", "daily" of "What is the daily limit?")."""
    asked = content_words(question)
    return any(_not_asked(m.group(0), asked) for m in _WHEN.finditer(answer))


def _not_asked(found: str, asked: frozenset[str]) -> bool:
    """Whether ``found`` has a word the question does not, or none ("9 am")."""
    words = content_words(found)
    return not words or not words <= asked


def _lasts(answer: str) -> bool:
    """Whether the answer gives a length of time: a number with a unit of time, or one word
    between them ("5 business days")."""
    return any(
        dimension_of(q.unit) == "duration"
        or dimension_of(unit_of(_word_after(q.text, answer))) == "duration"
        for q in quantities(answer)
    )


def _word_after(text: str, answer: str) -> str:
    """The word after ``text`` in ``answer`` ("" for none)."""
    at = answer.find(text)
    following = answer[at + len(text) :].split() if at >= 0 else []
    return following[0].strip(".,;:!?").lower() if following else ""


def _means_found(question: str, answer: str) -> bool:
    """A means in words the question does not give ("by bank transfer"; not "encrypted
    with encryption" or "using an encryption method")."""
    return any(_new_words(answer[m.end() :], question) for m in _HOW.finditer(answer))


def _number_found(question: str, answer: str) -> bool:
    """A number, or a date ("how old", "what year"); only a number for "how much" and "how
    many" (a year is no price: "The Pro plan cost was raised in 2023."), and for "how many",
    one that counts what it asks about ("The hotel has rooms on 5 floors." counts no
    rooms). A label is none ("section 4": :func:`_numbers`)."""
    numbers = _numbers(answer)
    if _MANY.search(question):
        return any(_counts_how_many(q, question, answer) for q in numbers)
    if _COUNTED.search(question):
        return any(_an_amount(q, question) for q in numbers)
    return bool(numbers or dates(answer))


_MANY = re.compile(r"\bhow many\b", re.IGNORECASE)


_COUNTED = re.compile(r"\bhow (?:much|many)\b", re.IGNORECASE)


def _cause_found(question: str, answer: str) -> bool:
    """A cause in words the question does not give ("because it has expired"; not "Trains
    are delayed because of the delays.")."""
    return any(_new_words(answer[m.end() :], question) for m in _WHY.finditer(answer))


def _new_words(text: str, question: str) -> bool:
    """Whether ``text`` has a word that is neither the question's (its stem, or a word it
    begins the same way: "delivery" of "delivered") nor one that fits any means or cause ("a
    method", "the reason")."""
    asked = content_words(question) | _EMPTY_WORDS
    starts = {w[:_SAME_START] for w in tokens(question.lower()) if len(w) >= _SAME_START}
    return any(
        stem(w) not in asked and w[:_SAME_START] not in starts
        for w in tokens(text.lower())
        if content_words(w)
    )


_EMPTY_WORDS = frozenset(
    content_words(" ".join(_WORDS.phrases("causes") + _WORDS.phrases("empty_means")))
)
_SAME_START = 6
"""The letters two words begin with alike that make them one ("encryption", "encrypted")."""


def _place_found(question: str, answer: str) -> bool:
    """A name, or a place the question does not give ("in the garage", not "at the office"
    for "Where is the office?")."""
    asked = content_words(question)
    return _new_name(question, answer) or any(
        stem(m.group(3)) not in asked for m in _WHERE.finditer(answer)
    )


def _who_found(question: str, answer: str) -> bool:
    """A name, or a person's role the question does not give; only a name where the question
    gives the role and asks who holds it ("Who is the conductor of the orchestra?": "chosen
    by the musicians" is none)."""
    if _NAMED_ROLE.search(question):
        return _new_name(question, answer)
    asked = content_words(question)
    return _new_name(question, answer) or any(
        m.group(1).lower() not in _NOT_WHO and stem(m.group(1)) not in asked
        for m in _WHO.finditer(answer)
    )


_NAMED_ROLE = re.compile(
    r"\bwho\s+(?:is|are|was|were)\s+(?:the|your|our|my|their|its)\b", re.IGNORECASE
)


def _new_name(question: str, answer: str) -> bool:
    """Whether the answer names something the question does not ("Atacama Desert" gives no
    place for "Where is the Atacama Desert?")."""
    asked = content_words(question)
    return any(not content_words(name) <= asked for name in names(answer))


# What shows an answer holds what each wh-word asks for; who, whom and whose: a person.
_FOUND: dict[str, Callable[[str, str], bool]] = {
    "when": _when_found,
    "what time": _when_found,
    "how done": _means_found,
    "how many": _number_found,
    "what year": _number_found,
    "why": _cause_found,
    "where": _place_found,
}


# A short answer that holds what its question asks for answers it directly, however far from
# the question it is in meaning (short texts sit far from their question in the model's
# space): a fragment ("30 days." for "What is the refund window?", "Visa, Mastercard and
# PayPal.") or an answer of at most DIRECT_WORDS words on the question's topic ("Yes, dogs
# are welcome in ground-floor rooms." for "Can I bring my dog?"). An answer that only has
# the right kind of thing ("Our office opens at 9am in Berlin." for "How many days off do
# employees get?") is left to the model.
DIRECT_WORDS = 12


_OPENS_WITH_VALUE = re.compile(
    rf"^\W*(?:(?:{any_of(_WORDS.phrases('value_openers'))})\s+)?[$€£]?\d",
    re.IGNORECASE,
)


def direct_answer(question: str, answer: str, type_found: float | None = None) -> bool:
    """Whether ``answer`` is a short, direct answer to ``question``: the kind of thing a
    specific question asks for (:func:`expected_type_found`), or a yes or no to a yes/no
    question."""
    if not _short_on_topic(question, answer):
        return False
    if yes_no_statement(answer.split(",")[0].split(".")[0] + ".", question) is not None:
        return True
    if not _asks_for_a_value(question):
        return False
    found = expected_type_found(question, answer) if type_found is None else type_found
    return found == 1.0


def _short_on_topic(question: str, answer: str) -> bool:
    """Whether the answer has at most :data:`DIRECT_WORDS` words and shares the question's
    topic. An answer that opens with its value ("At 9 am every day except Sunday.", "Within
    30 days of delivery.") leaves the question's subject out, as a fragment does; one with a
    subject of its own ("Our founder was born in 1970.") must share the question's topic."""
    size = len(answer.split())
    elliptic = size < SHORT_CLAIM_WORDS or bool(_OPENS_WITH_VALUE.match(answer))
    on_topic = elliptic or bool(content_words(answer) & content_words(question))
    return size <= DIRECT_WORDS and on_topic


def _asks_for_a_value(question: str) -> bool:
    """Whether the question asks for what an answer holds unmistakably: an amount, a length
    of time, a number, a time or a date ("how long", "when", "what is the return window"),
    or the items of a list ("which payment methods"). What answers "who", "where", "why" or
    "how is it done" is read from looser signs (any name, any place), too loose to decide."""
    if asked_for(question)[0] in ("amount", "items"):
        return True
    match = _WH.search(question)
    if match is None:
        return False
    wh = match.group(0).lower()
    return wh in ("when", "what time", "what year") or (wh.startswith("how") and not match.group(3))


def answer_features(question: str, answer: str, q: Vector, a: Vector) -> list[float]:
    """Similarity, the share of the question's words the answer has (those that name the
    items asked for left out: "payment methods" in "Which payment methods do you accept?"),
    and whether it holds the kind of thing asked for."""
    covered = topic_coverage if asked_for(question)[0].startswith("item") else question_coverage
    return [
        float(q @ a),
        covered(question, answer),
        expected_type_found(question, answer),
    ]


@dataclass(frozen=True)
class Rating:
    """How well an answer addresses its question: the score (0 to 1, the model's cut shown
    at its ``shown_at``), why, and, when the probability falls in the model's unsure band,
    the scores of the band's edges (``bounds``): the rating is then a best guess only."""

    score: float
    reason: str
    bounds: tuple[float, float] | None = None
    basis: str = ""
    """The kind of evidence the rating rests on (:mod:`.trust`)."""

    @property
    def unsure(self) -> bool:
        return self.bounds is not None


def answer_relevance(
    question: str, answer: str, q: Vector, a: Vector, model: LogisticModel = RELEVANCE
) -> Rating:
    """How well the answer addresses the question."""
    features = answer_features(question, answer, q, a)
    p = model.probability(features)
    direct = direct_answer(question, answer, features[2])
    basis = _rating_basis(features, p, direct, model)
    if basis in _ANSWERS_IT:  # "30 days." for "What is the refund window?": far in meaning
        p = max(p, model.support)
    score = model.shown(p)
    reason = _relevance_reason(question, features, direct)
    if not model.doubts(basis):
        return Rating(score, reason, basis=basis)
    return _doubted(score, reason, basis, model)


# An answer close to its question in meaning that holds every word of it and the kind of
# thing it asks for restates it and answers it ("Canberra is the capital of Australia." for
# "What is the capital of Australia?"); one far below the model's cut is about something
# else. Each is a kind of evidence of its own, measured on the benchmark sets' held-out
# halves (benchmarks/README.md).
RESTATING_SIMILARITY = 0.7
UNRELATED_PROBABILITY = 0.2
_ANSWERS_IT = (trust.RESTATES_QUESTION, trust.DIRECT_ANSWER)


def restates(features: list[float]) -> bool:
    """Whether an answer with these features (:func:`answer_features`) restates its question
    and gives what it asks for."""
    similarity, covered, found = features
    return similarity >= RESTATING_SIMILARITY and covered == 1.0 and found == 1.0


def _rating_basis(features: list[float], p: float, direct: bool, model: LogisticModel) -> str:
    """The kind of evidence of an answer's rating: a restatement that gives what the
    question asks for, a short direct answer, a score far below the cut, else the score."""
    if restates(features):
        return trust.RESTATES_QUESTION
    if direct:
        return trust.DIRECT_ANSWER
    if p < UNRELATED_PROBABILITY:
        return trust.FAR_BELOW
    return model.basis(p, trust.RELEVANT_SCORE, trust.IRRELEVANT_SCORE)


def _relevance_reason(question: str, features: list[float], direct: bool) -> str:
    """The similarity, the share of the question's words, and what the answer gives of
    what the question asks for."""
    kind = asked_for(question)[0]
    named = "items" if kind == "items" else "thing"
    besides = f" besides the {named} it asks for" if kind.startswith("item") else ""
    parts = [
        f"similarity to the question {features[0]:.2f}",
        f"{features[1]:.0%} of the question's words{besides}",
    ]
    if features[2] == 0.0:
        parts.append("it does not contain what the question asks for")
    if direct:
        parts.append("a short answer that gives what the question asks for")
    return "; ".join(parts)


def _doubted(score: float, reason: str, basis: str, model: LogisticModel) -> Rating:
    """A rating whose kind of evidence does not decide alone: a best guess, with the scores
    it may be between."""
    if basis != trust.IN_BAND:  # a kind that does not decide alone: any rating may be right
        return Rating(score, f"{trust.doubt_reason(basis)}: {reason}", (0.0, 1.0), basis)
    assert model.unsure is not None
    edges = (model.shown(model.unsure[0]), model.shown(model.unsure[1]))
    opening = f"unsure (score {score:.2f} is between {edges[0]:.2f} and {edges[1]:.2f})"
    # Beyond the band's edges the score decides only where its kinds decide alone.
    scored = {trust.RELEVANT_SCORE, trust.IRRELEVANT_SCORE}
    bounds = edges if model.trusted is None or scored <= model.trusted else (0.0, 1.0)
    return Rating(score, f"{opening}: {reason}", bounds, basis)


def sentence_features(q: Vector, vectors: list[Vector]) -> list[list[float]]:
    """Per sentence: its similarity to the question. (Its neighbours' similarity and the
    question's words were tried and left out: on the dev queries they did not help, and a
    neighbour would make an unrelated sentence "relevant".)"""
    own = np.vstack(vectors) @ q
    return [[float(x)] for x in own]


# A sentence that holds most of the question's words and the kind of thing it asks for, and is
# at least this close to it in meaning, answers it ("Every new hire is assigned a mentor" for
# "Who is assigned to every new hire?"): short sentences are farther from their question in
# embedding space than the on-topic passages the model was fitted on.
ANSWERING_COVERAGE = 0.6
ANSWERING_SIMILARITY = 0.45
# A question that asks for an amount or a time by naming it ("What is the return window?")
# sits far from the sentence that gives it ("Items can be returned within 30 days":
# similarity 0.31): the naming word is the question's, the number the sentence's. A sentence
# with every other word of the question and such an amount answers it from this similarity.
AMOUNT_SIMILARITY = 0.25


@dataclass(frozen=True)
class SentenceScore:
    """One context sentence: the model's probability and whether it answers the question by
    the rule above."""

    probability: float
    answers: bool

    def relevant(self, threshold: float) -> bool:
        return self.answers or self.probability >= threshold

    def basis(self, model: LogisticModel) -> str:
        """The kind of evidence of its verdict (:mod:`.trust`)."""
        if self.answers:
            return trust.ANSWERS_QUESTION
        return model.basis(self.probability, trust.NEEDED_SCORE, trust.NOT_NEEDED_SCORE)

    def unsure(self, model: LogisticModel) -> bool:
        """Whether the verdict is a best guess only: the probability is in the model's
        unsure band and the rule does not decide it, or its kind of evidence does not decide
        alone."""
        return model.doubts(self.basis(model))

    def shown(self, threshold: float) -> float:
        """The score a user reads, 0 to 1 with the cut at 0.5: the probability mapped
        piecewise-linearly so that ``threshold`` shows as 0.5 (monotone)."""
        p = self.probability
        if p < threshold:
            value = p / threshold * 0.5 if threshold > 0 else 0.0
        else:
            value = 0.5 + (p - threshold) / (1 - threshold) * 0.5 if threshold < 1 else 1.0
        if self.answers:
            value = max(value, 0.5)
        return round(min(1.0, max(0.0, value)), 4)


def answers_question(question: str, sentence: str, similarity: float) -> bool:
    """Whether the sentence answers the question by the rule of :data:`ANSWERING_COVERAGE`
    (and :data:`AMOUNT_SIMILARITY`)."""
    covered = topic_coverage(question, sentence)
    amount = covered == 1.0 and asked_for(question)[0] == "amount"
    return (
        similarity >= (AMOUNT_SIMILARITY if amount else ANSWERING_SIMILARITY)
        and len(content_words(question)) >= 2
        and covered >= ANSWERING_COVERAGE
        and expected_type_found(question, sentence) == 1.0
    )


def sentence_relevance(
    question: str,
    sentences: list[str],
    q: Vector,
    vectors: list[Vector],
    model: LogisticModel = SENTENCE_RELEVANCE,
) -> list[SentenceScore]:
    """Relevance of each context sentence to the question."""
    if not sentences:
        return []
    return [
        SentenceScore(model.probability(f), answers_question(question, sentence, f[0]))
        for sentence, f in zip(sentences, sentence_features(q, vectors), strict=True)
    ]
