"""What a claim states beyond its passage's sentence, though the sentence holds its words: as
a fact where the sentence hedges it ("They may have formed from leftover material"), or more
widely than the sentence does ("Shipping is free on all orders" against "Shipping is free on
orders over $50", "The Pro plan costs $20 per month" against "$20 per user per month"); or
with a word the sentence lacks and another sentence has, a relation no sentence states ("The
museum was founded in 1920 by Anna Berg." against "The museum was founded in 1920. Its first
director was Anna Berg."); or naming a thing by a name the contexts never write, composed of
their words ("Riverside Dental Clinic" where they name "Lakeside Dental Clinic, on Riverside
Road"); or about a thing the sentence only compares another with ("twice the size of the Rome
team", :func:`~.checks.compared_with`).

Each leaves a claim its score supports unsure: its words match, what they claim may not.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from ...text.lexicon import any_of
from ...text.sentences import split_sentences
from ...text.words import STOPWORDS, content_words, stem, tokens
from . import trust
from .checks import compared_with, named_in, ordered_words
from .tables import table
from .two_subjects import each_of_two

_SCOPE = table("scope")
_UNIVERSAL = _SCOPE.words("universal")
_EXCLUSIVE = _SCOPE.words("exclusive") | _SCOPE.words("together")
_CONDITION = re.compile(
    rf"^(?:{any_of(_SCOPE.phrases('conditions'))}"
    rf"|for (?:[\w'-]+ ){{1,3}}(?:{any_of(_SCOPE.phrases('restricting'))}))\b"
)

# What makes a statement a possibility rather than a fact: "They may have formed from
# leftover material", "a structure possibly built by the Romans", "is thought to date from",
# "8 GB of RAM, upgradable to 16 GB".
# "May" capitalised is the month.
_HEDGE = re.compile(
    r"\b(?:may|(?i:might|could|possibly|perhaps|probably|likely|unlikely|presumably"
    r"|reportedly|allegedly|supposedly|apparently|believed|thought to|suspected|suggests?"
    r"|suggested|appears? to|seems? to|upgrade?able|expandable|extendable|optional(?:ly)?))\b"
)


def beyond(claim: str, sentence: str, contexts: str = "") -> str:
    """The kind of evidence of a claim the sentence's words support that states more than
    the sentence (:data:`~.trust.HEDGED`, :data:`~.trust.BROADENED`, :data:`~.trust.SPREAD`
    where another sentence of ``contexts`` has a word of the claim the sentence lacks,
    :data:`~.trust.COMPOSED`, :data:`~.trust.COMPARED`), else ""."""
    if hedged(claim, sentence):
        return trust.HEDGED
    if _stated_widely(claim, sentence, contexts):
        return trust.BROADENED
    if spread(claim, sentence, contexts):
        return trust.SPREAD
    if composed(claim, contexts):
        return trust.COMPOSED
    if compared_with(claim, sentence):
        return trust.COMPARED
    return ""


def spread(claim: str, sentence: str, contexts: str) -> bool:
    """Whether a word of the claim that the sentence lacks is in another sentence of the
    contexts: the claim joins what two sentences say of two things ("Non-members get free
    entry every day." against "Members get free entry every day. Non-members get free entry
    on Mondays."), which neither states; or, the sentence holding every word, what two of its
    clauses say (:func:`_across_clauses`)."""
    missing = content_words(claim) - content_words(sentence)
    if not missing:
        return _across_clauses(claim, sentence)
    return any(
        missing & content_words(other) for other in split_sentences(contexts) if other != sentence
    )


def _across_clauses(claim: str, sentence: str) -> bool:
    """Whether the claim puts a later clause's subject to a word only the first clause holds,
    where a semicolon or a contrast parts them ("The first floor has the cafe." against "The
    cafe is on the ground floor; the first floor has meeting rooms."). Not a later clause that
    leaves out the first one's subject ("The bridge is open to cars." against "The bridge is
    closed to cyclists but open to cars."); of a claim with a number, whose clause the number
    check binds, only a thing a later clause says something else of. Clauses joined by "and"
    are read for a predicate only ("Wi-Fi is free in all rooms." against "Wi-Fi is free in
    the lobby and costs $5 per day in rooms.")."""
    ordered = ordered_words(claim)
    clauses = _CONTRASTED.split(sentence)
    if not ordered or re.search(r"\d", claim):
        # The number check binds the clause; a thing a later clause says else of is still
        # not the first's ("The $50 fee covers cleaning, linen and towels." against "The $50
        # fee covers cleaning and linen; towels cost $5 extra.").
        return len(clauses) > 1 and _item_elsewhere(
            frozenset(ordered), clauses, _held(ordered, clauses)
        )
    if len(clauses) < 2:
        return _predicate_after_and(ordered, sentence)
    return _across_contrasted([*ordered, *_light_verbs(claim)], clauses)


def _held(ordered: list[str], clauses: list[str]) -> list[frozenset[str]]:
    """The claim's words ``ordered`` each clause holds."""
    return [_clause_words(c) & frozenset(ordered) for c in clauses]


def _light_verbs(text: str) -> list[str]:
    """The stems of the verbs of ``text`` that are stop words but say what a clause is about
    ("free to use" against "using it costs $3 a month")."""
    return sorted({stem(t) for t in tokens(text) if t.lower() in _LIGHT_VERBS})


_LIGHT_VERBS = _SCOPE.words("light_verbs")


def _clause_words(clause: str) -> frozenset[str]:
    """A clause's content words and its light verbs (:func:`_light_verbs`)."""
    return content_words(clause) | frozenset(_light_verbs(clause))


def _across_contrasted(ordered: list[str], clauses: list[str]) -> bool:
    """Whether the claim's words ``ordered`` join what clauses parted by a contrast say of
    their own things: a later clause's subject, predicate or thing given the first's."""
    held = _held(ordered, clauses)
    return (
        _subject_elsewhere(ordered[0], held)
        or _predicate_elsewhere(ordered, clauses, held)
        or _item_elsewhere(frozenset(ordered), clauses, held)
    )


def _item_elsewhere(
    ordered: frozenset[str], clauses: list[str], held: list[frozenset[str]]
) -> bool:
    """Whether the claim gives the first clause's fact a thing a later clause says something
    else of ("Staff and visitors can park in the garage." against "Only staff can park in the
    garage; visitors use the street."): the later clause alone holds some of the claim's
    words and words of its own besides, and the first clause holds the claim's others. A
    later clause that only leaves out the first one's words says nothing else ("... but open
    to cars")."""
    for clause, words in zip(clauses[1:], held[1:], strict=True):
        only_here = words - held[0]
        own = _clause_words(clause) - ordered
        if only_here and own and ordered - only_here <= held[0]:
            return True
    return False


def _predicate_after_and(ordered: list[str], sentence: str) -> bool:
    """:func:`_predicate_elsewhere` over the sentence's clauses joined by "and", each of two
    content words or more (not "Tea and coffee are free", one subject of two things; nor "A
    folding stroller and a car seat can both be checked ...", a fact of each of two)."""
    clauses = _AND.split(sentence)
    if len(clauses) < 2 or any(len(content_words(c)) < 2 for c in clauses):
        return False
    if each_of_two(sentence.split()) is not None:
        return False
    held = [content_words(c) & frozenset(ordered) for c in clauses]
    return _predicate_elsewhere(ordered, clauses, held)


_AND = re.compile(r"\band\b", re.IGNORECASE)


def _subject_elsewhere(subject: str, held: list[frozenset[str]]) -> bool:
    """Whether a later clause, not the first, holds the claim's first word ``subject`` and
    the first clause holds a word of the claim that clause does not (``held``: the claim's
    words each clause holds)."""
    later = next((h for h in held[1:] if subject in h), None)
    return subject not in held[0] and later is not None and bool(held[0] - later)


def _predicate_elsewhere(
    ordered: list[str], clauses: list[str], held: list[frozenset[str]]
) -> bool:
    """Whether the claim gives the first clause's subject what a later clause says of its own
    subject ("The Dublin flight is delayed by two hours." against "The Dublin flight is on
    time; the Cork flight is delayed by two hours."): that clause holds words of the claim the
    first does not, and opens with a word the claim lacks. A later clause that leaves out the
    subject opens with the claim's words ("... but open to cars")."""
    if ordered[0] not in held[0]:
        return False
    return any(
        words - held[0] and _opens_apart(clause, ordered)
        for clause, words in zip(clauses[1:], held[1:], strict=True)
    )


def _opens_apart(clause: str, ordered: list[str]) -> bool:
    """Whether the clause's first content word is none of the claim's words ``ordered``."""
    own = ordered_words(clause)
    return bool(own) and own[0] not in ordered


_CONTRASTED = re.compile(r";|\bbut\b|\bwhile\b|\bwhereas\b", re.IGNORECASE)


def composed(claim: str, contexts: str) -> bool:
    """Whether the claim gives a name of two words or more that no context writes, word for
    word, though the contexts hold each of its words ("Riverside Dental Clinic" beside
    "Lakeside Dental Clinic, on Riverside Road"): a name made of their words, not one they give.
    Punctuation and case aside ("Kenneth "Ken" Leung", "Love/Hate")."""
    written = f" {_spelled(contexts)} "
    return any(
        len(name.split()) > 1
        and f" {_spelled(name)} " not in written
        and content_words(name) <= content_words(contexts)
        for name in named_in(claim)
    )


@lru_cache(maxsize=4096)
def _spelled(text: str) -> str:
    """The words of ``text``, lowercase, one space apart. Memoised: every claim reads all
    the contexts' words."""
    return " ".join(t.lower() for t in tokens(text))


def hedged(claim: str, sentence: str) -> bool:
    """Whether the sentence states as a possibility what the claim states as a fact
    ("Rings typically form from leftover material" against "They may have formed from
    leftover material"): the words match, the certainty does not."""
    return bool(_HEDGE.search(sentence)) and not _HEDGE.search(claim)


def broadened(claim: str, sentence: str) -> bool:
    """Whether the claim states of every case what the sentence states of some: a universal
    word the sentence lacks ("all orders"), a word that excludes every other case ("Only
    admins") or takes two together ("both days"), or a condition of the sentence the claim
    leaves out where it copies the words around it ("orders over $50", "$20 per user per
    month")."""
    mine, theirs = _lowered(claim), _lowered(sentence)
    if _every_case(mine, theirs) or (set(mine) & _EXCLUSIVE) - set(theirs):
        return True
    parts = [_lowered(part) for part in _SEMICOLON.split(sentence)]
    return any(_leaves_out_a_condition(mine, part) for part in parts)


def _leaves_out_a_condition(mine: list[str], theirs: list[str]) -> bool:
    """Whether the claim leaves out a condition of the sentence's clause ``theirs`` where it
    copies the words around it, or one that opens or closes what it copies."""
    inside, edges = _dropped(mine, theirs)
    return any(_a_condition(run) for run in inside) or bool(edges)


_SEMICOLON = re.compile(r";")


def _every_case(mine: list[str], theirs: list[str]) -> bool:
    """Whether the claim says "all" (or "every", ...) of a thing the sentence qualifies with
    a word the claim lacks ("All employees" against "Full-time employees"; not "each
    notification setting" against "Notification settings", said of every one of them)."""
    if set(theirs) & _UNIVERSAL:
        return False
    return any(
        _qualified(word, theirs, mine) or _restricted_after(word, theirs, mine)
        for word in _said_of_every(mine)
    )


def _restricted_after(word: str, theirs: list[str], mine: list[str]) -> bool:
    """Whether the sentence's words ``theirs`` restrict ``word`` right after it with words
    the claim lacks: a participle or a condition ("guests booking directly", "orders over
    $50" against "all guests", "all orders")."""
    after = [at + 1 for at in range(len(theirs) - 1) if stem(theirs[at]) == stem(word)]
    return any(
        theirs[at] not in mine
        and (theirs[at].endswith("ing") or bool(_CONDITION.match(" ".join(theirs[at:]))))
        for at in after
    )


def _stated_widely(claim: str, sentence: str, contexts: str) -> bool:
    return (
        broadened(claim, sentence)
        or _every_case_elsewhere(claim, sentence, contexts)
        or _more_of(claim, sentence)
    )


def _more_of(claim: str, sentence: str) -> bool:
    """Whether the claim says of more of a thing than the sentence does: a stronger word of
    how many before the same word ("Most orders" against "Some orders"), or none before a
    word the sentence restricts ("Pets are not allowed." against "We welcome dogs under 10 kg;
    other pets are not allowed.")."""
    theirs = _quantified(_lowered(sentence))
    mine = _lowered(claim)
    stronger = any(
        word in theirs and rank > theirs[word] for word, rank in _quantified(mine).items()
    )
    return stronger or _bare_where_restricted(mine, _lowered(sentence))


def _bare_where_restricted(mine: list[str], theirs: list[str]) -> bool:
    """Whether the claim (three words or more: "band" answers a question) says a word bare
    (after no word of its own kind, nor one that
    restricts it) that the sentence never says bare, and says after a restricting word
    ("other pets", "other food" beside "Baby food") or after two kinds of it ("Standard
    shipping is free; express shipping costs $9.")."""
    restricted = {theirs[at + 1] for at, word in enumerate(theirs[:-1]) if word in _RESTRICTING}
    never_bare = (restricted | _contrasted(theirs)) - _bare(theirs)
    return len(mine) >= _COPIED and bool(never_bare & _bare(mine))


def _contrasted(words: list[str]) -> set[str]:
    """The words said after two different words of their own kind ("standard shipping" and
    "express shipping", "full-price items" and "sale items"): each is some of its kind."""
    kinds: dict[str, set[str]] = {}
    for before, word in itertools.pairwise(words):
        if before not in STOPWORDS and word not in STOPWORDS:
            kinds.setdefault(word, set()).add(before)
    return {word for word, before in kinds.items() if len(before) > 1}


def _bare(words: list[str]) -> set[str]:
    """The words said bare: first, or after a stop word that restricts nothing ("the")."""
    return {
        word
        for at, word in enumerate(words)
        if at == 0 or (words[at - 1] in STOPWORDS and words[at - 1] not in _RESTRICTING)
    }


def _quantified(words: list[str]) -> dict[str, int]:
    """The words after a word of how many, each with that word's rank (:data:`_HOW_MANY`)."""
    return {
        words[at + 1]: _HOW_MANY.index(word)
        for at, word in enumerate(words[:-1])
        if word in _HOW_MANY
    }


_HOW_MANY = _SCOPE.phrases("quantities")
_RESTRICTING = _SCOPE.words("restricting_before")


def _every_case_elsewhere(claim: str, sentence: str, contexts: str) -> bool:
    """Whether the claim says "every" (or "all", ...) of a thing another sentence of the
    contexts qualifies ("Every replacement is £15." where the sentence it is read against
    says where cards are replaced, and another "The first replacement costs £15 and any
    further replacements cost £25")."""
    mine = _lowered(claim)
    others = [_lowered(o) for o in split_sentences(contexts) if o != sentence]
    return any(
        _qualified_elsewhere(word, theirs, mine)
        for word in _said_of_every(mine)
        for theirs in others
    )


def _lowered(text: str) -> list[str]:
    return [t.lower() for t in tokens(text)]


def _said_of_every(mine: list[str]) -> list[str]:
    """The words right after a universal word ("all", "every", ...) of the words ``mine``."""
    return [mine[at + 1] for at, word in enumerate(mine[:-1]) if word in _UNIVERSAL]


def _qualified_elsewhere(word: str, theirs: list[str], mine: list[str]) -> bool:
    """Whether a sentence's words ``theirs`` qualify ``word`` and say it of no universal."""
    return _qualified(word, theirs, mine) and not _qualified_by(word, theirs, _UNIVERSAL)


def _qualified_by(word: str, theirs: list[str], words: frozenset[str]) -> bool:
    """Whether the sentence's words ``theirs`` put one of ``words`` right before ``word``."""
    return any(theirs[at - 1] in words for at in range(1, len(theirs)) if theirs[at] == word)


def _qualified(word: str, theirs: list[str], mine: list[str]) -> bool:
    """Whether the sentence's words ``theirs`` put before ``word`` one that is no stop word
    and that the claim's words ``mine`` lack."""
    before = [theirs[at - 1] for at in range(1, len(theirs)) if theirs[at] == word]
    return any(w not in STOPWORDS and w not in mine for w in before)


def _dropped(mine: list[str], theirs: list[str]) -> tuple[list[list[str]], list[list[str]]]:
    """The runs of the sentence's words that the claim leaves out between the words it
    copies, in order; and those before the first of them and after the last that restrict
    them (:func:`_restricting`, :func:`_opening`)."""
    kept = _copied(mine, theirs)
    if len(kept) < _COPIED:
        return [], []
    inside = [theirs[a + 1 : b] for a, b in itertools.pairwise(kept) if 1 < b - a <= _INSIDE + 1]
    after, before = theirs[kept[-1] + 1 :], theirs[: kept[0]]
    edges = [
        run for run, kept_out in ((after, _restricting), (before, _opening)) if kept_out(run, mine)
    ]
    return inside, edges


def _opening(run: list[str], mine: list[str]) -> bool:
    """Whether the words before those the claim copies open a condition ("After probation,
    employees can work remotely")."""
    return bool(run) and run[0] in _OPENING and len(run) <= _SHORT


def _restricting(run: list[str], mine: list[str]) -> bool:
    """Whether the words after those the claim copies restrict what they say: a condition
    that opens the rest ("orders over $50"; not "support and costs $20 per month", another
    fact of the sentence), or a short phrase (up to :data:`_SHORT` words, one clause) that
    holds "only" or a condition in its first three words ("for stays under 90 days", "in the
    flexible rate only"), or follows a claim whose last three words hold a word of what is
    allowed or given ("free for hotel guests", "open to visitors on weekday mornings")."""
    if _CONDITION.match(" ".join(run)):
        return _a_condition(run)
    short = 0 < len(run) <= _SHORT and not set(run) & _CLAUSE_BREAKS
    return short and (bool(set(mine[-3:]) & _GIVEN) or _early_condition(run))


def _early_condition(run: list[str]) -> bool:
    """Whether "only" or a condition is among a run's first three words or anywhere in it
    ("only")."""
    early = any(_CONDITION.match(" ".join(run[at:])) for at in range(min(3, len(run))))
    return early or "only" in run


_CLAUSE_BREAKS = frozenset({"and", "but", "or"})  # tokens: punctuation is gone
_OPENING = _SCOPE.words("opening_conditions")
_GIVEN = _SCOPE.words("given")


def _copied(mine: list[str], theirs: list[str]) -> list[int]:
    """Where the sentence has the claim's words, each after the one before it."""
    at, kept = 0, []
    for word in mine:
        if word in theirs[at:]:
            at = theirs.index(word, at) + 1
            kept.append(at - 1)
    return kept


_INSIDE = 4  # the most words a left-out condition inside the copied words has
_SHORT = _INSIDE + 2  # the most words of a condition that opens or closes what is copied
_COPIED = 3  # the fewest words a claim copies to be read so ("Super Bowl XLVIII" is a name)


def _a_condition(run: list[str]) -> bool:
    """Whether a run of left-out words holds a condition: a phrase of the table and a word
    that is no stop word ("over $50", "per user"); not an alternative the claim leaves out
    ("$15 per visit, or" before the "$45 a month" it keeps)."""
    opens = any(_CONDITION.match(" ".join(run[at:])) for at in range(len(run)))
    return opens and not _alternative(run) and any(w not in STOPWORDS for w in run)


def _alternative(run: list[str]) -> bool:
    """Whether a run of words holds "or" that is no bound's ("four or more days")."""
    return any(
        w == "or" and run[at + 1 : at + 2] not in (["more"], ["less"]) for at, w in enumerate(run)
    )
