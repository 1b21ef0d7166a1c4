"""Each sentence of the benchmark sets' contexts, changed so that it says something else, as
the answer against its own context: how many the local judge's faithfulness passes.

A changed sentence is a claim its context does not support, so a pass is a wrong verdict with
no label to argue about, with one caveat: some changes leave the sense as it was ("on Thursdays
and Tuesdays", a "not" in a sentence that already denies twice). The script prints every
passed probe beside its sentence, so a reader tells them apart. The changes, each tried where
it applies:

* ``negated``: a "not" after the sentence's first auxiliary ("is", "can", "should", ...), in a
  sentence that denies nothing yet;
* ``number``: the first plain number (not a price, a time or a decimal) made twice itself
  plus one, where the sentence holds no such number already;
* ``numbers``: the first two different numbers exchanged, where that changes what the
  sentence says: not the two ends of one range ("between 8 and 20", "2-8 °C", "24/7", which
  read alike either way round) nor a date's day and year ("8 December 1984", "March 1, 2024");
* ``year``: the first year moved by three;
* ``names``: the first and the last capitalised word inside the sentence exchanged.

And each sentence changed so that it says the same, where a fail is the wrong verdict (a good
answer in other words failed): a denial written short or out (``contracted``: "do not" as
"don't"; ``expanded``), a count from two to ten in words (``worded``: "3 days" as "three
days"), a number written without its thousands comma (``ungrouped``), a date written month
first (``date_written``: "8 December 1984" as "December 8, 1984").

    python benchmarks/changed_sentences.py --data ../shared/benchmarks
    python benchmarks/changed_sentences.py --sets halueval_qa,faithbench --kinds year
    python benchmarks/changed_sentences.py --kinds contracted,expanded,worded,ungrouped,date_written
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import own_words as ow

from rag_eval_pytest.judges.local import LocalJudge

FEWEST_WORDS = 5
"""The fewest words of a sentence that is changed (shorter ones are mostly headings)."""
MOST_CHARACTERS = 400
"""The longest sentence that is changed (longer ones are mostly tables read as one)."""

_AUXILIARY = re.compile(
    r"\b(is|are|was|were|can|will|has|have|does|do|did|should|must|may|could|would)\b"
)
_DENIES = re.compile(r"\bnot\b|n't|\bnever\b|\bno\b", re.IGNORECASE)
_PLAIN_NUMBER = re.compile(r"(?<![\w.,:$£€])(\d{1,3})(?![\d,.:])")
_ANY_NUMBER = re.compile(r"(?<![\w.,:])(\d[\d,.]*\d|\d)(?![\d:])")
_RANGE_JOINER = re.compile(
    r"^[^\w]*[a-z%]{0,3}[^\w]*(to|and|or|till|until|through|-|–|—|/)?[^\w]*$", re.IGNORECASE
)
_MONTH = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\W*$", re.IGNORECASE
)
_YEAR = re.compile(r"(?<![\d,.])(1[89]\d\d|20[0-2]\d)(?![\d,])")
_NAME = re.compile(r"(?<=[a-z,] )([A-Z][a-z]{3,})\b")
_NO_NAMES = {"The", "This"}


def negated(sentence: str) -> str | None:
    """A "not" after the first auxiliary, where the sentence denies nothing yet."""
    found = _AUXILIARY.search(sentence)
    if found is None or _DENIES.search(sentence):
        return None
    return f"{sentence[: found.end()]} not{sentence[found.end() :]}"


def number(sentence: str) -> str | None:
    """The first plain number made twice itself plus one, where the sentence holds no such
    number already ("1 to 3 business days" made "3 to 3" says nothing else)."""
    found = _PLAIN_NUMBER.search(sentence)
    new = str(int(found.group(1)) * 2 + 1) if found else ""
    if found is None or new in _ANY_NUMBER.findall(sentence):
        return None
    return f"{sentence[: found.start()]}{new}{sentence[found.end() :]}"


def numbers(sentence: str) -> str | None:
    """The first two numbers exchanged, where they differ and are neither one range's ends
    nor one date's day and year."""
    found = list(_ANY_NUMBER.finditer(sentence))
    if len(found) < 2 or found[0].group(0) == found[1].group(0):
        return None
    first, second = found[0], found[1]
    between = sentence[first.end() : second.start()]
    if _RANGE_JOINER.match(between) or _MONTH.search(between):
        return None
    if _MONTH.search(sentence[: first.start()]):
        return None
    return _exchanged(sentence, first, second)


def year(sentence: str) -> str | None:
    """The first year moved by three."""
    return _rewritten(sentence, _YEAR, lambda m: str(int(m[1]) + 3))


def names(sentence: str) -> str | None:
    """The first and the last capitalised word inside the sentence exchanged."""
    found = [m for m in _NAME.finditer(sentence) if m.group(1) not in _NO_NAMES]
    if len(found) < 2 or found[0].group(1) == found[-1].group(1):
        return None
    return _exchanged(sentence, found[0], found[-1])


def _exchanged(sentence: str, first: re.Match[str], second: re.Match[str]) -> str:
    """The sentence with what ``first`` and ``second`` match in each other's places."""
    head, middle = sentence[: first.start()], sentence[first.end() : second.start()]
    return f"{head}{second.group(0)}{middle}{first.group(0)}{sentence[second.end() :]}"


_CONTRACTIONS = {
    "do not": "don't",
    "does not": "doesn't",
    "did not": "didn't",
    "is not": "isn't",
    "are not": "aren't",
    "was not": "wasn't",
    "were not": "weren't",
    "cannot": "can't",
    "will not": "won't",
    "has not": "hasn't",
    "have not": "haven't",
    "should not": "shouldn't",
}
_NUMBER_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_COUNT = re.compile(r"(?<![\w.,:$£€/+-])([2-9]|10)(?= [a-z]{3,})")
_GROUPED = re.compile(r"(?<![\w.,])(\d{1,3}),(\d{3})(?![\d,.]\d)")
_MONTHS = "January February March April May June July August September October November December"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}) ({'|'.join(_MONTHS.split())}) (\d{{4}})\b")


def _first_of(sentence: str, table: dict[str, str]) -> str | None:
    """The sentence with the first of ``table``'s keys it holds written as its value."""
    found = [(m, key) for key in table if (m := re.search(rf"\b{key}\b", sentence))]
    if not found:
        return None
    m, key = min(found, key=lambda pair: pair[0].start())
    return f"{sentence[: m.start()]}{table[key]}{sentence[m.end() :]}"


def contracted(sentence: str) -> str | None:
    """The first denial written short ("do not" as "don't")."""
    return _first_of(sentence, _CONTRACTIONS)


def expanded(sentence: str) -> str | None:
    """The first short denial written out ("don't" as "do not")."""
    return _first_of(sentence, {short: full for full, short in _CONTRACTIONS.items()})


def worded(sentence: str) -> str | None:
    """The first count from two to ten in digits before a word, in words ("3 days" as "three
    days")."""
    return _rewritten(sentence, _COUNT, lambda m: _NUMBER_WORDS[int(m.group(1)) - 2])


def ungrouped(sentence: str) -> str | None:
    """The first number of four to six digits written without its comma ("1,500" as
    "1500")."""
    return _rewritten(sentence, _GROUPED, lambda m: m.group(1) + m.group(2))


def date_written(sentence: str) -> str | None:
    """The first date written day, month, year as month, day, year ("8 December 1984" as
    "December 8, 1984")."""
    return _rewritten(sentence, _DAY_MONTH_YEAR, lambda m: f"{m[2]} {m[1]}, {m[3]}")


def _rewritten(
    sentence: str, pattern: re.Pattern[str], write: Callable[[re.Match[str]], str]
) -> str | None:
    """The sentence with the first match of ``pattern`` written as ``write`` writes it."""
    found = pattern.search(sentence)
    if found is None:
        return None
    return f"{sentence[: found.start()]}{write(found)}{sentence[found.end() :]}"


KEPT: dict[str, Callable[[str], str | None]] = {
    "contracted": contracted,
    "expanded": expanded,
    "worded": worded,
    "ungrouped": ungrouped,
    "date_written": date_written,
}
"""Changes that leave what a sentence says as it was: a fail is a wrong verdict."""


_OTHER_UNIT = {
    "days": "weeks",
    "weeks": "months",
    "months": "years",
    "hours": "minutes",
    "minutes": "hours",
    "km": "miles",
    "miles": "km",
    "kg": "lb",
    "GB": "MB",
    "MB": "GB",
}
_UNIT = re.compile(rf"(?<=\d )({'|'.join(_OTHER_UNIT)})\b")
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_WEEKDAY = re.compile(rf"\b({'|'.join(_DAYS)})")
_MONTH_NAME = re.compile(rf"\b({'|'.join(_MONTHS.split())})\b")
_OPPOSITES = {
    "more": "less",
    "less": "more",
    "before": "after",
    "after": "before",
    "higher": "lower",
    "lower": "higher",
    "minimum": "maximum",
    "maximum": "minimum",
    "earliest": "latest",
    "latest": "earliest",
    "open": "closed",
    "closed": "open",
    "required": "optional",
    "optional": "required",
    "allowed": "prohibited",
}


def unit(sentence: str) -> str | None:
    """The first unit after a number made another of its kind ("30 days" as "30 weeks")."""
    return _rewritten(sentence, _UNIT, lambda m: _OTHER_UNIT[m[1]])


def weekday(sentence: str) -> str | None:
    """The first day of the week made the next ("Monday" as "Tuesday")."""
    return _rewritten(sentence, _WEEKDAY, lambda m: _DAYS[(_DAYS.index(m[1]) + 1) % 7])


def month(sentence: str) -> str | None:
    """The first month made the one two after it ("March" as "May")."""
    months = _MONTHS.split()
    return _rewritten(sentence, _MONTH_NAME, lambda m: months[(months.index(m[1]) + 2) % 12])


def opposite(sentence: str) -> str | None:
    """The first word of a pair of opposites made the other ("before" as "after")."""
    return _first_of(sentence, _OPPOSITES)


CHANGES: dict[str, Callable[[str], str | None]] = {
    "negated": negated,
    "number": number,
    "numbers": numbers,
    "year": year,
    "names": names,
    "unit": unit,
    "weekday": weekday,
    "month": month,
    "opposite": opposite,
}
"""Changes that make a sentence say something else: a pass is a wrong verdict."""


def probes(contexts: list[str], kinds: list[str]) -> list[tuple[str, str, str]]:
    """Each (kind, changed sentence, sentence) of one passage's sentences."""
    found = []
    for sentence in ow.own_sentences(contexts):
        if len(sentence.split()) < FEWEST_WORDS or len(sentence) > MOST_CHARACTERS:
            continue
        for kind in kinds:
            changed = (CHANGES | KEPT)[kind](sentence)
            if changed and changed != sentence:
                found.append((kind, changed, sentence))
    return found


async def run(files: list[Path], kinds: list[str]) -> dict[str, Counter[str]]:
    """The verdicts on every probe of the files' contexts, counted per kind."""
    judge = LocalJudge()
    counts: dict[str, Counter[str]] = {kind: Counter() for kind in kinds}
    for contexts in ow.contexts_of(files):
        for kind, changed, sentence in probes(contexts, kinds):
            said = await ow.verdict(judge, changed, contexts)
            counts[kind][said] += 1
            wrong = "fail" if kind in KEPT else "pass"
            if said == wrong:
                print(f"{said}ed [{kind}]: {changed[:300]}\n    was: {sentence[:300]}")
    return counts


def main() -> int:
    parser = ow.arguments(__doc__, "hard_cases,support_bot_answers,support_bot_answers_more")
    known = [*CHANGES, *KEPT]
    parser.add_argument("--kinds", default=",".join(known), help="comma-separated changes")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    unknown = sorted(set(kinds) - set(known))
    if unknown:
        parser.error(f"unknown kind(s) {', '.join(unknown)}; known: {', '.join(known)}")
    counts = asyncio.run(run(ow.set_files(args.data, args.sets.split(",")), kinds))
    for kind in kinds:
        said = counts[kind]
        wrong = "a fail" if kind in KEPT else "a pass"
        print(
            f"{kind}: {sum(said.values())} probes, {said['pass']} passed, "
            f"{said['unsure']} unsure, {said['fail']} failed ({wrong} is wrong)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
