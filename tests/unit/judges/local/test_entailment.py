"""The optional entailment model without loading one: which paths are refused and how, how
its outputs are named and read as probabilities, batching and loading once, and how it
revises the rules' verdicts. The runner of the model is a stand-in; a real cross-encoder is
tests/integration/judges/local/test_entailment.py."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, ClassVar

import pytest

from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.judges.local import entailment
from rag_eval_pytest.judges.local.checks import Finding
from rag_eval_pytest.judges.local.entailment import (
    BATCH,
    DEFAULT_LABELS,
    Entailment,
    EntailmentModel,
    combine,
)
from rag_eval_pytest.judges.local.support import ClaimSupport


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A saved model folder, with transformers installed."""
    monkeypatch.setattr(entailment, "installed", lambda module: True)
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    return tmp_path


def with_labels(folder: Path, id2label: Any) -> Path:
    (folder / "config.json").write_text(json.dumps({"id2label": id2label}), encoding="utf-8")
    return folder


class Runner:
    """The loaded model: logits for each pair, and the batches it was given."""

    def __init__(self, *row: float) -> None:
        self.row = list(row) or [0.0, 2.0, 0.0]
        self.batches: list[int] = []

    def logits(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
        self.batches.append(len(pairs))
        return [self.row for _ in pairs]


def loaded(model: EntailmentModel, runner: Runner) -> EntailmentModel:
    model._model = runner
    return model


# ----------------------------------------------------------------- the path


def test_a_missing_onnx_file_is_refused(tmp_path: Path) -> None:
    missing = str(tmp_path / "nli.onnx")
    with pytest.raises(ConfigError) as refused:
        EntailmentModel(missing)
    assert str(refused.value) == f"judge.local.nli_model {missing!r}: no such ONNX file"


@pytest.mark.parametrize("where", ["empty folder", "no such folder", "a file"])
def test_a_path_that_is_no_saved_model_is_refused(tmp_path: Path, where: str) -> None:
    path = tmp_path / "model"
    if where == "empty folder":
        path.mkdir()
    elif where == "a file":
        path.write_text("{}")
    with pytest.raises(ConfigError, match="is neither a folder with a saved model"):
        EntailmentModel(str(path))


def test_a_model_folder_without_transformers_says_what_to_install(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(entailment, "installed", lambda module: module != "transformers")
    with pytest.raises(ConfigError) as refused:
        EntailmentModel(str(folder))
    assert str(refused.value) == (
        "judge.local.nli_model is a model folder, which needs transformers (it comes with "
        "sentence-transformers): pip install 'rag-eval-pytest[sentence-transformers]'"
    )


# ----------------------------------------------------------------- the labels


def test_the_labels_are_the_configs_in_the_order_of_their_ids(folder: Path) -> None:
    ids = {str(i): f"LABEL_{i}" for i in range(11)} | {"2": "Entailment", "10": "Contradiction"}
    model = EntailmentModel(str(with_labels(folder, ids)))
    assert model.labels[2] == "entailment" and model.labels[10] == "contradiction"
    assert model.labels[9] == "label_9"  # "10" sorts after "9", as a number


@pytest.mark.parametrize("id2label", [None, {"0": "LABEL_0", "1": "LABEL_1"}, {"x": "entailment"}])
def test_without_an_entailment_label_the_common_nli_order_is_used(
    folder: Path, id2label: Any
) -> None:
    assert EntailmentModel(str(with_labels(folder, id2label))).labels == list(DEFAULT_LABELS)


def test_an_onnx_files_labels_come_from_the_config_beside_it(tmp_path: Path) -> None:
    (tmp_path / "nli.onnx").write_bytes(b"onnx")
    with_labels(tmp_path, {"0": "entailment", "1": "neutral", "2": "contradiction"})
    model = EntailmentModel(str(tmp_path / "nli.onnx"))
    assert model.onnx and model.name == "nli.onnx"
    assert model.labels == ["entailment", "neutral", "contradiction"]


def test_given_labels_win_and_must_name_entailment(folder: Path) -> None:
    assert EntailmentModel(str(folder), ["Yes", "Entailment"]).labels == ["yes", "entailment"]
    with pytest.raises(ConfigError) as refused:
        EntailmentModel(str(folder), ["yes", "no"])
    assert str(refused.value) == (
        "judge.local.nli_labels ['yes', 'no'] must name the 'entailment' output"
    )


# ----------------------------------------------------------------- predicting


def test_the_outputs_are_read_as_probabilities(folder: Path) -> None:
    model = EntailmentModel(str(folder))  # contradiction, entailment, neutral
    even = model._read([0.0, 0.0, 0.0])
    assert even.entailment == pytest.approx(1 / 3) and even.contradiction == pytest.approx(1 / 3)
    sure = model._read([1000.0, -1000.0, 0.0])  # large logits do not overflow
    assert (sure.entailment, sure.contradiction) == (pytest.approx(0.0), pytest.approx(1.0))
    broken = model._read([math.nan, math.inf, 0.0])  # a value that is not finite counts as 0
    assert broken.entailment == pytest.approx(1 / 3)


def test_one_output_is_the_logit_of_entailment(folder: Path) -> None:
    model = EntailmentModel(str(folder))
    assert model._read([0.0]) == Entailment(0.5, 0.0)
    assert model._read([2.0]).entailment == pytest.approx(1 / (1 + math.exp(-2)))
    assert model._read([1e6]).entailment == pytest.approx(1.0)  # clamped: no overflow
    assert model._read([-1e6]).entailment == pytest.approx(0.0)


def test_pairs_go_in_batches_and_nothing_loads_for_none(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(entailment, "_TorchRunner", lambda path: pytest.fail("loaded"))
    model = EntailmentModel(str(folder))
    assert model.predict([]) == []
    runner = Runner()
    results = loaded(model, runner).predict([("premise", "claim")] * (BATCH + 4))
    assert runner.batches == [BATCH, 4] and len(results) == BATCH + 4
    assert asyncio.run(model.apredict([("p", "c")])) == results[:1]


def test_the_model_loads_once(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[Path] = []

    def load(path: Path) -> Runner:
        loads.append(path)
        return Runner()

    monkeypatch.setattr(entailment, "_TorchRunner", load)
    model = EntailmentModel(str(folder))
    model.predict([("p", "c")])
    model.predict([("p", "c")])
    assert loads == [folder]


def test_a_model_that_cannot_be_loaded_is_named_with_why(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path) -> Runner:
        raise OSError("model.safetensors is truncated")

    monkeypatch.setattr(entailment, "_TorchRunner", broken)
    with pytest.raises(ConfigError) as refused:
        EntailmentModel(str(folder)).predict([("p", "c")])
    assert str(refused.value) == (
        f"judge.local.nli_model {str(folder)!r} cannot be loaded: model.safetensors is truncated"
    )


def onnx_model(tmp_path: Path) -> EntailmentModel:
    (tmp_path / "nli.onnx").write_bytes(b"onnx")
    return EntailmentModel(str(tmp_path / "nli.onnx"))


def test_an_onnx_model_without_onnxruntime_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ConfigError) as refused:
        onnx_model(tmp_path).predict([("p", "c")])
    assert str(refused.value) == (
        "judge.local.nli_model is an .onnx file: pip install onnxruntime tokenizers"
    )


def test_an_onnx_model_needs_its_tokenizer_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", ModuleType("onnxruntime"))
    with pytest.raises(ConfigError) as refused:
        onnx_model(tmp_path).predict([("p", "c")])
    assert str(refused.value) == "judge.local.nli_model: no tokenizer.json beside nli.onnx"


class Encoding:
    def __init__(self, pair: tuple[str, str]) -> None:
        self.ids = [len(pair[0]), len(pair[1])]
        self.attention_mask = [1, 1]
        self.type_ids = [0, 1]


class Tokenizer:
    """``tokenizers.Tokenizer``, encoding a pair as its two lengths."""

    @classmethod
    def from_file(cls, path: str) -> Tokenizer:
        return cls()

    def enable_truncation(self, max_length: int) -> None:
        pass

    def enable_padding(self) -> None:
        pass

    def encode_batch(self, pairs: list[tuple[str, str]]) -> list[Encoding]:
        return [Encoding(pair) for pair in pairs]


class InferenceSession:
    """``onnxruntime.InferenceSession`` of a graph with ``inputs``: logits from the ids."""

    inputs: ClassVar[tuple[str, ...]] = ()
    feeds: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, path: str, providers: list[str]) -> None:
        pass

    def get_inputs(self) -> list[Any]:
        return [SimpleNamespace(name=name) for name in self.inputs]

    def run(self, outputs: None, feed: dict[str, Any]) -> list[Any]:
        self.feeds.append(feed)
        return [feed["input_ids"] * 1.0, "a second output"]


@pytest.mark.parametrize(
    "inputs",
    [
        ("input_ids", "attention_mask"),
        ("input_ids", "attention_mask", "token_type_ids"),
        ("input_ids", "token_type_ids"),
    ],
)
def test_an_onnx_model_is_fed_the_inputs_its_graph_has_and_read_from_its_first_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inputs: tuple[str, ...]
) -> None:
    pytest.importorskip("numpy")
    monkeypatch.setitem(sys.modules, "tokenizers", ModuleType("tokenizers"))
    monkeypatch.setattr(sys.modules["tokenizers"], "Tokenizer", Tokenizer, raising=False)
    monkeypatch.setitem(sys.modules, "onnxruntime", ModuleType("onnxruntime"))
    monkeypatch.setattr(
        sys.modules["onnxruntime"], "InferenceSession", InferenceSession, raising=False
    )
    monkeypatch.setattr(InferenceSession, "inputs", inputs)
    monkeypatch.setattr(InferenceSession, "feeds", [])
    (tmp_path / "tokenizer.json").write_text("{}", encoding="utf-8")
    model = onnx_model(tmp_path)
    model.labels = ["contradiction", "entailment"]
    (first, second) = model.predict([("abc", "de"), ("a", "bcd")])
    (feed,) = InferenceSession.feeds
    assert sorted(feed) == sorted(inputs)
    assert feed["input_ids"].tolist() == [[3, 2], [1, 3]]
    if "token_type_ids" in inputs:
        assert feed["token_type_ids"].tolist() == [[0, 1], [0, 1]]
    # The logits are the ids: (3, 2) leans to contradiction, (1, 3) to entailment.
    assert first.contradiction > first.entailment and second.entailment > second.contradiction


# ----------------------------------------------------------------- with the rules


def verdict(
    evidence: str = "Refunds take 14 days.", context: int | None = 0, *findings: Finding
) -> ClaimSupport:
    return ClaimSupport("supported", 0.8, "the rules' reason", evidence, context, findings)


def revised(folder: Path, row: list[float], *verdicts: ClaimSupport) -> list[ClaimSupport]:
    model = loaded(EntailmentModel(str(folder)), Runner(*row))
    claims = [f"claim {i}" for i in range(len(verdicts))]
    return asyncio.run(combine(model, claims, list(verdicts), 0.5))


def test_the_model_decides_where_the_rules_found_no_conflict(folder: Path) -> None:
    (entailed,) = revised(folder, [0.0, 4.0, 0.0], verdict(context=1))
    assert (entailed.verdict, entailed.context) == ("supported", 1)
    assert entailed.reason.startswith("entailed by context 2 (p=0.96): Refunds take 14 days.")
    (contradicted,) = revised(folder, [4.0, 0.0, 0.0], verdict(context=None))
    assert contradicted.verdict == "contradicted"
    assert contradicted.score == pytest.approx(1 - contradicted_p(4.0), abs=1e-4)
    assert contradicted.reason == (
        "the entailment model finds a contradiction in the closest passage (p=0.96)"
    )
    (unsure,) = revised(folder, [0.0, 0.0, 0.0], verdict())
    assert unsure.verdict == "not mentioned"
    assert unsure.reason == "not entailed by context 1 (p=0.33)"


def contradicted_p(logit: float) -> float:
    return math.exp(logit) / (math.exp(logit) + 2)


def test_a_conflict_found_by_the_rules_and_a_claim_without_evidence_stay(folder: Path) -> None:
    conflict = Finding("numbers", "conflict", "claims 30 days; the context says 14 days")
    kept = [verdict("", None), verdict("Refunds take 14 days.", 0, conflict)]
    assert revised(folder, [0.0, 9.0, 0.0], *kept) == kept


def test_a_gap_found_by_the_rules_is_left_to_the_model(folder: Path) -> None:
    gap = Finding("names", "gap", "the context does not name Oslo")
    (entailed,) = revised(folder, [0.0, 4.0, 0.0], verdict("Refunds take 14 days.", 0, gap))
    assert entailed.verdict == "supported" and entailed.findings == (gap,)
