"""Word tables: the words the rules read (stopwords, number words, units, opposites, ...),
kept as data files beside the code that reads them, each read once and checked as it is read.

A package's tables are the TOML files of its ``word_tables`` folder (this package's, and the
local judge's in ``judges/local/word_tables``). A table holds named entries, each of one
kind, which the code that reads it names:

* ``words``: a set of lowercase words (``stop_words.toml``'s ``words``);
* ``phrases``: an ordered list of lowercase words or phrases (the alternatives of a
  pattern, tried in order);
* ``mapping``: words to words (``spellings.toml``);
* ``numbers``: words to numbers (``numbers.toml``'s ``ones``);
* ``pairs``: two words each (``opposites.toml``);
* ``groups``: a word to a list of words (``demonyms.toml``).

An entry of a table is named by a dotted key (``units.toml``'s ``length.metric``).

A file that is no TOML, a missing entry or an entry of another kind is one
:class:`WordTableError` naming the file and the entry: a table is never half read.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from collections.abc import Iterable
    from importlib.resources.abc import Traversable

FOLDER = "word_tables"


def any_of(phrases: Iterable[str]) -> str:
    """A pattern that matches any of ``phrases`` as written, tried in their order."""
    return "|".join(re.escape(phrase) for phrase in phrases)


class WordTableError(ValueError):
    """A word table that cannot be read: the message names the file and the entry."""


@cache
def word_table(package: str, name: str) -> WordTable:
    """The table ``name`` of ``package``'s :data:`FOLDER`, read once per process."""
    shown = f"{package.replace('.', '/')}/{FOLDER}/{name}.toml"
    return read_table(files(package) / FOLDER / f"{name}.toml", shown)


def read_table(path: Traversable, shown: str) -> WordTable:
    """The table in the TOML file ``path`` (named ``shown`` in errors)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise WordTableError(f"{shown}: cannot be read: {exc}") from exc
    return WordTable(shown, entries)


@dataclass(frozen=True)
class WordTable:
    """One table file: its entries, each read as the kind its reader names."""

    shown: str
    entries: dict[str, object]

    def words(self, key: str) -> frozenset[str]:
        """The entry ``key``: a list of lowercase words without spaces, as a set."""
        return frozenset(self._listed(key, phrase=False))

    def phrases(self, key: str) -> tuple[str, ...]:
        """The entry ``key``: a list of lowercase words or phrases, in order."""
        return tuple(self._listed(key, phrase=True))

    def mapping(self, key: str) -> dict[str, str]:
        """The entry ``key``: a table of words to words."""
        table = self._table(key)
        for word, value in table.items():
            self._text(value, f"{key}.{word}")
        return {word: str(value) for word, value in table.items()}

    def numbers(self, key: str) -> dict[str, float]:
        """The entry ``key``: a table of words to numbers (an integer stays one)."""
        found: dict[str, float] = {}
        for word, value in self._table(key).items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                self._fail(f"{key}.{word}", f"{value!r} is not a number")
            found[word] = value
        return found

    def pairs(self, key: str) -> tuple[tuple[str, str], ...]:
        """The entry ``key``: a list of pairs of words."""
        found = []
        for index, pair in enumerate(self._list(key)):
            if not isinstance(pair, list) or len(pair) != 2:
                self._fail(f"{key}[{index}]", f"{pair!r} is not a pair of words")
            first, second = (self._text(word, f"{key}[{index}]") for word in pair)
            found.append((first, second))
        return tuple(found)

    def groups(self, key: str) -> dict[str, tuple[str, ...]]:
        """The entry ``key``: a table of words to lists of words."""
        table = self._table(key)
        found = {}
        for word, listed in table.items():
            if not isinstance(listed, list):
                self._fail(f"{key}.{word}", f"{listed!r} is not a list of words")
            found[word] = tuple(self._text(item, f"{key}.{word}") for item in listed)
        return found

    def _entry(self, key: str) -> object:
        """The entry ``key``; a dotted key is an entry of a table ("length.metric")."""
        found: object = self.entries
        for part in key.split("."):
            if not isinstance(found, dict) or part not in found:
                self._fail(key, "no such entry")
            found = found[part]
        return found

    def _list(self, key: str) -> list[object]:
        value = self._entry(key)
        if not isinstance(value, list):
            self._fail(key, f"a list was expected, not {type(value).__name__}")
        return value

    def _table(self, key: str) -> dict[str, object]:
        value = self._entry(key)
        if not isinstance(value, dict):
            self._fail(key, f"a table was expected, not {type(value).__name__}")
        return value

    def _listed(self, key: str, phrase: bool) -> list[str]:
        """The entry's words, each checked: lowercase, no blank, no space unless ``phrase``,
        none twice."""
        seen: list[str] = []
        for index, item in enumerate(self._list(key)):
            where = f"{key}[{index}]"
            word = self._text(item, where)
            if word != word.lower() or (not phrase and " " in word):
                self._fail(where, f"{word!r} is not a lowercase word")
            if word in seen:
                self._fail(where, f"{word!r} is listed twice")
            seen.append(word)
        return seen

    def _text(self, value: object, where: str) -> str:
        if not isinstance(value, str) or not value.strip() or value != value.strip():
            self._fail(where, f"{value!r} is not a word")
        return value

    def _fail(self, where: str, problem: str) -> NoReturn:
        raise WordTableError(f"{self.shown}: entry {where}: {problem}")
