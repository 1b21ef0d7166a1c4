"""Knowledge retention, the local judge's way: the conflict checks between the answer and
each fact the user gave, and the answer's questions against those facts. Deterministic: no
model, no embeddings.

* **Contradicted:** a statement of the answer (its questions aside) that shares a content
  word with the fact (a unit that measures, such as "EUR", aside: "The fee is 5 EUR" and "I
  paid 30 EUR" are about different things; a thing counted is not: "a 2-night stay" after
  "3 nights") and that the judge's checks (:mod:`.pipeline`) find in
  conflict with it: a number counting the same unit, a date, a day, a route turned round, a
  name in the fact's place ("You live in Paris" after "I live in Lyon"), a negation ("You do
  not have a business account"), also of a clause that states it rather than a condition
  (:func:`_negations`), a time only where the statement is about the fact's own thing
  (:func:`_not_read`); and a number without a unit bound to the same words as the user's
  ("Order 4471" after "My order number is 4417": both follow "order"), or a code ("AB-9999"
  after "AB-1234"); a count of times against a count of the thing ("one charge" after "I
  was charged twice"); the user's home placed elsewhere ("As a Quebec resident" after "I
  live in Ontario"); another letter after a noun the user labelled by one, in a statement
  said to the user ("your size L jacket" after "size M"); another capitalised name before the
  same noun ("the Basic plan" after "the Pro plan"); and, over the whole answer, the user
  called by another name than the one they gave ("Thanks, Maria!" after "My name is
  Anna."), or the user's e-mail address written a letter or two wrong. A word the user did
  not say in the place of theirs is news, not a contradiction.
* **Asked again:** a question of the answer, put to the user ("you", "your"), at least half
  of whose content words (generic ones such as "help" or "else" aside) are the fact's
  ("What is your order number?" after "My order number is 4417").
* **Unsure** (kept, for an LLM judge to decide; :func:`retention_of`): a fact the user gave
  in the first person with a name, where the answer names the user's thing otherwise ("your
  Honda Civic" after "My car is a Toyota Corolla", "On your Mac" after "I use Windows 11"),
  and a fact with a day of the week, where a statement said to the user gives another day
  ("See you Thursday at 3 pm." after "My appointment is on Tuesday at 3 pm."): the checks
  cannot tell another thing of the user's from the same thing called otherwise.

Limits: a fact is compared with each statement on its own, without coreference ("it", "that
one"); a contradiction in other words ("You are based in the capital" after "I live in
Lyon") or of a term the table of kinds does not hold ("a family account" after "a business
account") is not found; two numbers of one unit in related statements about different
things ("You paid 5 EUR for shipping" after "I paid 30 EUR for the jacket") are a conflict; a
question that asks for the fact in other words ("Where are you based?") is not found.
"""

from __future__ import annotations

import re

from ...text.lexicon import any_of
from ...text.names import names
from ...text.sentences import split_sentences
from ...text.shorten import shorten
from ...text.words import STOPWORDS, content_words, stem, tokens
from ..questions import FactRetention, FactRetentions, RetentionInput, RetentionVerdict
from .checks import Finding, check_negation
from .claims import split_claims
from .facts import known_name, negated_words, negation_cues
from .pipeline import CLAUSE, Reading, run_checks
from .quantities import Quantity, letter_labels, quantities, same_value
from .roles import times, weekdays
from .tables import table
from .units import measures

BOUND_WORDS = 3
"""The words before a number without a unit that say what it identifies ("order number is
4417")."""
_WORDS = table("retention")
GENERIC = frozenset(content_words(" ".join(_WORDS.phrases("generic"))))
"""Words of an offer ("Anything else I can help you with?"), which asks for no fact."""
_ADDRESSED = _WORDS.words("addressed")
_AS_THE_USER = tuple(_WORDS.mapping("as_the_user").items())


def retention(inputs: RetentionInput) -> FactRetentions:
    """One verdict per fact of ``inputs``, in order."""
    return retention_of(inputs)[0]


def retention_of(inputs: RetentionInput) -> tuple[FactRetentions, tuple[int, ...]]:
    """One verdict per fact of ``inputs``, in order, and the facts it is unsure of: a fact
    kept where the answer may name the user's thing otherwise (:func:`_doubt`)."""
    sentences = split_sentences(inputs.answer)
    asked = _questions_to_the_user(sentences)
    stated = _statements(sentences)
    verdicts = []
    unsure = []
    for index, fact in enumerate(inputs.facts):
        verdict, reason = _kept_or_not(fact, inputs.answer, stated, asked)
        doubt = _doubt(fact, stated) if verdict == "kept" else None
        if doubt is not None:
            unsure.append(index)
            reason = f"unsure (kept, for an LLM judge to decide): {doubt}"
        verdicts.append(FactRetention(index=index, verdict=verdict, reason=reason))
    return FactRetentions(facts=verdicts), tuple(unsure)


def _doubt(fact: str, stated: list[str]) -> str | None:
    """Why a kept fact is in doubt: a statement said to the user names their thing otherwise
    (a name after "your" none of the fact's, where the user gave theirs by name), gives
    another day of the week than the fact's, or offers what the user turned down
    (:func:`_unwanted`); ``None`` for none."""
    for claim in (c for c in stated if _addressed(c)):
        found = _doubted(claim, fact)
        if found is not None:
            return f"the answer says \u201c{shorten(claim, 80)}\u201d: {found}"
    return None


def _doubted(claim: str, fact: str) -> str | None:
    """Why one statement said to the user puts the fact in doubt (:func:`_doubt`)."""
    return _named_otherwise(claim, fact) or _another_day(claim, fact) or _unwanted(claim, fact)


def _unwanted(claim: str, fact: str) -> str | None:
    """What the statement offers that the user turned down, where it denies nothing itself
    ("We will send you email updates weekly." after "I don't want email updates.")."""
    if not _FIRST_PERSON.search(fact) or negation_cues(claim):
        return None
    declined = negated_words(fact) - _WISHES
    if not declined or not declined <= content_words(claim):
        return None
    return f"offers what the user turned down (\u201c{shorten(fact, 60)}\u201d)"


_WISHES = frozenset(stem(w) for w in _WORDS.words("wishes"))


def _named_otherwise(claim: str, fact: str) -> str | None:
    """A name after "your" that is none of the names the user gave of their own things."""
    given = names(fact) if _FIRST_PERSON.search(fact) else []
    other = next((n for n in _yours(claim) if given and not _one_of(n, given)), None)
    return None if other is None else f"names {other}; the user named {given[0]}"


def _yours(claim: str) -> list[str]:
    """The names the statement puts after "your" ("your Honda Civic")."""
    return [m.group(1) for m in _YOUR_NAME.finditer(claim)]


def _one_of(name: str, given: list[str]) -> bool:
    """Whether ``name`` is one of the names ``given``, part of one ("Corolla"), or shares a
    word with one ("your Windows PC" after "I use Windows 11")."""
    words = set(name.split())
    return any(known_name(name, g) or words & set(g.split()) for g in given)


def _another_day(claim: str, fact: str) -> str | None:
    """Another day of the week than the fact's, where the statement gives none of the
    fact's and shares a word or a time of day with it ("See you Thursday at 3 pm." after "My
    appointment is on Tuesday at 3 pm."; not "You can check in online from Thursday." after
    "I'm flying to Denver on Friday.")."""
    theirs, mine = _weekdays(fact), _weekdays(claim)
    if not (theirs and mine) or mine & theirs or not _shares(claim, fact):
        return None
    return f"claims {_said_days(claim)}; the user said {_said_days(fact)}"


def _weekdays(text: str) -> frozenset[int]:
    """The days of the week ``text`` names (:func:`.roles.weekdays`; 0 is Monday)."""
    return frozenset().union(*(said.days for said in weekdays(text)))


def _said_days(text: str) -> str:
    """The days of the week as ``text`` writes them ("Tuesday")."""
    return ", ".join(said.text for said in weekdays(text))


def _shares(claim: str, fact: str) -> bool:
    """Whether a statement shares a content word (days aside) or a time of day with a fact."""
    days = content_words(" ".join(said.text for said in weekdays(f"{claim} {fact}")))
    if (content_words(claim) & content_words(fact)) - days:
        return True
    return any(said.same(time) for said in times(claim) for time in times(fact))


_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|my|My|we|We|our|Our)\b")
_YOUR_NAME = re.compile(r"\b[Yy]our\s+((?:[A-Z][\w'’-]*)(?:\s+[A-Z0-9][\w'’-]*)*)")


def _questions_to_the_user(sentences: list[str]) -> list[str]:
    return [s for s in sentences if s.rstrip().endswith("?") and _addressed(s)]


def _statements(sentences: list[str]) -> list[str]:
    """The claims of the sentences that are no questions."""
    return [c for s in sentences if not s.rstrip().endswith("?") for c in split_claims(s)]


def _kept_or_not(
    fact: str, answer: str, stated: list[str], asked: list[str]
) -> tuple[RetentionVerdict, str]:
    """The verdict on one fact and why: the user called by another name, a statement in
    conflict with it, a question it answers, or none of these."""
    misnamed = _misnamed(answer, fact)
    if misnamed is not None:
        return "contradicted", misnamed
    conflict = _contradiction(fact, stated)
    if conflict is not None:
        return "contradicted", conflict
    question = next((q for q in asked if asks_for(q, fact)), None)
    if question is not None:
        return "asked again", (
            f"the answer asks \u201c{shorten(question, 80)}\u201d, which the fact answers"
        )
    return "kept", "no statement of the answer conflicts with it"


def _misnamed(answer: str, fact: str) -> str | None:
    """Why the answer calls the user, writes their address, or places their home otherwise
    than they did."""
    return (
        called_otherwise(answer, fact) or _another_address(answer, fact) or _elsewhere(answer, fact)
    )


_PLACE = r"([A-Z][\w'’-]*(?:\s+(?:of\s+)?[A-Z][\w'’-]*)*)"
_HOME_GIVEN = re.compile(rf"\b(?i:{any_of(_WORDS.phrases('home_given'))})\s+(?:the\s+)?{_PLACE}")
_HOME_SAID = re.compile(
    rf"\b(?i:{any_of(_WORDS.phrases('home_said_before'))})\s+(?:the\s+)?{_PLACE}"
    rf"|\b(?i:as|you're|you\s+are)\s+an?\s+{_PLACE}\s+"
    rf"(?i:{any_of(_WORDS.phrases('home_said_after'))})\b"
)


def _elsewhere(answer: str, fact: str) -> str | None:
    """Why the answer places the user's home elsewhere than ``fact`` did ("As a Quebec
    resident, ..." after "I live in Ontario."): a place no word of which, nor any other name
    of it, is the user's."""
    given = _HOME_GIVEN.search(fact)
    if given is None:
        return None
    home = given.group(1)
    for said in _HOME_SAID.finditer(answer):
        place = said.group(1) or said.group(2)
        if not known_name(place, home) and not known_name(home, place):
            return f"the answer places the user in {place}; the user said they live in {home}"
    return None


def _contradiction(fact: str, stated: list[str]) -> str | None:
    """Why the first statement the checks find in conflict with the fact contradicts it."""
    conflict = next(((claim, found) for claim in stated if (found := conflicts(claim, fact))), None)
    if conflict is None:
        return None
    claim, found = conflict
    said = "; ".join(_as_the_user(f.message) for f in found)
    return f"the answer says \u201c{shorten(claim, 80)}\u201d: {said}"


def conflicts(claim: str, fact: str) -> list[Finding]:
    """The conflicts the checks find between a statement of the answer and a fact the user
    gave; none when the two share no content word (units aside)."""
    # The unit words as written ("EUR"), not as compared ("euro"); a thing counted ("3
    # nights", "one charge") is what both are about.
    units = frozenset().union(
        *(content_words(q.text) for q in quantities(claim) if measures(q.unit))
    )
    shared = (content_words(claim) & content_words(fact)) - units
    if not shared:
        return _ages(claim, fact)  # "As you are 57" after "I am 67 years old"
    found = (
        run_checks(Reading(claim, fact, fact, fact), skip=_not_read(claim, fact))
        + _negations(claim, fact)
        + _identifiers(claim, fact)
        + _counts(claim, fact)
        + _ages(claim, fact)
        + _codes(claim, fact)
        + _named_kinds(claim, fact)
        + _lettered(claim, fact)
        + _other_kinds(claim, fact)
    )
    return [f for f in found if _contradicts(f)]


def _contradicts(finding: Finding) -> bool:
    """Whether a finding contradicts the user: a conflict, but a word the user did not say
    in the place of theirs ("has shipped" for "last week"), which is news (the faithfulness
    judge reads it as a gap too)."""
    return finding.severity == "conflict" and finding.kind != "replaced"


def _lettered(claim: str, fact: str) -> list[Finding]:
    """Another letter after the noun the user labelled by one ("your jacket in size L" after
    "size M"), in a statement said to the user, where it does not give the user's letter
    too ("Group A boards first" says nothing of the user's group B)."""
    if not _addressed(claim):
        return []
    theirs = {noun: letter for noun, letter in letter_labels(fact) if noun not in STOPWORDS}
    mine = letter_labels(claim)
    return [
        Finding(
            "names", "conflict", f"claims {noun} {letter}; the context says {noun} {theirs[noun]}"
        )
        for noun, letter in mine
        if _another_letter(noun, letter, theirs, set(mine))
    ]


def _other_kinds(claim: str, fact: str) -> list[Finding]:
    """Another kind of the user's thing, of a group of kinds that exclude each other, in a
    statement said to the user: "Your grey sofa" after "I ordered the blue sofa", "your
    personal account" after "I have a business account" (the same noun after each); not
    where the statement names the user's kind too."""
    theirs = dict((noun, kind) for kind, noun in _kinds_of(fact))
    mine = _kinds_of(claim) if _addressed(claim) else []
    return [
        Finding("names", "conflict", f"claims {kind} {noun}; the context says {theirs[noun]}")
        for kind, noun in mine
        if _excludes(kind, theirs.get(noun, kind)) and (theirs[noun], noun) not in mine
    ]


def _kinds_of(text: str) -> list[tuple[str, str]]:
    """(the kind, the stem of the noun after it) of each word of :data:`_KINDS` before a
    noun."""
    return [(kind.lower(), stem(noun)) for kind, noun in _KIND_BEFORE.findall(text)]


def _excludes(one: str, other: str) -> bool:
    """Whether two words are kinds of one group that exclude each other."""
    return one != other and any(one in kinds and other in kinds for kinds in _KINDS)


_KINDS = tuple(frozenset(kinds) for kinds in _WORDS.groups("exclusive_kinds").values())
_KIND_BEFORE = re.compile(
    rf"\b({any_of(sorted(frozenset().union(*_KINDS)))})\s+([a-z][\w-]*)", re.IGNORECASE
)


def _another_letter(
    noun: str, letter: str, theirs: dict[str, str], given: set[tuple[str, str]]
) -> bool:
    return noun in theirs and letter != theirs[noun] and (noun, theirs[noun]) not in given


def _negations(claim: str, fact: str) -> list[Finding]:
    """A negation of the fact in the claim, or in one of its clauses that states it ("Since
    you are not allergic to penicillin, amoxicillin is fine" after "I'm allergic to
    penicillin"), not one that opens a condition ("If you are not allergic ...")."""
    parts = [claim, *(c for c in CLAUSE.split(claim) if c.strip() and not _CONDITION.match(c))]
    for part in parts:
        words = content_words(part)
        covered = len(words & content_words(fact)) / max(1, len(words))
        found = check_negation(part, fact, covered)
        if found:
            return found
    return []


_CONDITION = re.compile(rf"\s*(?i:{any_of(_WORDS.phrases('conditions'))})\b")

# An e-mail address.
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
TYPO_EDITS = 2
"""The most letters an address may differ by from the user's and still be the user's,
written wrong (``ana@example.com`` for ``anna@example.com``)."""


def _another_address(answer: str, fact: str) -> str | None:
    """The answer's e-mail address that is the user's written wrong (a letter or two apart),
    with why; ``None`` when there is none. An address further apart is another's (a support
    desk's)."""
    given = [a.lower() for a in _EMAIL.findall(fact)]
    wrong = next(((a, g) for a in _EMAIL.findall(answer) if (g := _mistyped(a, given))), None)
    if wrong is None:
        return None
    return f"the answer writes the address {wrong[0]}; the user gave {wrong[1]}"


def _mistyped(address: str, given: list[str]) -> str | None:
    """The user's address (of ``given``) that ``address`` is a letter or two apart from."""
    written = address.lower()
    if written in given:
        return None
    return next((g for g in given if _edits(written, g) <= TYPO_EDITS), None)


def _edits(one: str, other: str) -> int:
    """The Levenshtein distance between two strings."""
    row = list(range(len(other) + 1))
    for i, a in enumerate(one, 1):
        previous, row[0] = row[0], i
        for j, b in enumerate(other, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (a != b))
    return row[-1]


def _not_read(claim: str, fact: str) -> frozenset[str]:
    """The checks a fact the user gave is not read with: a negation, read clause by clause
    (:func:`_negations`); and a time but where the statement holds every word of the fact and
    none of its times ("Your flight leaves at 10 am" after "My flight leaves at 9 am"), as a
    time of the answer is as often another event's ("Boarding for your 9 am flight starts at
    8:15 am", "Your flight leaves at 9 am, boarding at 8:15 am"); and the numbers and days
    :func:`_not_theirs` leaves out."""
    given = times(fact)
    kept = any(said.same(time) for said in times(claim) for time in given)
    skipped = _not_theirs(claim, fact)
    if content_words(fact) <= content_words(claim) and not kept:
        return frozenset({"negation", *skipped})
    return frozenset({"times", "negation", *skipped})


def _not_theirs(claim: str, fact: str) -> set[str]:
    """The numbers where the fact's are ages and the claim gives none (:func:`_ages_alone`)
    or where the claim measures its amount against the user's ("costs $450, within your
    budget" after "My budget is $500"), and the days where the claim's hold the user's ("every
    day" holds Friday)."""
    numbers = _ages_alone(claim, fact) or _against_theirs(claim, fact)
    days = bool(_weekdays(fact)) and _weekdays(fact) <= _weekdays(claim)
    return ({"numbers"} if numbers else set()) | ({"days"} if days else set())


def _against_theirs(claim: str, fact: str) -> bool:
    """Whether the claim puts a bound before the user's thing ("within your budget")."""
    said = content_words(fact)
    return any(content_words(m.group(1)) & said for m in _WITHIN_YOURS.finditer(claim))


# A bound before the user's thing: the number table's words of a bound ("under", "more
# than", ...), and "within".
_BOUND_WORDS = [
    *(
        w
        for side in ("above", "at_least", "below", "at_most")
        for w in table("numbers").phrases(side)
    ),
    "within",
]
_WITHIN_YOURS = re.compile(rf"\b(?:{any_of(_BOUND_WORDS)})\s+your\s+(\w+)", re.IGNORECASE)


# An identifier written with a digit in it: "12345", "#12345", "AB-1234", "INV-2024-001".
_CODE = re.compile(r"(?<![\w#-])#?[A-Za-z]{0,6}-?\d[\w-]*(?<!-)")


def _codes(claim: str, fact: str) -> list[Finding]:
    """An identifier that the claim binds to the words the fact binds another one to: "Account
    AB-9999 is active" against "My account id is AB-1234" (a plain number is
    :func:`_identifiers`')."""
    theirs = _bound_codes(fact)
    findings = []
    for code, words in _bound_codes(claim):
        rival = _rival_code(code, words, theirs)
        if rival is not None:
            findings.append(
                Finding("numbers", "conflict", f"claims {code}; the context says {rival}")
            )
    return findings


def _bound_codes(text: str) -> list[tuple[str, frozenset[str]]]:
    """The identifiers of ``text`` but plain numbers, each with the words bound to it."""
    return [
        (m.group(), _bound_at(text, m.start()))
        for m in _CODE.finditer(text)
        if not m.group().lstrip("#").isdigit()
    ]


def _rival_code(
    code: str, words: frozenset[str], theirs: list[tuple[str, frozenset[str]]]
) -> str | None:
    """The fact's identifier bound to the words of the claim's, where the fact has no
    identifier the same as it."""
    if any(_same_code(code, c) for c, _ in theirs):
        return None
    return next((c for c, bound in theirs if words & bound), None)


def _same_code(one: str, other: str) -> bool:
    return one.lstrip("#").lower() == other.lstrip("#").lower()


def _bound_at(text: str, at: int) -> frozenset[str]:
    """The content words of the few words before the character ``at`` of ``text``."""
    words = tokens(text[:at])
    return content_words(" ".join(words[-BOUND_WORDS:]))


# A name the user gave as the kind of a thing: "the Pro plan", "a Premium account".
_NAMED_KIND = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w+-]*)\s+([a-z]{3,})\b")
# The name's capital is read as written: only the words before it ignore case.
_SELF_NAME = re.compile(rf"\b(?i:{any_of(_WORDS.phrases('self_naming'))})\s+([A-Z][a-z]+)\b")
_ADDRESS = re.compile(
    rf"(?:^|[.!?]\s+)(?i:{any_of(_WORDS.phrases('greetings'))})\s*,?\s+([A-Z][a-z]+)\b"
    r"|\b(?i:your name is)\s+([A-Z][a-z]+)\b"
)


def _named_kinds(claim: str, fact: str) -> list[Finding]:
    """Another name in the place of the user's: "the Basic plan" where the user is on "the
    Pro plan" (a capitalised name before the same noun)."""
    theirs = {noun: name for name, noun in _NAMED_KIND.findall(fact)}
    mine = _NAMED_KIND.findall(claim)
    # A claim that names the user's kind too compares or lists them ("The Pro plan costs $20
    # and the Basic plan $10").
    named = {(name.lower(), noun) for name, noun in mine}
    return [
        Finding("names", "conflict", f"claims the {name} {noun}; the context names {rival}")
        for name, noun in mine
        if (rival := _rival_kind(name, noun, theirs, named))
    ]


def _rival_kind(
    name: str, noun: str, theirs: dict[str, str], named: set[tuple[str, str]]
) -> str | None:
    """The user's name for ``noun`` where the claim's ``name`` is another and the claim does
    not name the user's too."""
    rival = theirs.get(noun)
    if rival is None or (rival.lower(), noun) in named:
        return None
    return None if name == "I" or rival.lower() == name.lower() else rival


def called_otherwise(answer: str, fact: str) -> str | None:
    """The answer's sentence that calls the user by another name than the one ``fact`` gave
    ("Thanks, Maria!" after "My name is Anna."), with why; ``None`` when there is none."""
    given = _SELF_NAME.search(fact)
    if given is None or given.group(1).lower() in _NOT_NAMES:
        return None
    name = given.group(1)
    called = next((c for c in _names_called(answer) if _another_name(c, name)), None)
    if called is None:
        return None
    return f"the answer calls the user {called}; the user said their name is {name}"


def _names_called(answer: str) -> list[str]:
    """The names the answer calls the user by ("Thanks, Maria!", "your name is Maria")."""
    return [m.group(1) or m.group(2) for m in _ADDRESS.finditer(answer)]


def _another_name(called: str, name: str) -> bool:
    return bool(called) and called.lower() != name.lower() and called.lower() not in _NOT_NAMES


_NOT_NAMES = _WORDS.words("not_names")


def _identifiers(claim: str, fact: str) -> list[Finding]:
    """A number without a unit that the claim binds to the words the fact binds another to:
    "Order 4471 was delivered" against "My order number is 4417"."""
    theirs = _bound_numbers(fact)
    findings = []
    for q, words in _bound_numbers(claim):
        rival = _rival_number(q, words, theirs)
        if rival is not None:
            findings.append(
                Finding("numbers", "conflict", f"claims {q.text}; the context says {rival.text}")
            )
    return findings


def _ages(claim: str, fact: str) -> list[Finding]:
    """Another age for the one the user gave, bound to the same words: "As your son is 14"
    after "My son is 8 years old" (an age in years, or a number without a unit)."""
    theirs = _aged(fact, _given_ages(fact))
    mine = _aged(claim, _ages_or_bare(claim)) if theirs else []
    rivals = ((q, _rival_number(q, words, theirs)) for q, words in mine)
    return [
        Finding("numbers", "conflict", f"claims {q.text}; the context says {rival.text}")
        for q, rival in rivals
        if rival is not None
    ]


def _ages_or_bare(text: str) -> list[Quantity]:
    """The ages ``text`` gives, and its numbers without a unit ("As your son is 14")."""
    return [q for q in quantities(text) if not q.unit or _an_age(q, text)]


def _given_ages(text: str) -> list[Quantity]:
    """The ages ``text`` gives."""
    return [q for q in quantities(text) if _an_age(q, text)]


def _aged(text: str, ages: list[Quantity]) -> list[tuple[Quantity, frozenset[str]]]:
    """Each of ``ages`` with the words it is the age of."""
    return [(q, _age_bound(text, q)) for q in ages]


def _an_age(q: Quantity, text: str) -> bool:
    """Whether ``q`` is an age in ``text``: a number of years followed by "old" ("8 years
    old", "an 8-year-old")."""
    if q.unit == "year-old":
        return True
    at = text.find(q.text)
    return q.unit == "year" and at >= 0 and bool(_OLD.match(text[at + len(q.text) :]))


_OLD = re.compile(r"[\s-]*old\b", re.IGNORECASE)


def _age_bound(text: str, q: Quantity) -> frozenset[str]:
    """The words an age is of: those before it, the noun after "8-year-old", and the user
    where "I" or "you" says it ("I am 67 years old", "As you are 57")."""
    found = re.search(rf"(?<![\w.]){re.escape(q.text.split()[0])}(?![\w.])", text)
    if found is None:
        return frozenset()
    before = tokens(text[: found.start()])[-BOUND_WORDS:]
    noun = _AGED_NOUN.match(text[found.end() :]) if q.unit == "year-old" else None
    user = {_USER} if {w.lower() for w in before} & _THE_USER else set()
    return content_words(" ".join(before + ([noun.group(1)] if noun else []))) | user


_AGED_NOUN = re.compile(r"[\s-]*years?[\s-]*old\s+(\w+)", re.IGNORECASE)


_THE_USER = frozenset({"i", "i'm", "you", "you're"})
_USER = "the user"


def _ages_alone(claim: str, fact: str) -> bool:
    """Whether the fact's amounts are all ages and the claim gives none: "Your car is under
    warranty for 5 years" says nothing of "My car is 3 years old"."""
    ages = _given_ages(fact)
    alone = len(ages) == len([q for q in quantities(fact) if q.unit])
    return bool(ages) and alone and not _given_ages(claim)


def _counts(claim: str, fact: str) -> list[Finding]:
    """How many times a thing happened, told one way in the claim and another in the fact:
    "I see one charge" after "I was charged twice" (a count of the thing against a count of
    times, the same stem bound to both). Two counts of the same unit are the number check's,
    two numbers without a unit :func:`_identifiers`'."""
    theirs = _counted(fact)
    findings = []
    for q, words in _counted(claim):
        told = _told_otherwise(q, words, theirs)
        if told is not None:
            message = f"claims {q.text}; the context says {told.text}"
            findings.append(Finding("numbers", "conflict", message))
    return findings


def _told_otherwise(
    q: Quantity, words: frozenset[str], theirs: list[tuple[Quantity, frozenset[str]]]
) -> Quantity | None:
    """The fact's count of what ``q`` counts, told the other way, where none of them has
    ``q``'s value."""
    told = [s for s, bound in theirs if _same_thing(q, words, s, bound)]
    if any(same_value(q.value, s.value) for s in told):
        return None
    return told[0] if told else None


def _same_thing(q: Quantity, words: frozenset[str], s: Quantity, bound: frozenset[str]) -> bool:
    """Whether two counts count the same thing, one as a number of times and the other of
    things (two of the same unit are the number check's)."""
    return bool(words & bound) and s.unit != q.unit


def _counted(text: str) -> list[tuple[Quantity, frozenset[str]]]:
    """The counts of ``text`` with what they count: a number of times ("twice", "three
    times") counts the words before it, a number of things ("two charges") its things."""
    found = []
    for q in quantities(text):
        if q.unit == _TIMES or q.text.lower() in _REPEATS:
            found.append((q, _bound(text, q.text.split()[0])))
        elif not measures(q.unit):
            found.append((q, content_words(q.unit)))
    return found


_TIMES = "time"
_REPEATS = _WORDS.words("repeats")


def _bound_numbers(text: str) -> list[tuple[Quantity, frozenset[str]]]:
    """The numbers without a unit of ``text``, each with the words bound to it."""
    return [(q, _bound(text, q.text)) for q in quantities(text) if not q.unit]


def _rival_number(
    q: Quantity, words: frozenset[str], theirs: list[tuple[Quantity, frozenset[str]]]
) -> Quantity | None:
    """The fact's number bound to the words of the claim's, where the fact has no number of
    the same value."""
    if any(same_value(q.value, s.value) for s, _ in theirs):
        return None
    return next((s for s, bound in theirs if words & bound), None)


def _bound(text: str, number: str) -> frozenset[str]:
    """The content words of the few words before ``number`` in ``text``."""
    words = tokens(text)
    if number not in words:
        return frozenset()
    at = words.index(number)
    return content_words(" ".join(words[max(0, at - BOUND_WORDS) : at]))


def asks_for(question: str, fact: str) -> bool:
    """Whether a question of the answer asks for what ``fact`` already gave: at least half of
    its content words, generic ones aside, are the fact's."""
    asked = content_words(question) - GENERIC
    if not asked:
        return False
    return len(asked & content_words(fact)) / len(asked) >= 0.5


def _addressed(question: str) -> bool:
    return bool({t.lower() for t in tokens(question)} & _ADDRESSED)


def _as_the_user(message: str) -> str:
    """A check's message about "the context" said of the user's words."""
    for said, meant in _AS_THE_USER:
        message = re.sub(re.escape(said), meant, message)
    return message
