"""Word tables: read from their TOML files once, each entry checked as it is read, a broken
table one error naming its file and entry, and every table shipped in the wheel."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

import pytest

from rag_eval_pytest.text.lexicon import WordTable, WordTableError, read_table, word_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "src" / "rag_eval_pytest"


def _table(tmp_path: Path, text: str) -> WordTable:
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    return read_table(path, "word_tables/broken.toml")


def test_each_kind_of_entry_is_read_as_written(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        'words = ["a", "an"]\nphrases = ["close to", "about"]\npairs = [["open", "closed"]]\n'
        '[map]\ngrey = "gray"\n[numbers]\ndozen = 12\nhalf = 0.5\n[groups]\nfrance = ["french"]\n',
    )
    assert table.words("words") == frozenset({"a", "an"})
    assert table.phrases("phrases") == ("close to", "about")
    assert table.pairs("pairs") == (("open", "closed"),)
    assert table.mapping("map") == {"grey": "gray"}
    assert table.numbers("numbers") == {"dozen": 12, "half": 0.5}
    assert table.groups("groups") == {"france": ("french",)}


def test_an_entry_of_a_table_is_named_by_a_dotted_key(tmp_path: Path) -> None:
    table = _table(tmp_path, "[length.metric]\nmeter = 1\nkilometer = 1000\n")
    assert table.numbers("length.metric") == {"meter": 1, "kilometer": 1000}
    with pytest.raises(WordTableError, match=r"entry length\.imperial: no such entry"):
        table.numbers("length.imperial")


@pytest.mark.parametrize(
    ("text", "read", "message"),
    [
        ("words = [\n", "words", "word_tables/broken.toml: cannot be read: "),
        ("other = []\n", "words", "word_tables/broken.toml: entry words: no such entry"),
        ('words = "a"\n', "words", "entry words: a list was expected, not str"),
        ('words = ["a", 3]\n', "words", "entry words[1]: 3 is not a word"),
        ('words = ["a", "Monday"]\n', "words", "entry words[1]: 'Monday' is not a lowercase word"),
        ('words = ["a", "close to"]\n', "words", "entry words[1]: 'close to' is not a lowercase"),
        ('words = ["a", "b", "a"]\n', "words", "entry words[2]: 'a' is listed twice"),
        ('words = ["a", " b"]\n', "words", "entry words[1]: ' b' is not a word"),
        ('[words]\ndozen = "12"\n', "numbers", "entry words.dozen: '12' is not a number"),
        ("[words]\nyes = true\n", "numbers", "entry words.yes: True is not a number"),
        ('[words]\ngrey = ["gray"]\n', "mapping", "entry words.grey: ['gray'] is not a word"),
        ('words = [["open"]]\n', "pairs", "entry words[0]: ['open'] is not a pair of words"),
        ('[words]\nfrance = "french"\n', "groups", "entry words.france: 'french' is not a list"),
        ('words = ["a"]\n', "mapping", "entry words: a table was expected, not list"),
    ],
)
def test_a_broken_table_is_one_error_naming_its_file_and_entry(
    tmp_path: Path, text: str, read: str, message: str
) -> None:
    with pytest.raises(WordTableError) as raised:
        getattr(_table(tmp_path, text), read)("words")
    assert str(raised.value).startswith("word_tables/broken.toml: ")
    assert message in str(raised.value)


def test_a_table_is_read_once_per_process() -> None:
    assert word_table("rag_eval_pytest.text", "stop_words") is word_table(
        "rag_eval_pytest.text", "stop_words"
    )
    assert "the" in word_table("rag_eval_pytest.text", "stop_words").words("words")


def test_every_word_table_is_package_data_of_the_wheel() -> None:
    """The wheel holds the files that ``[tool.setuptools.package-data]`` names: each table
    must match one of its patterns, or the installed judge could not read it."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["rag_eval_pytest"]
    tables = sorted(PACKAGE.rglob("word_tables/*.toml"))
    assert len(tables) >= 10
    for path in tables:
        shipped = path.relative_to(PACKAGE).as_posix()
        assert any(fnmatch.fnmatch(shipped, pattern) for pattern in patterns), shipped


def test_every_word_table_is_read_by_the_code_beside_it() -> None:
    """A table no module reads is a word list that changes nothing: each file's name is read
    by a module of its package (the local judge's through ``tables.table``)."""
    for path in sorted(PACKAGE.rglob("word_tables/*.toml")):
        package = path.parent.parent
        sources = "\n".join(p.read_text(encoding="utf-8") for p in sorted(package.rglob("*.py")))
        assert f'"{path.stem}"' in sources, path.relative_to(PACKAGE)
