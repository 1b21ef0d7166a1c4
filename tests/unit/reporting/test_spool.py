"""The run's cases on disk: each payload spooled as it arrives and read back alone, the
report's cases spooled in order and read again section by section; the files removed at the
end, and put in the system's temporary folder when the output folder cannot take them."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.reporting.collector import RunCollector
from rag_eval_pytest.reporting.files import report_json, write_report_json
from rag_eval_pytest.reporting.spool import SPOOL_PREFIX, CaseSpool, EventSpool, SpoolFile
from tests.unit.reporting.test_document import document


def payload(key: str, index: int, answer: str | None = "a", **extra: Any) -> dict[str, Any]:
    return {
        "schema": 1, "key": key, "id": key, "index": index, "dataset": "d.json",
        "question": f"q {key}", "ground_truth": None, "critical": False, "tags": [],
        "expected_contexts": None, "recorded": False, "answer": answer, "contexts": None,
        "sources": [], "latency": None, "error": None, "adapter": None, "judge": None,
        "metrics": [], **extra,
    }  # fmt: skip


def test_each_case_is_read_back_alone_from_its_payloads_in_report_order(tmp_path: Path) -> None:
    collector = RunCollector(EventSpool(tmp_path))
    add = collector.add
    add(nodeid="t::b", when="call", outcome="failed", payload=payload("b", 1, None),
        critical_marker=False, message="no answer")  # fmt: skip
    add(nodeid="t::a", when="call", outcome="passed", payload=payload("a", 0),
        critical_marker=False)  # fmt: skip
    add(nodeid="t::b2", when="call", outcome="passed", payload=payload("b", 1, "later"),
        critical_marker=False)  # fmt: skip
    assert list(collector.cases) == ["b", "a"]  # as they came
    records = list(collector.records())
    assert [r.payload["key"] for r in records] == ["a", "b"]  # by index
    b = records[1]
    assert b.payload["answer"] == "later"  # the later payload brought the answer
    assert {n: t.outcome for n, t in b.tests.items()} == {"t::b": "failed", "t::b2": "passed"}
    assert b.status == "failed"
    spooled = list(tmp_path.glob(f"{SPOOL_PREFIX}*"))
    assert len(spooled) == 1 and oct(spooled[0].stat().st_mode & 0o777) == "0o600"
    collector.close()
    assert list(tmp_path.iterdir()) == []


def test_a_spool_goes_to_the_temporary_folder_when_the_output_folder_cannot_be_written(
    tmp_path: Path,
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    spool = SpoolFile(blocked / "results")
    where = spool.append("line")
    assert spool.path is not None and spool.path.parent != blocked / "results"
    assert spool.read(*where) == "line"
    spool.close()


def test_the_spooled_cases_are_read_again_each_as_the_renderers_show_it(tmp_path: Path) -> None:
    report = document({})
    cases = CaseSpool(tmp_path)
    first, second = (case.model_dump(mode="json") for case in report.cases)
    cases.add(first)
    cases.add(second, {**second, "question": "shown"})  # a secret masked for the renderers
    assert [m.key for m in cases.marks()] == ["ok", "slow"]
    assert [c.question for c in cases.read()] == ["q ok", "shown"]
    assert [c.key for c in cases.read(lambda mark: mark.failing)] == ["slow"]
    assert [json.loads(text)["question"] for text in cases.written()] == ["q ok", "q slow"]
    cases.close()
    assert not any(tmp_path.iterdir())


def test_the_json_report_written_from_the_spool_is_the_report_whole(tmp_path: Path) -> None:
    report = document({"composite": 0.5})
    doc = report.to_json()
    cases = CaseSpool(tmp_path)
    for case in doc["cases"]:
        cases.add(case)
    with open(tmp_path / "out.json", "w", encoding="utf-8", newline="") as out:
        write_report_json(out, {**doc, "cases": []}, cases.written())
    assert (tmp_path / "out.json").read_text(encoding="utf-8") == report_json(doc)
    cases.close()


def test_a_case_no_json_file_can_hold_fails_the_json_report_alone(tmp_path: Path) -> None:
    doc = document({}).to_json()
    cases = CaseSpool(tmp_path)
    doc["cases"][1]["metrics"]["faithfulness"]["details"] = {"x": math.nan}
    for case in doc["cases"]:
        cases.add(case)
    with pytest.raises(ValueError, match="not JSON compliant"):
        list(cases.written())
    assert [c.metrics["faithfulness"].details for c in cases.read()][1]["x"] != 0  # read: NaN
    cases.close()


def test_a_lone_surrogate_is_spooled_and_read_back(tmp_path: Path) -> None:
    spool = SpoolFile(tmp_path)
    text = json.dumps({"a": "\ud800"}, ensure_ascii=False)
    assert spool.read(*spool.append(text)) == text
    spool.close()
    assert os.listdir(tmp_path) == []
