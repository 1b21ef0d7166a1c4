"""Names a text gives: runs of capitalised words and acronyms.

Rule-based, English only. The local judge checks a claim's names against its contexts, and
``rag-eval generate`` asks about the names of a document's sentences.
"""

from __future__ import annotations

import re

from .lexicon import word_table
from .words import STOPWORDS

_TABLES = "rag_eval_pytest.text"
_MONTHS = word_table(_TABLES, "months")
MONTH_NUMBERS = {name: int(number) for name, number in _MONTHS.numbers("months").items()}
"""The months by name, January first."""
MONTHS = MONTH_NUMBERS | {
    short: MONTH_NUMBERS[name] for short, name in _MONTHS.mapping("short").items()
}
"""The months' numbers by their names and short names ("jan", "sept")."""
_DAYS = word_table(_TABLES, "days")
DAYS = _DAYS.phrases("days")
"""The days of the week, Monday first."""
SHORT_DAYS = _DAYS.mapping("short")
"""The days of the week by their short names ("tues": "tuesday")."""
NAME_STOP = (
    STOPWORDS
    | word_table(_TABLES, "names").words("not_names")
    | frozenset(DAYS)
    | frozenset(day + "s" for day in DAYS)
)
"""Words that are no name's, capitalised or not: the stopwords, pronouns, titles and days."""


def names(text: str) -> list[str]:
    """Likely names: runs of capitalised words that do not start a sentence ("Garth Brooks",
    "Mike's Gym"), and acronyms anywhere ("NASA"). Month names are dates, not names."""
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n+", text):
        found += _sentence_names(sentence)
    return list(dict.fromkeys(found))


def _sentence_names(sentence: str) -> list[str]:
    """The names of one sentence: its runs of name words (a day right after one among them:
    "Hey Monday"), a comma ending one ("the UK, Norway and Switzerland" names three
    places)."""
    matches = list(re.finditer(r"[^\W_]+(?:['’\-.][^\W_]+)*", sentence))
    words = [m.group(0) for m in matches]
    named = [_name_word(words, index) for index in range(len(words))]
    spaced = [
        i > 0 and sentence[matches[i - 1].end() : m.start()] == " " for i, m in enumerate(matches)
    ]
    return _runs(words, _with_days(words, named, spaced), _comma_before(sentence, matches))


def _name_word(words: list[str], index: int) -> bool:
    """Whether ``words[index]`` is a word of a name: capitalised and no stopword or month
    (a sentence's first word only when a capitalised word follows it: "Alexandre Dumas wrote
    ...", not "Refunds are ..."), an acronym, or a capital letter after a name word ("Plan
    A")."""
    word = words[index]
    if (_capitalised(word) and not _opens(words, index)) or _acronym(word):
        return True
    return _letter_after_name(words, index)


def _with_days(words: list[str], named: list[bool], spaced: list[bool]) -> list[bool]:
    """``named`` with a capitalised day right after a name word (a space between) read as
    the name's last word: "Hey Monday", "Black Friday", "Easter Monday" (a band, a sale, a
    holiday)."""
    return [
        name or (index > 0 and spaced[index] and named[index - 1] and _day(words[index]))
        for index, name in enumerate(named)
    ]


def _day(word: str) -> bool:
    return word[:1].isupper() and word.lower() in DAYS


def _letter_after_name(words: list[str], index: int) -> bool:
    """A capital letter after a name word ends the name: "Plan A", "Terminal B"."""
    word = words[index]
    return len(word) == 1 and word.isupper() and index > 0 and _name_word(words, index - 1)


def _capitalised(word: str) -> bool:
    low = word.lower()
    return (
        word[:1].isupper()
        and not word[:1].isdigit()
        and low not in NAME_STOP
        and (low not in MONTHS)
    )


def _opens(words: list[str], index: int) -> bool:
    """Whether the word opens its sentence, and no capitalised word follows it or it is a
    verb that opens an instruction ("Tap Settings")."""
    if index != 0:
        return False
    followed = index + 1 < len(words) and words[index + 1][:1].isupper()
    return not followed or words[index].lower() in INSTRUCTIONS


INSTRUCTIONS = word_table(_TABLES, "names").words("instructions")
"""Verbs that open an instruction: a sentence's first word among them names nothing."""


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
