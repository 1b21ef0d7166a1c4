"""Claims of an answer, by rule: sentences, then independent clauses.

A claim is a piece of the answer that can be checked on its own against the contexts. The
answer is split into sentences (:func:`~rag_eval_pytest.text.sentences.split_sentences`),
questions, greetings and list headers ("Here are the key points:") are dropped, and a long
sentence is split further where a new clause with its own verb starts: after ";", and after
", but", ", and", ", while", ", whereas" when both sides are clauses. Enumerations ("apples,
pears, and plums") stay whole.

Coreference is out of scope: "It opened in 1998." stays a claim about "it"; the judge checks
it against the contexts as written.
"""

from __future__ import annotations

import re

from ...text.lexicon import any_of
from ...text.sentences import split_sentences
from ...text.words import tokens
from .tables import table
from .two_subjects import each_of_two

_PLEASANTRY = re.compile(
    r"^\W*(hi|hello|hey|thanks?( you)?( so much)?|you're welcome|ok(ay)?|sure|great|"
    r"of course|certainly|bye|goodbye|i hope (this|that) helps|hope (this|that) helps)\W*$",
    re.IGNORECASE,
)
# A closing offer of more help states nothing about the question: "Let me know if you have
# any other questions!", "Feel free to reach out if you need anything else."
_SIGN_OFF = re.compile(
    r"^\W*(let (me|us) know|feel free|(please )?(do not|don't) hesitate|please reach out|"
    r"if you (have|need) (any )?(other|more|further|additional)? ?(questions|help))\b",
    re.IGNORECASE,
)
# A line that lists where the answer came from: "Sources: policy.md", "References: [1] ...".
_SOURCES = re.compile(r"^\W*(sources?|references?|citations?)\s*:", re.IGNORECASE)
# What an answer's formatting adds to its words: citation markers ("[1]", "[1, 2]",
# "【3†source】"), a link's target ("[refund policy](https://...)" reads "refund policy"),
# bold and code marks, headings.
_MARKUP = (
    (re.compile(r"\s*\[\^?\d+(?:\s*[,\u2013-]\s*\d+)*\]|\s*\u3010[^\u3011]*\u3011"), ""),
    (re.compile(r"\[([^\]\n]+)\]\([^)\s]+\)"), r"\1"),
    (re.compile(r"\*\*|__|`"), ""),
    (re.compile(r"^#{1,6}\s.*$", re.MULTILINE), ""),  # a heading is no claim
)


def without_markup(text: str) -> str:
    """``text`` without the formatting an answer's words carry (see :data:`_MARKUP`)."""
    if not any(c in text for c in "[*_`#\u3010"):
        return text
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    return text


_HEADER = re.compile(r"^[^.!?]{0,160}:\s*$")
_NONCOMMITTAL = re.compile(
    r"\b(i (do not|don't|cannot|can't|am not able to) (know|say|tell|help|answer|find|provide)|"
    r"no (information|idea)|not (sure|able to (answer|find|say))|"
    r"unable to (answer|find|determine|provide)|(cannot|can't) (be )?(answered|determined)|"
    r"there is no information|the (context|contexts|documents?) (does|do) not (say|mention|"
    r"contain|provide))",
    re.IGNORECASE,
)
_WORDS = table("claims")
# Words that make a clause: auxiliaries and common finite verbs. A comma-joined piece with
# none of them is a list item or an apposition, not a claim of its own.
_VERBS = _WORDS.words("verbs")
_SUBJECTS = _WORDS.words("subjects")
_SEMICOLON = re.compile(r"\s*;\s+")
_CONJUNCTIONS = _WORDS.phrases("conjunctions")
_CLAUSE_BREAK = re.compile(rf",\s+(?=(?:{any_of(_CONJUNCTIONS)})\s)")
_LEADS = tuple(f"{conjunction} " for conjunction in _CONJUNCTIONS)
MIN_CLAUSE_WORDS = 4


def noncommittal(text: str) -> bool:
    """Whether the text declines or evades ("I don't know", "the context does not say")."""
    return bool(_NONCOMMITTAL.search(text))


# A sentence that sends the reader elsewhere rather than stating a fact ("Please contact
# support.", "You can ask the front desk.").
_POINTER = re.compile(
    r"^\W*(?:(?:please\s+)?(?:you\s+(?:can|could|may|might|should)\s+(?:also\s+)?)?"
    r"(?:contact|check|see|ask|try|visit|refer|call|email|reach|consult|get in touch)\b"
    r"|feel free|i (?:suggest|recommend|would suggest))",
    re.IGNORECASE,
)


def declines(text: str) -> bool:
    """Whether the answer only declines or evades: it says it cannot answer, and the rest of
    it, if anything, points elsewhere ("I don't know. Please ask the front desk."). An answer
    that gives a fact after its hedge ("I don't know. The shop opens at 9 am.") answers."""
    return noncommittal(text) and all(_POINTER.match(c) for c in split_claims(text))


def _is_clause(words: list[str]) -> bool:
    """Whether the words make a clause: enough of them, with a verb."""
    lowered = [w.lower() for w in words]
    return len(words) >= MIN_CLAUSE_WORDS and _has_verb(lowered)


def _has_verb(lowered: list[str]) -> bool:
    """An auxiliary or a common verb, a subject first, a past tense, or a verb's third
    person among the first words."""
    return (
        any(w in _VERBS for w in lowered)
        or lowered[0] in _SUBJECTS
        or _past_tense(lowered)
        or _third_person(lowered)
    )


def _past_tense(lowered: list[str]) -> bool:
    return any(w.endswith("ed") and len(w) > 4 for w in lowered[1:])


def _third_person(lowered: list[str]) -> bool:
    return any(w.endswith("s") and len(w) > 3 and i > 0 for i, w in enumerate(lowered[1:4]))


def split_clauses(sentence: str) -> list[str]:
    """Independent clauses of one sentence; the sentence itself when it has one; a claim about
    each of two things that it gives one fact together."""
    shared = shared_by_two(sentence)
    if shared is not None:
        return [c for part in shared for c in split_clauses(part)]
    return _independent_clauses(sentence)


def _independent_clauses(sentence: str) -> list[str]:
    by_semicolon = _semicolon_clauses(sentence)
    if by_semicolon is not None:
        return by_semicolon
    pieces = _CLAUSE_BREAK.split(sentence)
    if len(pieces) == 1:
        return [sentence]
    return [_finish(c) for c in _subject_first(_joined_pieces(pieces))]


def _semicolon_clauses(sentence: str) -> list[str] | None:
    """The clauses of each part between semicolons, when every part is long enough to be
    one; ``None`` otherwise."""
    parts = [p for p in _semicolon_parts(sentence) if p.strip()]
    if not _long_enough(parts):
        return None
    return [c for part in parts for c in split_clauses(_finish(part))]


def _semicolon_parts(sentence: str) -> list[str]:
    """The parts of the sentence between its semicolons outside brackets: "Leonid Levin ( ;
    Russian: ... ; Ukrainian: ... ; born November 2, 1948) is a computer scientist." is one
    part, its semicolons an aside's."""
    parts, start = [], 0
    for m in _SEMICOLON.finditer(sentence):
        if not _in_brackets(sentence[: m.start()]):
            parts.append(sentence[start : m.start()])
            start = m.end()
    return [*parts, sentence[start:]]


def _in_brackets(before: str) -> bool:
    """Whether the text after ``before`` is inside a bracket ``before`` opens."""
    return before.count("(") > before.count(")")


def _long_enough(parts: list[str]) -> bool:
    return len(parts) > 1 and all(len(tokens(p)) >= MIN_CLAUSE_WORDS - 1 for p in parts)


def _joined_pieces(pieces: list[str]) -> list[str]:
    """The pieces between clause breaks, each that is no clause of its own kept with the
    one before."""
    clauses: list[str] = []
    for piece in pieces:
        piece = piece.strip()
        if clauses and not _own_clause(piece):
            clauses[-1] = f"{clauses[-1]}, {piece}"
        else:
            clauses.append(piece)
    return clauses


def _own_clause(piece: str) -> bool:
    """Whether the piece, its conjunction aside, is a clause with a subject of its own."""
    words = tokens(piece)
    lead = words[0].lower() if words else ""
    body = words[1:] if lead in _CONJUNCTIONS else words
    return _is_clause(body) and not _shares_subject(body)


def _shares_subject(body: list[str]) -> bool:
    """ "..., and is used to control the light" shares the subject before it: one claim."""
    return bool(body) and (body[0].lower() in _VERBS or body[0].lower().endswith(("ed", "ing")))


def _subject_first(clauses: list[str]) -> list[str]:
    """The clauses, the first kept with the second when it is no clause of its own."""
    if len(clauses) > 1 and not _is_clause(tokens(clauses[0])):
        return [f"{clauses[0]}, {clauses[1]}", *clauses[2:]]
    return clauses


def _finish(clause: str) -> str:
    """The clause as a sentence: without its leading conjunction, capitalised, with a stop."""
    clause = _without_lead(clause.strip().rstrip(",;"))
    if clause and clause[0].islower():
        clause = clause[0].upper() + clause[1:]
    if clause and clause[-1] not in ".!?\"'”)":
        clause += "."
    return clause


def shared_by_two(sentence: str) -> list[str] | None:
    """The claims about each of two things that a sentence gives one fact together ("Yes,
    both Eatza Pizza and Your Pie were founded in Arizona." claims "Eatza Pizza were founded
    in Arizona." and "Your Pie were founded in Arizona.": :mod:`.two_subjects`); ``None`` for
    any other sentence."""
    parts = each_of_two(without_particle(sentence).split())
    return None if parts is None else [_finish(" ".join(part)) for part in parts]


def _without_lead(clause: str) -> str:
    for lead in _LEADS:
        if clause.lower().startswith(lead):
            return clause[len(lead) :]
    return clause


def split_claims(text: str, *, clauses: bool = True) -> list[str]:
    """The claims of ``text``, in order. An answer that only declines ("I don't know") has
    none; a hedge is dropped and what follows it kept ("I don't know for certain, but it
    opens at 10 am." claims that it opens at 10 am); a short answer ("Max Gail", "167,446")
    is one claim. Questions, greetings, a closing offer of help ("Let me know if you have
    any other questions!"), a list of sources and headers are no claims, and citation
    markers, links' targets and bold marks are no words of one."""
    claims: list[str] = []
    for sentence in split_sentences(without_markup(text)):
        if _states(sentence):
            claims.extend(_sentence_claims(sentence, clauses))
    return claims


def _states(sentence: str) -> bool:
    """Whether the sentence may state something: no question, greeting, header, closing
    offer of help or list of sources."""
    return (
        not sentence.rstrip().endswith("?")
        and not _PLEASANTRY.match(sentence)
        and not _HEADER.match(sentence)
        and not _SIGN_OFF.match(sentence)
        and not _SOURCES.match(sentence)
    )


def _sentence_claims(sentence: str, clauses: bool) -> list[str]:
    """The claims of one sentence: its clauses (or itself), a hedge's own clause left out."""
    if noncommittal(sentence):
        return _after_hedge(sentence, clauses)
    if clauses:
        return split_clauses(sentence)
    return [sentence]


def _after_hedge(sentence: str, clauses: bool) -> list[str]:
    """The hedge's own clause goes, whatever follows it stays."""
    rest = [_finish(p) for p in _CLAUSE_BREAK.split(sentence) if not noncommittal(p)]
    return [c for r in rest for c in (split_clauses(r) if clauses else [r])]


# "No, guest parking costs $10 per night.": the answer's "No" to its question, then a
# statement of its own, which is the claim (the "no" negates nothing in it).
_YES, _NO = _WORDS.phrases("yes"), _WORDS.phrases("no")
_PARTICLE = re.compile(
    rf"^\W*(?:{any_of((*_YES, *_NO))})\s*[,;:\u2013\u2014-]\s+(?=\w)", re.IGNORECASE
)


def without_particle(sentence: str) -> str:
    """``sentence`` without a leading "Yes," or "No," that a statement follows."""
    match = _PARTICLE.match(sentence)
    if match is None:
        return sentence
    rest = sentence[match.end() :]
    return rest[:1].upper() + rest[1:]


_YES_NO = re.compile(
    rf"^\W*({any_of((*_YES, *_WORDS.phrases('agrees'), *_NO))})\W*$", re.IGNORECASE
)
# The verbs a yes/no question starts with ("Is ...?", "Can ...?").
_AUXILIARIES = frozenset(w for w in _VERBS if "'" not in w) - _WORDS.words("not_asking")
_DETERMINERS = _WORDS.words("determiners")


# The small words inside a name or a list of names ("Manhattan West and Singer Building").
_NAME_JOINERS = _WORDS.words("name_joiners")
_PAIR_OPENERS = _WORDS.words("pair_openers")


def _subject_words(rest: list[str]) -> int:
    """How many words of a yes/no question after its verb are the subject: names, a list
    of names and "both" before them ("both Simon Wincer and Patrice Leconte"), else a
    determiner and its noun ("the store"), else one word ("employees")."""
    start = 1 if rest[0].lower() in _PAIR_OPENERS else 0
    end = start
    while end < len(rest) - 1 and _in_names(rest, end, start):  # a word is left to ask
        end += 1
    return end if end > start else _determined_noun(rest)


def _determined_noun(rest: list[str]) -> int:
    """A determiner and its noun ("the store"), else one word ("employees")."""
    return 2 if rest[0].lower() in _DETERMINERS and len(rest) > 2 else 1


def _in_names(rest: list[str], at: int, start: int) -> bool:
    """Whether the word at ``at`` belongs to the names starting at ``start``: a name or a
    number, or a small word joining two names."""
    word = rest[at]
    named = word[:1].isupper() or word[:1].isdigit()
    joins = word.lower() in _NAME_JOINERS and at > start and rest[at + 1][:1].isupper()
    return named or joins


def bare_no(answer: str) -> bool:
    """Whether the whole answer is a bare "No." (or "Nope")."""
    match = _YES_NO.match(answer.strip())
    return match is not None and match.group(1).lower() in _NO


def yes_no_statement(claim: str, question: str) -> str | None:
    """What a bare "Yes." or "No." states, read from the yes/no question it answers ("Is the
    store open on Sundays?" + "No." -> "The store is not open on Sundays."); None when the
    claim is not a bare yes or no or the question is not a yes/no question."""
    match = _YES_NO.match(claim)
    if match is None:
        return None
    words = question.strip().rstrip("?").split()
    if len(words) < 3 or words[0].lower() not in _AUXILIARIES:
        return None
    auxiliary, rest = words[0].lower(), words[1:]
    subject = _subject_words(rest)
    negative = match.group(1).lower() in _NO
    verb = f"{auxiliary} not" if negative else auxiliary
    statement = " ".join([*rest[:subject], verb, *rest[subject:]])
    return _finish(statement)


_COMPARING = re.compile(rf"\b({any_of(_WORDS.phrases('comparing'))})\b", re.IGNORECASE)


def compares_two(statement: str, question: str) -> bool:
    """Whether the statement answers a yes/no question that compares two things ("Were A and
    B founded in the same state?") with the comparison itself ("A and B were not founded in
    the same state", "Yes, both were founded in Arizona"): true or false only by putting two
    separate facts together, which no single passage states."""
    words = question.split()
    return (
        bool(words)
        and words[0].lower() in _AUXILIARIES
        and bool(_COMPARING.search(question))
        and bool(_COMPARING.search(statement))
    )
