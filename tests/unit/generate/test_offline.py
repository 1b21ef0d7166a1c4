"""``rag-eval generate`` offline (``--judge local``, the default without a key): extractive
questions from a small documentation set, written as a dataset the plugin loads as it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.cli import main
from rag_eval_pytest.data.dataset import load_dataset
from tests.documents import DOCS, write_documents

SECRET = "sk-ant-generate-0123456789abcdef"


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    return write_documents(tmp_path / "docs")


def generate(*args: str) -> int:
    return main(["generate", *args])


def read(path: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data


def test_extractive_cases_name_their_documents_and_load_as_a_dataset(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate("docs", "--output", "cases.json", "--count", "12") == 0
    out = capsys.readouterr().out
    assert "wrote 12 cases (12 extractive) from 5 documents" in out
    assert "review the cases before committing them" in out
    dataset = load_dataset(Path("cases.json"))
    assert len(dataset.cases) == 12
    assert len({case.id for case in dataset.cases}) == 12
    documents = {f"docs/{name}" for name in DOCS}
    for case in dataset.cases:
        assert case.tags == ["extractive"]
        assert case.question.endswith("?")
        (source,) = case.expected_contexts or []
        assert source in documents
        # The ground truth is a sentence of the document the case names.
        text = " ".join(DOCS[source.removeprefix("docs/")].split())
        assert case.ground_truth is not None
        assert case.ground_truth.rstrip(".").split(":")[-1].strip() in text
        assert case.metadata["generator"] == "rag-eval generate (extractive)"
        assert case.metadata["rule"] in ("number", "definition", "step", "name")
    # Every document gets questions, the larger ones more.
    per_document = {s for c in dataset.cases for s in c.expected_contexts or []}
    assert per_document == documents
    (generated,) = read("cases.json")["metadata"]["generated"]
    assert generated["generator"] == "extractive"
    assert generated["seed"] == 0
    assert generated["documents"] == 5
    assert generated["documents_digest"].startswith("sha256:")
    assert generated["judge"] == "none (offline extractive rules, no model)"
    assert generated["types"] == ["extractive"]


def test_rules_make_questions_from_numbers_definitions_steps_and_names(docs: Path) -> None:
    assert generate("docs", "--output", "cases.json", "--count", "40") == 0
    asked = {c["question"]: c["ground_truth"] for c in read("cases.json")["test_cases"]}
    assert asked["Customers can request a full refund within how many days of purchase?"] == (
        "Customers can request a full refund within 30 days of purchase."
    )
    assert asked["What is a chargeback?"].startswith("A chargeback is a payment reversal")
    assert asked["What is two-factor authentication?"].startswith("Two-factor authentication")
    assert asked["What is the first step of password reset?"].startswith('Click "Forgot')
    assert asked["What is step 2 of password reset?"] == "Follow the link sent by email."
    assert "Annual billing saves what percentage on every plan?" in asked
    assert "Orders placed before what time leave the warehouse the same day?" in asked
    # A sentence that leans on the one before ("it") makes no question.
    assert not any("turn it on" in question for question in asked)


def test_the_same_seed_and_documents_give_the_same_file_and_another_seed_another_choice(
    docs: Path,
) -> None:
    for name, seed in (("a.json", "7"), ("b.json", "7"), ("c.json", "8")):
        assert generate("docs", "--output", name, "--count", "6", "--seed", seed) == 0
    assert Path("a.json").read_bytes() == Path("b.json").read_bytes()
    first = [c["question"] for c in read("a.json")["test_cases"]]
    other = [c["question"] for c in read("c.json")["test_cases"]]
    assert first != other
    assert read("c.json")["metadata"]["generated"][0]["seed"] == 8


def test_chunk_ids_as_expected_contexts_name_the_chunk_that_holds_the_ground_truth(
    docs: Path,
) -> None:
    from rag_eval_pytest.generate.chunking import chunk_documents
    from rag_eval_pytest.generate.documents import read_documents

    assert generate("docs", "--output", "cases.json", "--source-format", "chunk") == 0
    chunks = {c.id: c for c in chunk_documents(read_documents([Path("docs")]))}
    for case in read("cases.json")["test_cases"]:
        (chunk_id,) = case["expected_contexts"]
        assert chunk_id.startswith("docs/") and "#" in chunk_id
        assert case["metadata"]["chunks"] == [chunk_id]
        assert case["ground_truth"].split(":")[-1].strip().rstrip(".") in " ".join(
            chunks[chunk_id].text.split()
        )


def test_html_is_read_without_its_scripts_and_styles(docs: Path) -> None:
    assert generate("docs/security.html", "--output", "cases.json") == 0
    text = Path("cases.json").read_text(encoding="utf-8")
    assert "AES-256" in text
    assert "script-text-never-read" not in text and "secret-style" not in text
    assert "console.log" not in text


def test_jsonl_rows_are_chunks_named_by_their_source(docs: Path) -> None:
    rows = [
        {"text": "The API rate limit is 600 requests per minute per key.", "source": "kb-17"},
        {"text": "Webhooks are retried 5 times over 24 hours.", "source": "kb-18"},
    ]
    Path("chunks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert generate("chunks.jsonl", "--output", "cases.json", "--count", "2") == 0
    cases = read("cases.json")["test_cases"]
    assert sorted(c["expected_contexts"][0] for c in cases) == ["kb-17", "kb-18"]


def test_append_adds_cases_without_repeating_an_id_or_a_question(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate("docs", "--output", "cases.json", "--count", "5") == 0
    before = read("cases.json")
    assert generate("docs", "--output", "cases.json", "--count", "5", "--append") == 0
    assert "appended 5 cases" in capsys.readouterr().out
    after = read("cases.json")
    assert after["test_cases"][:5] == before["test_cases"]
    ids = [c["id"] for c in after["test_cases"]]
    questions = [c["question"] for c in after["test_cases"]]
    assert len(ids) == len(set(ids)) == 10
    assert len(set(questions)) == 10
    assert len(after["metadata"]["generated"]) == 2
    assert len(load_dataset(Path("cases.json")).cases) == 10


def test_jsonl_and_yaml_outputs(docs: Path) -> None:
    assert generate("docs", "--output", "cases.jsonl", "--count", "3") == 0
    assert generate("docs", "--output", "cases.yaml", "--count", "3") == 0
    assert len(load_dataset(Path("cases.jsonl")).cases) == 3
    assert len(load_dataset(Path("cases.yaml")).cases) == 3
    assert generate("docs", "--output", "cases.jsonl", "--count", "3", "--append") == 0
    assert len(load_dataset(Path("cases.jsonl")).cases) == 6


def test_the_dry_run_shows_the_plan_and_writes_nothing(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate("docs", "--output", "cases.json", "--count", "8", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "documents: 5\nchunks: " in out
    assert "questions planned: 8 (8 extractive)" in out
    assert "requests: none (offline: no judge is asked), cost: $0" in out
    assert not Path("cases.json").exists()


def test_llm_kinds_offline_are_one_error_naming_the_judge_to_choose(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate("docs", "--output", "c.json", "--types", "multi_hop") == 3
    err = capsys.readouterr().err
    assert "the offline generator (--judge local) writes extractive questions only" in err
    assert "multi_hop needs an LLM judge" in err
    assert generate("docs", "--output", "c.json", "--judge", "openai", "--types", "riddles") == 3
    assert "--types: unknown kind 'riddles': choose from single, multi_hop" in (
        capsys.readouterr().err
    )
    assert not Path("c.json").exists()
