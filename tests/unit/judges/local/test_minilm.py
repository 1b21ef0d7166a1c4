"""The MiniLM encoder without PyTorch or the weights: what it reads of the model folder (a
folder that is not a BERT encoder is refused), and how ``encode`` batches texts of similar
lengths and gives the vectors back in the order asked. The network itself is compared with
sentence-transformers in tests/integration/judges/local/test_minilm.py."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest

from rag_eval_pytest.judges.local.minilm import MAX_TOKENS, MiniLMEncoder
from tests.unit.judges.local.fakes import fake_torch

BERT = {
    "model_type": "bert",
    "hidden_act": "gelu",
    "num_attention_heads": 12,
    "num_hidden_layers": 6,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512,
    "pad_token_id": 0,
}


class Tensor:
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape
        self.moved: list[Any] = []

    def to(self, *where: Any) -> Tensor:
        self.moved.append(where)
        return self


class Tokenizer:
    def __init__(self, file: str) -> None:
        self.file = file
        self.truncation: int | None = None
        self.padding: dict[str, Any] = {}

    @classmethod
    def from_file(cls, file: str) -> Tokenizer:
        return cls(file)

    def enable_truncation(self, max_length: int) -> None:
        self.truncation = max_length

    def enable_padding(self, **settings: Any) -> None:
        self.padding = settings


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A model folder, with PyTorch, safetensors and tokenizers stood in for."""
    fake_torch(monkeypatch)
    weights = {
        "bert.embeddings.word_embeddings.weight": Tensor((30522, 384)),
        "bert.encoder.layer.0.attention.self.query.weight": Tensor((384, 384)),
        "pooler.dense.weight": Tensor((384, 384)),
    }
    safetensors = ModuleType("safetensors.torch")
    safetensors.load_file = lambda path, device: weights
    tokenizers = ModuleType("tokenizers")
    tokenizers.Tokenizer = Tokenizer
    monkeypatch.setitem(sys.modules, "safetensors.torch", safetensors)
    monkeypatch.setitem(sys.modules, "tokenizers", tokenizers)
    (tmp_path / "config.json").write_text(json.dumps(BERT), encoding="utf-8")
    return tmp_path


def test_the_weights_are_read_by_their_names_within_bert(folder: Path) -> None:
    encoder = MiniLMEncoder(folder)
    assert sorted(encoder.w) == [
        "embeddings.word_embeddings.weight",
        "encoder.layer.0.attention.self.query.weight",
        "pooler.dense.weight",
    ]
    assert all(t.moved == [("device(cpu)", "float32")] for t in encoder.w.values())
    assert (encoder.width, encoder.heads, encoder.layers, encoder.eps) == (384, 12, 6, 1e-12)


@pytest.mark.parametrize(("positions", "kept"), [(512, MAX_TOKENS), (128, 128)])
def test_texts_are_cut_to_the_models_window_and_padded(
    folder: Path, positions: int, kept: int
) -> None:
    (folder / "config.json").write_text(
        json.dumps({**BERT, "max_position_embeddings": positions, "pad_token_id": 3})
    )
    encoder = MiniLMEncoder(folder, device="cuda")
    assert encoder.max_tokens == kept
    assert encoder.tokenizer.truncation == kept
    assert encoder.tokenizer.padding == {"pad_id": 3}
    assert encoder.tokenizer.file == str(folder / "tokenizer.json")
    assert encoder.device == "device(cuda)"


@pytest.mark.parametrize(
    "changed", [{"model_type": "roberta"}, {"hidden_act": "relu"}, {"model_type": None}]
)
def test_a_folder_that_is_not_a_bert_encoder_is_refused(
    folder: Path, changed: dict[str, Any]
) -> None:
    (folder / "config.json").write_text(json.dumps({**BERT, **changed}))
    with pytest.raises(ValueError) as refused:
        MiniLMEncoder(folder)
    assert str(refused.value) == f"{folder}: not a BERT encoder with GELU activations"


class Batched(MiniLMEncoder):
    """The encoder with its network replaced: a text's vector is its length, in every
    coordinate; each batch is recorded."""

    def __init__(self) -> None:
        self.torch = SimpleNamespace(inference_mode=contextlib.nullcontext)
        self.width = 2
        self.batches: list[list[str]] = []

    def _batch(self, texts: list[str]) -> Any:
        self.batches.append(texts)
        rows = np.array([[len(t), len(t)] for t in texts], dtype="float32")
        return SimpleNamespace(cpu=lambda: SimpleNamespace(numpy=lambda: rows))


def test_texts_are_batched_by_length_and_come_back_in_the_order_asked() -> None:
    encoder = Batched()
    texts = ["aa", "a", "aaaaa", "aaa", "aaaa"]
    vectors = encoder.encode(texts, batch_size=2)
    assert encoder.batches == [["aaaaa", "aaaa"], ["aaa", "aa"], ["a"]]
    assert vectors.dtype == np.float32
    assert vectors[:, 0].tolist() == [2, 1, 5, 3, 4]


def test_no_text_gives_no_row_and_no_batch() -> None:
    encoder = Batched()
    assert encoder.encode([]).shape == (0, 2)
    assert encoder.batches == []
