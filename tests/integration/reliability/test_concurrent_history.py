"""results.jsonl under concurrent writers: every line whole, none lost; and whatever an
older crash or a hand edit left in it, the next run reads what it can and carries on."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Callable
from pathlib import Path

import pytest

from rag_eval_pytest.reporting.files import append_history
from tests.helpers import case


def _append_many(path: str, writer: int, count: int) -> None:
    for i in range(count):
        append_history(Path(path), {"writer": writer, "i": i, "pad": "x" * 500})


def test_eight_processes_appending_200_lines_each_leave_1600_valid_lines(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(path), w, 200)) for w in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1600
    entries = [json.loads(line) for line in lines]
    for w in range(8):
        assert [e["i"] for e in entries if e["writer"] == w] == list(range(200))


def test_damaged_history_lines_never_break_the_run_or_its_reports(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], rag_app: str
) -> None:
    write_dataset([case("hit", "refund policy?", expected_contexts=["policy.md"])])
    pytester.makefile(".yaml", **{"eval-config": "metrics:\n  retrieval_recall: 1.0\n"})
    history = pytester.path / "results" / "results.jsonl"
    history.parent.mkdir()
    damaged = [
        b'{"run_id": "nan", "composite_score": NaN, "metrics": {"retrieval_recall": Infinity}}',
        b'{"run_id": "huge", "composite_score": 1' + b"0" * 400 + b"}",
        b'{"run_id": "inf", "composite_score": 1e999}',
        b"\x00\x00\xff\xfe not even text",
        b'["a", "list"]',
        # Readable, with values no run writes: the run is kept, without its scores.
        b'{"run_id": "odd", "composite_score": 5, "metrics": {"retrieval_recall": true}}',
        b'{"run_id": "ok", "composite_score": 0.5, "metrics": {"retrieval_recall": 0.5}}',
        b'{"run_id": "cut", "compos',
    ]
    history.write_bytes(b"\n".join(damaged))
    result = pytester.runpytest("--rag-dataset=dataset.json", f"--rag-target={rag_app}")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 0, output
    assert "Traceback" not in output
    result.stdout.fnmatch_lines(["*results.jsonl: skipped 6 unreadable line(s)*"])

    def strict(text: str) -> float:
        raise AssertionError(f"{text} in a report")

    report = json.loads(
        (pytester.path / "results" / "eval_report.json").read_text(), parse_constant=strict
    )
    assert [p["run_id"] for p in report["trend"]["points"]][:-1] == ["odd", "ok"]
    assert report["trend"]["points"][0]["composite"] is None
    assert report["trend"]["points"][0]["metrics"] == {"retrieval_recall": None}
    assert report["trend"]["points"][-1]["metrics"] == {"retrieval_recall": 1.0}
    lines = history.read_bytes().split(b"\n")
    assert lines[-1] == b""  # the new line is whole, on a line of its own
    assert json.loads(lines[-2])["metrics"] == {"retrieval_recall": 1.0}
