"""A fact a sentence gives both of two things: "Yes, both Eatza Pizza and Your Pie were founded
in Arizona." claims that Eatza Pizza was and that Your Pie was, each holding only if both do,
so a context that gives one of them another state contradicts the claim about it.

Read in three forms: "Both A and B <verb> ...", "A and B <auxiliary> both ..." and "A and B
both <verb> ...", where A and B are a few words opening with a name, a number or a
determiner. Not where the rest says what the two are to each other ("belong to the same
family", "trained together"), nor where "both" qualifies one noun ("both paper and plastic
bags are recycled").
"""

from __future__ import annotations

from .tables import table

_WORDS = table("claims")
_VERBS = _WORDS.words("verbs")
_DETERMINERS = _WORDS.words("determiners")
_NAME_JOINERS = _WORDS.words("name_joiners")
_TOGETHER = _WORDS.words("together")
_ACT_FORMS = frozenset(f for forms in _WORDS.groups("irregular_acts").values() for f in forms)
SUBJECT_WORDS = 5
"""The most words of one of the two subjects."""


def each_of_two(words: list[str]) -> tuple[list[str], list[str]] | None:
    """The words of the claim about each of two subjects that ``words`` (a sentence, a leading
    "Yes," left out) give one fact together, or ``None`` (see the module)."""
    if len(words) > 3 and words[0].lower() == "both":
        return _each_of(words[1:], 0)
    at = _both_at(words)
    if not at:
        return None
    # "A and B were both founded ...": the auxiliary is the verb; "A and B both leave ...".
    verb = at - 1 if words[at - 1].lower() in _VERBS else at
    return _each_of([*words[:at], *words[at + 1 :]], verb)


def _both_at(words: list[str]) -> int:
    """Where "both" follows a subject of a few words (0 where none does)."""
    return next((i for i, w in enumerate(words) if i > 2 and w.lower() == "both"), 0)


def _each_of(words: list[str], verb: int) -> tuple[list[str], list[str]] | None:
    """The two claims of "A and B <verb ...>" (``verb`` the index of the verb where it is
    known, else 0 to find it)."""
    joined = _and_at(words)
    verb = verb or _verb_after(words, joined + 1) or _parallel(words, joined)
    first, second, rest = words[:joined], words[joined + 1 : verb], words[verb:]
    if not (_subject(first) and _subject(second) and _of_each(rest)):
        return None
    return [*first, *rest], [*second, *rest]


def _and_at(words: list[str]) -> int:
    return next((i for i, w in enumerate(words) if w.lower() == "and"), 0)


def _of_each(rest: list[str]) -> bool:
    """Whether the words after the subjects state a fact of each, not one of the two
    together ("belong to the same family")."""
    return bool(rest) and not any(w.lower().strip(".,;:!") in _TOGETHER for w in rest)


def _verb_after(words: list[str], start: int) -> int:
    """The index of the verb after the subject starting at ``start`` (0 where none comes
    within a few words): an auxiliary, a past tense, an act's form, or the first word in
    lower case after a name ("Juniper and Indigofera belong ..."; not after "the Lisbon":
    "the Lisbon office opened")."""
    determined = start < len(words) and words[start].lower() in _DETERMINERS
    for at in range(start + 1, min(len(words), start + SUBJECT_WORDS + 1)):
        if _verb(words[at]) or (not determined and _after_name(words[start:at], words[at])):
            return at
    return 0


def _verb(word: str) -> bool:
    low = word.lower()
    return low in _VERBS or low in _ACT_FORMS or (len(low) > 4 and low.endswith("ed"))


def _after_name(before: list[str], word: str) -> bool:
    """Whether ``word``, in lower case, follows a name (``before``: capitalised words or
    numbers, small words between)."""
    if not word[:1].islower() or word.lower() in _NAME_JOINERS:
        return False
    return all(map(_in_name, before)) and any(w[:1].isupper() for w in before)


def _in_name(word: str) -> bool:
    return _opens_name(word) or word.lower() in _NAME_JOINERS


def _opens_name(word: str) -> bool:
    return word[:1].isupper() or word[:1].isdigit()


def _parallel(words: list[str], joined: int) -> int:
    """Where the second of two subjects that a determiner opens ends, read as long as the
    first ("Both the Basic plan and the Team plan include ..."): 0 for another subject."""
    at = 2 * joined + 1
    both = [words[0], words[joined + 1]] if joined and at < len(words) else []
    return at if both and all(w.lower() in _DETERMINERS for w in both) else 0


def _subject(words: list[str]) -> bool:
    """Whether the words can be one of two subjects: a few words without a comma, opening
    with a name, a number or a determiner."""
    if not 0 < len(words) <= SUBJECT_WORDS or any(map(_parts, words)):
        return False
    return _opens_name(words[0]) or words[0].lower() in _DETERMINERS


def _parts(word: str) -> bool:
    return "," in word or ";" in word
