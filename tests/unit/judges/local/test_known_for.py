"""The known-for check: a claim that gives its subject another thing it is best known for
than its contexts give is a gap."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.known_for import check_known_for

PAINTER = (
    "The Harbour at Dusk is a watercolour by Ines Varga. Ines Varga was a Hungarian painter,"
    " best known for her mural Market Day (1958)."
)


def test_another_thing_a_subject_is_best_known_for_is_a_gap() -> None:
    [finding] = check_known_for("Ines Varga is best known for The Harbour at Dusk.", PAINTER)
    assert (finding.kind, finding.severity, finding.message) == (
        "known_for",
        "gap",
        "says best known for \u201cThe Harbour at Dusk\u201d; "
        "the context says best known for \u201cher mural Market Day (1958)\u201d",
    )


@pytest.mark.parametrize(
    ("claim", "contexts"),
    [
        # The context's own thing, in fewer words; another subject's; no such phrase there.
        ("Ines Varga is best known for Market Day.", PAINTER),
        ("Ines Varga is best known for her 1958 mural.", PAINTER),
        ("Tomas Berg is best known for The Harbour at Dusk.", PAINTER),
        ("Ines Varga is best known for The Harbour at Dusk.", "Ines Varga painted it."),
    ],
)
def test_the_contexts_own_thing_or_another_subject_is_no_gap(claim: str, contexts: str) -> None:
    assert check_known_for(claim, contexts) == []
