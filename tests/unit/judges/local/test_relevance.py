"""A context sentence's relevance score as the report shows it: the threshold at one half,
and a sentence that answers the question by the rule."""

from __future__ import annotations

from rag_eval_pytest.judges.local.relevance import SentenceScore


def test_a_sentence_score_shows_the_relevance_threshold_as_one_half() -> None:
    assert SentenceScore(0.65, answers=False).shown(0.65) == 0.5
    assert SentenceScore(0.30, answers=False).shown(0.60) == 0.25
    assert SentenceScore(0.80, answers=False).shown(0.60) == 0.75
    assert not SentenceScore(0.30, answers=False).relevant(0.60)
    # A sentence that answers the question by the rule is relevant and shown at the cut.
    assert SentenceScore(0.30, answers=True).relevant(0.60)
    assert SentenceScore(0.30, answers=True).shown(0.60) == 0.5
