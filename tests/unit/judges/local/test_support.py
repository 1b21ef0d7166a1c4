"""What the local judge computes once instead of once per claim: the windows' vectors and words
from their sentences', and a short claim read with its question. No model is loaded here;
tests/integration/judges/local/test_judging_work.py checks the passages that cases share."""

from __future__ import annotations

import numpy as np

from rag_eval_pytest.judges.local.checks import FINDING_KINDS
from rag_eval_pytest.judges.local.support import (
    DEFAULT_CALIBRATION,
    FEATURES,
    WINDOW_SENTENCES,
    Evidence,
    claim_features,
    read_with_question,
)
from rag_eval_pytest.text.words import content_words

SENTENCES = [
    "Full-time staff receive 12 days of paid sick leave annually.",
    "Unused sick leave carries over, up to 3 days per year.",
    "Part-time staff receive leave pro rata.",
    "Requests go to the HR portal.",
]


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(rows, 8)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_windows_vector_is_its_sentences_normalised_sum_and_its_words_their_union() -> None:
    vectors = _unit(len(SENTENCES), 1)
    evidence = Evidence.build(
        ["\n".join(SENTENCES), "Other."],
        [SENTENCES, ["Other."]],
        [
            vectors,
            _unit(1, 2),
        ],
    )
    expected = []
    for size in range(1, WINDOW_SENTENCES + 1):
        for start in range(len(SENTENCES) - size + 1):
            summed = vectors[start : start + size].sum(axis=0)
            expected.append((" ".join(SENTENCES[start : start + size]), summed))
    first = [p for p in evidence.passages if p.context == 0]
    assert [p.text for p in first] == [text for text, _ in expected]
    for row, (text, summed) in enumerate(expected):
        assert np.allclose(evidence.vectors[row], summed / np.linalg.norm(summed), atol=1e-6)
        assert evidence.passage_words[row] == content_words(text)
    assert evidence.passages[-1].context == 1
    assert evidence.passage_words[-1] == content_words("Other.")


def test_a_short_claim_is_read_with_its_question_weighted_by_their_words() -> None:
    question, claim = _unit(1, 3)[0], _unit(1, 4)[0]
    mixed = read_with_question(claim, question, "Max Gail", "Who played Wojo in Barney Miller?")
    expected = 6 * question + 2 * claim  # six words of the question, two of the claim
    assert np.allclose(mixed, expected / np.linalg.norm(expected), atol=1e-6)


def test_every_kind_of_finding_is_a_feature_of_the_support_model() -> None:
    conflicts = [f"conflict_{kind}" for kind in FINDING_KINDS]
    assert set(conflicts) <= set(FEATURES)
    assert len(DEFAULT_CALIBRATION.weights) == len(FEATURES)
    weights = dict(zip(FEATURES, DEFAULT_CALIBRATION.weights, strict=True))
    # A conflict of any kind never raises support.
    assert all(weights[name] <= 0 for name in conflicts)
    context = "Refunds are issued within 30 days of delivery."
    evidence = Evidence.build([context], [[context]], [_unit(1, 3)])
    claim = "Refunds are issued within 60 days of delivery."
    features, _, findings = claim_features(claim, _unit(1, 3)[0], evidence)
    found = dict(zip(FEATURES, features, strict=True))
    assert [f.kind for f in findings] == ["numbers"]
    assert found["conflict_numbers"] == 1.0
    assert sum(found[name] for name in conflicts) == 1.0
