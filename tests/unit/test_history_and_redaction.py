"""History appends under concurrency, broken lines, and redaction of secrets."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from rag_eval_pytest.atomic import write_atomic
from rag_eval_pytest.errors import RagEvalWarning
from rag_eval_pytest.redaction import MASK, Redactor
from rag_eval_pytest.reporting.files import append_history, read_history


def _append_many(path: str, writer: int, count: int) -> None:
    for i in range(count):
        append_history(Path(path), {"writer": writer, "i": i, "pad": "x" * 500})


def test_concurrent_appends_leave_every_line_whole(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    procs = [
        multiprocessing.Process(target=_append_many, args=(str(path), w, 50)) for w in range(4)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 200
    entries = [json.loads(line) for line in lines]
    assert sorted((e["writer"], e["i"]) for e in entries) == [
        (w, i) for w in range(4) for i in range(50)
    ]


def test_truncated_last_line_is_skipped_and_next_append_starts_fresh(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"run": 1}\n{"run": 2, "compos', encoding="utf-8")
    append_history(path, {"run": 3})
    with pytest.warns(RagEvalWarning, match="skipped 1 unreadable line"):
        entries = read_history(path)
    assert entries == [{"run": 1}, {"run": 3}]


def test_write_atomic_replaces_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "report.md"
    write_atomic(path, "one")
    write_atomic(path, "two")
    assert path.read_text() == "two"
    assert [p.name for p in path.parent.iterdir()] == ["report.md"]


def test_redactor_masks_values_and_bearer_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-12345")
    monkeypatch.setenv("RAG_AUTH_HEADER", "Authorization: Bearer tok-98765")
    redactor = Redactor.from_environment(["Bearer cfg-4444"])
    data = {"a": "key sk-ant-12345", "b": ["tok-98765 and cfg-4444"], "c": 3}
    assert redactor.data(data) == {"a": f"key {MASK}", "b": [f"{MASK} and {MASK}"], "c": 3}


@pytest.mark.parametrize(
    ("value", "masked"),
    [
        ("EMPTY", False),  # the placeholders local servers ask for
        ("ollama", False),
        ("refund", False),
        ("Placeholder", False),
        ("sk-test", False),  # shorter than 8 characters
        ("sk-no-key-required", True),
        ("aBcDeFgHiJkL", True),  # letters, but no word
        ("changeme1", True),
    ],
)
def test_a_value_too_weak_to_be_a_secret_is_not_masked_in_text(value: str, masked: bool) -> None:
    redactor = Redactor([value], source="OPENAI_API_KEY")
    assert (redactor.text(f"say {value} here") == f"say {MASK} here") is masked
    assert redactor.weak_sources() == ([] if masked else ["OPENAI_API_KEY"])


def test_a_credential_query_parameter_in_a_url_is_masked_whatever_its_length() -> None:
    text = "GET https://h/q?pin=1&lang=en&sid=ab#access_token=xyz and a?password=hunter2"
    assert Redactor().text(text) == (
        f"GET https://h/q?pin={MASK}&lang=en&sid={MASK}#access_token={MASK} and a?password={MASK}"
    )
