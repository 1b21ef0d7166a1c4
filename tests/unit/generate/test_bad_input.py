"""``rag-eval generate`` on bad input: one message naming the file, exit 3, and nothing
written or lost (an existing output or the dataset appended to stays as it was)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rag_eval_pytest.cli import main
from rag_eval_pytest.data.reading import MAX_FILE_BYTES
from tests.documents import pdf_bytes, write_documents
from tests.helpers import installed


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return write_documents(tmp_path / "docs")


def refused(capsys: pytest.CaptureFixture[str], *args: str, output: str = "out.json") -> str:
    """Run the command; it must exit 3 with one message and write nothing new."""
    before = Path(output).read_bytes() if Path(output).exists() else None
    assert main(["generate", *args, "--output", output]) == 3
    err = capsys.readouterr().err
    assert err.startswith("rag-eval generate: ") and err.count("rag-eval generate") == 1, err
    assert "Traceback" not in err
    after = Path(output).read_bytes() if Path(output).exists() else None
    assert after == before
    return err


def test_an_empty_folder_and_a_missing_path(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("empty").mkdir()
    (Path("empty") / "notes.docx").write_bytes(b"PK\x03\x04")  # not a type that is read
    err = refused(capsys, "docs", "empty")
    assert "empty: holds no document (Markdown (.md), text (.txt), HTML (.html), PDF" in err
    assert "missing: no such file or folder" in refused(capsys, "missing")
    assert "unknown document type '.docx'" in refused(capsys, "empty/notes.docx")


def test_a_binary_or_not_utf8_file(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (docs / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert "docs/logo.md: not a text file (it holds binary data)" in refused(capsys, "docs")
    (docs / "logo.md").write_bytes("Caf\u00e9 au lait.".encode("latin-1"))
    assert "docs/logo.md: not UTF-8 text (byte 3); save it as UTF-8" in refused(capsys, "docs")


def test_an_unreadable_file(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag_eval_pytest.generate import documents

    real = documents.read_limited

    def read_limited(path: Path) -> bytes:
        if path.name == "accounts.md":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(documents, "read_limited", read_limited)
    err = refused(capsys, "docs")
    assert "rag-eval generate: docs/accounts.md: cannot be read (Permission denied)" in err


def test_a_file_over_the_size_limit(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with (docs / "huge.txt").open("wb") as fh:  # sparse: nothing is written to the disk
        fh.truncate(MAX_FILE_BYTES + 1)
    err = refused(capsys, "docs")
    assert "docs/huge.txt: larger than 256 MiB, the most an input file may hold" in err


def test_a_link_loop(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.symlink("..", docs / "billing" / "up")
    err = refused(capsys, "docs")
    assert "docs/billing/up: a link loop (it leads back to a folder it is inside of)" in err


@installed("pypdf")
def test_a_pdf_without_text_and_a_pdf_with_text(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (docs / "scan.pdf").write_bytes(pdf_bytes("", ""))
    err = refused(capsys, "docs")
    assert "docs/scan.pdf: a PDF without text (2 pages, none with text: a scan?" in err
    (docs / "scan.pdf").write_bytes(b"%PDF-1.4\nnot really a PDF")
    assert "docs/scan.pdf: not a readable PDF" in refused(capsys, "docs")
    (docs / "scan.pdf").write_bytes(pdf_bytes("The warranty covers parts for 2 years."))
    assert main(["generate", "docs/scan.pdf", "--output", "out.json"]) == 0
    assert "The warranty covers parts for how many years?" in Path("out.json").read_text()


def test_a_pdf_without_pypdf_names_the_install_command_once(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # not installed, as far as lookups go
    for name in ("a.pdf", "b.pdf"):
        (docs / name).write_bytes(pdf_bytes("The warranty covers parts for 2 years."))
    err = refused(capsys, "docs")
    assert (
        "reading PDF documents (docs/a.pdf, docs/b.pdf) needs pypdf, which is not installed: "
        "pip install 'rag-eval-pytest[pdf]'"
    ) in err


def test_the_output_is_never_an_input_and_an_existing_one_needs_force(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (docs / "rows.jsonl").write_text('{"text": "Webhooks retry 5 times.", "source": "kb"}\n')
    for flag in ("--force", "--append"):
        err = refused(capsys, "docs", flag, output="docs/rows.jsonl")
        assert "docs/rows.jsonl: --output is the input file docs/rows.jsonl" in err
    Path("out.json").write_text("kept", encoding="utf-8")
    err = refused(capsys, "docs")
    assert "out.json: already exists; give --force to replace it" in err
    assert main(["generate", "docs", "--output", "out.json", "--force"]) == 0
    assert Path("out.json").read_text(encoding="utf-8") != "kept"


def test_bad_rows_a_bad_dataset_to_append_to_and_an_unknown_output_type(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("rows.jsonl").write_text('{"text": "Webhooks retry 5 times.", "source": "kb"}\n{}\n')
    assert "rows.jsonl: line 2: field 'text' is required" in refused(capsys, "rows.jsonl")
    Path("rows.jsonl").write_text("not json\n")
    assert "rows.jsonl: line 1: not JSON" in refused(capsys, "rows.jsonl")
    Path("out.json").write_text('{"test_cases": [{"id": "a"}]}', encoding="utf-8")
    err = refused(capsys, "docs", "--append")
    assert "out.json" in err and "field 'question' is required" in err
    err = refused(capsys, "docs", output="out.csv")
    assert "out.csv: unknown file type '.csv' (use .json, .jsonl, .yaml or .yml)" in err
    assert "--count: must not be negative" in refused(capsys, "docs", "--count", "-2")
    assert "--count: give at least 1 case" in refused(capsys, "docs", "--count", "0")
