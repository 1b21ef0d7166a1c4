"""Deterministic checks that catch what embedding similarity misses.

Similarity says "these are about the same thing"; it cannot tell 20 days from 30 days, a
claim from its negation, or Paris from Lyon. Each check compares a claim with its best
evidence (the closest context passage) and with all the contexts, and returns
:class:`Finding` objects with a human-readable message ("claims 30 days; the context says 20
days"). A *conflict* (the contexts state something else) makes a claim unsupported whatever
its similarity; a *gap* (the contexts do not state it) lowers its support score.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ...text.facts import (
    Date,
    Quantity,
    content_words,
    dates,
    known_name,
    names,
    negation_cues,
    quantities,
    same_value,
    tokens,
    unit_of,
    words_of_name,
)


@dataclass(frozen=True)
class Finding:
    """One problem of a claim. ``kind``: numbers, dates, negation or names; ``severity``:
    conflict (the contexts say otherwise) or gap (they do not say it)."""

    kind: Literal["numbers", "dates", "negation", "names"]
    severity: Literal["conflict", "gap"]
    message: str


def check_numbers(claim: str, evidence: str, contexts: str) -> list[Finding]:
    """Numbers of the claim that its evidence contradicts or no context states.

    The evidence (the passage closest to the claim) counting the same thing with another
    number is a conflict, even when some other context happens to state the claim's number:
    "30 days of paid time off" against "20 days paid time off" stays wrong beside a refund
    policy of 30 days. A number no context states is a gap."""
    stated = quantities(contexts)
    near = quantities(evidence)
    findings = []
    for q in quantities(claim):
        if any(same_value(q.value, s.value) for s in near):
            continue
        rival = next((s for s in near if _same_unit(q, s, evidence)), None)
        if rival is None and any(same_value(q.value, s.value) for s in stated):
            continue
        rival = rival or next((s for s in stated if q.unit and s.unit == q.unit), None)
        if rival is not None:
            says = _as_written(rival, q.unit, evidence)
            findings.append(
                Finding("numbers", "conflict", f"claims {q.text}; the context says {says}")
            )
        else:
            findings.append(
                Finding("numbers", "gap", f"claims {q.text}; the contexts state no such number")
            )
    return findings


def _same_unit(claimed: Quantity, stated: Quantity, evidence: str) -> bool:
    """Whether two quantities count the same thing: the same unit word, or the claim's unit
    among the three words after the stated number ("1,600 German scientists")."""
    if not claimed.unit:
        return False
    if stated.unit == claimed.unit:
        return True
    at = evidence.find(stated.text)
    if at < 0:
        return False
    following = tokens(evidence[at + len(stated.text) :])[:3]
    return claimed.unit in {unit_of(word) for word in following}


def _as_written(stated: Quantity, unit: str, evidence: str) -> str:
    """The stated number up to the claim's unit word ("1,600 German scientists")."""
    if stated.unit == unit:
        return stated.text
    at = evidence.find(stated.text)
    if at < 0:
        return stated.text
    for match in re.finditer(r"[^\W\d_]+", evidence[at + len(stated.text) :]):
        if unit_of(match.group(0)) == unit:
            return evidence[at : at + len(stated.text) + match.end()]
    return stated.text


def check_dates(claim: str, evidence: str, contexts: str) -> list[Finding]:
    """Dates of the claim that no context date can be: "claims 1985; the context says
    8 December 1984"."""
    stated = dates(contexts)
    near = dates(evidence)
    findings = []
    for d in dates(claim):
        if any(d.compatible(s) for s in stated):
            continue
        rival: Date | None = near[0] if near else None
        if rival is not None:
            findings.append(
                Finding("dates", "conflict", f"claims {d.show()}; the context says {rival.show()}")
            )
        else:
            findings.append(
                Finding("dates", "gap", f"claims {d.show()}; the contexts give no such date")
            )
    return findings


def check_negation(claim: str, evidence: str, covered: float) -> list[Finding]:
    """A claim that negates what its evidence affirms, or the other way round. Only when the
    evidence covers the claim's words (``covered``): otherwise they are different statements
    and a "not" on one side means nothing."""
    mine, theirs = negation_cues(claim), negation_cues(evidence)
    if bool(mine) == bool(theirs) or covered < 0.6 or len(content_words(claim)) < 2:
        return []
    if mine:
        message = f"the claim says \u201c{mine[0]}\u201d; the context states it without negation"
    else:
        message = f"the claim affirms what the context negates (\u201c{theirs[0]}\u201d)"
    return [Finding("negation", "conflict", message)]


def check_names(claim: str, contexts: str) -> list[Finding]:
    """Names of the claim ("Lyon", "Garth Brooks") that no context mentions."""
    missing = [
        name for name in names(claim) if words_of_name(name) and not known_name(name, contexts)
    ]
    if not missing:
        return []
    shown = ", ".join(missing[:3])
    return [Finding("names", "gap", f"names {shown}, which the contexts do not mention")]


def missing_name_share(claim: str, contexts: str) -> float:
    """Share of the claim's names that have a word no context contains (0 when it names
    nothing): "Dunbar Castle" beside a context about Tantallon Castle counts as missing."""
    found = [name for name in names(claim) if words_of_name(name)]
    if not found:
        return 0.0
    return sum(not known_name(name, contexts) for name in found) / len(found)
