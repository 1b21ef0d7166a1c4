"""The pluggable entailment model of the offline judge, wired with a tiny model built here
(random weights, its output forced through the classifier bias): no download."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("sentence_transformers")

from rag_eval_pytest.errors import ConfigError
from rag_eval_pytest.judges.offline import OfflineJudge
from rag_eval_pytest.judges.offline.entailment import EntailmentModel
from rag_eval_pytest.judges.questions import StatementsInput, StatementSupport

LABELS = ["contradiction", "entailment", "neutral"]
CONTEXT = "Refunds are accepted within 30 days of purchase."


def tiny_cross_encoder(folder: Path, favour: str) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    words = [
        "refunds",
        "are",
        "accepted",
        "within",
        "days",
        "of",
        "purchase",
        "shipping",
        "is",
        "free",
        "to",
        "mars",
    ]
    vocab = folder / "vocab.txt"
    folder.mkdir(parents=True)
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    config = BertConfig(
        vocab_size=5 + len(words),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=8,
        max_position_embeddings=64,
        num_labels=3,
    )
    torch.manual_seed(0)
    model = BertForSequenceClassification(config)
    with torch.no_grad():
        model.classifier.bias.copy_(
            torch.tensor([50.0 if label == favour else 0.0 for label in LABELS])
        )
    model.save_pretrained(folder)
    BertTokenizer(str(vocab)).save_pretrained(folder)
    return folder


def verdicts(judge: OfflineJudge, answer: str) -> list[tuple[str, str]]:
    outcome = asyncio.run(
        judge.ask(
            StatementSupport(), StatementsInput(question="q", answer=answer, contexts=[CONTEXT])
        )
    )
    assert outcome.value is not None
    return [(s.verdict, s.reason) for s in outcome.value.statements]


def test_an_entailing_model_supports_what_similarity_alone_would_not(tmp_path: Path) -> None:
    model = EntailmentModel(str(tiny_cross_encoder(tmp_path / "nli", "entailment")), LABELS)
    judge = OfflineJudge(entailment=model)
    [(verdict, reason)] = verdicts(judge, "Shipping is free to Mars.")
    assert verdict == "supported"
    assert reason.startswith("entailed by context 1 (p=1.00)")
    assert judge.describe() == "local (all-MiniLM-L6-v2 + rules + nli)"


def test_a_contradicting_model_refutes_but_rule_conflicts_stay(tmp_path: Path) -> None:
    model = EntailmentModel(str(tiny_cross_encoder(tmp_path / "nli", "contradiction")), LABELS)
    judge = OfflineJudge(entailment=model)
    [(verdict, reason)] = verdicts(judge, "Refunds are accepted within 30 days of purchase.")
    assert verdict == "unsupported"
    assert reason.startswith("the entailment model finds a contradiction (p=1.00)")
    [(verdict, reason)] = verdicts(judge, "Refunds are accepted within 60 days of purchase.")
    assert reason.startswith("claims 60 days; the context says 30 days")


def test_a_missing_folder_or_labels_without_entailment_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not a folder with a saved cross-encoder"):
        EntailmentModel(str(tmp_path / "nowhere"), LABELS)
    with pytest.raises(ConfigError, match="must name the 'entailment' output"):
        EntailmentModel(str(tmp_path), ["yes", "no"])
