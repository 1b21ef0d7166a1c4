"""Dataset loading and validation, without pytest runs."""

from __future__ import annotations

import datetime as dt
import gc
import json
import os
import tracemalloc
from pathlib import Path

import pytest

from rag_eval_pytest.data.dataset import (
    Case,
    auto_id,
    load_dataset,
    load_datasets,
    missing_ground_truth_notice,
)
from rag_eval_pytest.errors import DatasetError

NOW = dt.datetime(2026, 11, 22, tzinfo=dt.timezone.utc)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def doc(*cases: dict[str, object], **metadata: object) -> str:
    return json.dumps({"metadata": metadata, "test_cases": list(cases)})


def test_json_with_metadata_and_context_shapes(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc(
            {
                "id": "a",
                "question": "q?",
                "ground_truth": "g",
                "answer": "x",
                "contexts": ["plain", {"text": "t", "source": "s.md"}],
            },
            name="N",
            created="2026-11-01",
            version=2,
        ),
    )
    ds = load_dataset(path, now=NOW)
    assert ds.metadata.name == "N" and ds.metadata.version == "2"
    (case,) = ds.cases
    assert [(c.text, c.source) for c in case.contexts or []] == [("plain", None), ("t", "s.md")]
    assert case.has_recorded_answer


def test_jsonl_and_yaml_give_the_same_cases(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "question": "q1", "ground_truth": "g1", "tags": ["x"]},
        {"id": "b", "question": "q2", "ground_truth": "g2", "critical": True},
    ]
    jsonl = write(tmp_path, "d.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    yaml_text = "test_cases:\n" + "".join(
        f"  - id: {r['id']}\n    question: {r['question']}\n    ground_truth: {r['ground_truth']}\n"
        + ("    tags: [x]\n" if r.get("tags") else "")
        + ("    critical: true\n" if r.get("critical") else "")
        for r in rows
    )
    yml = write(tmp_path, "d.yaml", yaml_text)
    assert load_dataset(jsonl, now=NOW).cases == load_dataset(yml, now=NOW).cases


def test_missing_ids_are_stable_and_unique(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc(
            {"question": "same?", "ground_truth": "g"},
            {"question": "same?", "ground_truth": "other"},
            {"question": "different?", "ground_truth": "g"},
        ),
    )
    first = [c.id for c in load_dataset(path, now=NOW).cases]
    second = [c.id for c in load_dataset(path, now=NOW).cases]
    assert first == second
    assert first[0] == auto_id("same?") and first[1] == auto_id("same?") + "-2"
    assert len(set(first)) == 3


def test_every_problem_is_named_with_file_case_and_field(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "bad.json",
        doc(
            {"id": "tc_1", "question": "", "ground_truth": "g"},
            {"id": "tc_2", "ground_truth": "g", "critcal": True},
            {"id": "tc_2", "question": "q", "ground_truth": "g", "tags": "billing"},
        ),
    )
    with pytest.raises(DatasetError) as info:
        load_dataset(path, now=NOW)
    message = str(info.value)
    assert message.startswith(f"Invalid dataset {path} (4 problems):")
    assert "case 'tc_1' (test_cases[0]): field 'question': must not be empty" in message
    assert "case 'tc_2' (test_cases[1]): field 'question' is required" in message
    assert "case 'tc_2' (test_cases[1]): unknown field 'critcal'" in message
    assert "case 'tc_2' (test_cases[2]): field 'tags': Input should be a valid list" in message


def test_duplicate_ids_are_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc(
            {"id": "x", "question": "a", "ground_truth": "g"},
            {"id": "x", "question": "b", "ground_truth": "g"},
        ),
    )
    with pytest.raises(DatasetError, match=r"case 'x' \(test_cases\[1\]\): duplicate id"):
        load_dataset(path, now=NOW)


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("e.json", "", "the file is empty"),
        ("e.json", '{"test_cases": [', "invalid JSON at line 1"),
        ("e.yaml", "test_cases: [a\n", "invalid YAML"),
        ("e.jsonl", '{"question": 1}\nnot json\n', "line 2 is not valid JSON"),
        ("e.json", "[1, 2]", "case at test_cases[0]: expected an object, found int"),
        ("e.json", '{"cases": []}', "unknown top-level key 'cases'"),
        ("e.json", '{"test_cases": []}', "'test_cases' has no cases"),
        ("e.json", '"text"', "expected an object with 'test_cases'"),
        ("e.txt", "{}", "unknown file type '.txt'"),
        ("e.json", b"\xff\xfe{\x00", "not UTF-8 text"),
    ],
)
def test_unreadable_files(tmp_path: Path, name: str, content: str | bytes, expected: str) -> None:
    path = write(tmp_path, name, content)
    with pytest.raises(DatasetError) as info:
        load_dataset(path, now=NOW)
    assert expected in str(info.value)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="file not found"):
        load_dataset(tmp_path / "nope.json", now=NOW)


def test_missing_optional_fields_warn_once_per_field(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc(
            {"id": "a", "question": "q", "ground_truth": "g"},
            {"id": "b", "question": "q2", "ground_truth": "g", "expected_contexts": ["x.md"]},
            created="2026-11-20",
        ),
    )
    (warning,) = load_dataset(path, now=NOW).warnings
    assert "1 of 2 cases have no 'expected_contexts'" in warning and ": a" in warning


def test_staleness_by_metadata_created(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc(
            {"id": "a", "question": "q", "ground_truth": "g", "expected_contexts": []},
            created="2026-09-01",
        ),
    )
    (warning,) = load_dataset(path, now=NOW).warnings
    assert "82 days old (metadata.created 2026-09-01)" in warning


def test_staleness_by_mtime_when_no_created(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc({"id": "a", "question": "q", "ground_truth": "g", "expected_contexts": []}),
    )
    old = (NOW - dt.timedelta(days=45)).timestamp()
    os.utime(path, (old, old))
    (warning,) = load_dataset(path, now=NOW).warnings
    assert "45 days old (last modified" in warning
    os.utime(path, (NOW.timestamp(), NOW.timestamp()))
    assert load_dataset(path, now=NOW).warnings == []


def test_ids_shared_by_two_files_are_qualified_by_stem(tmp_path: Path) -> None:
    one = write(
        tmp_path,
        "one.json",
        doc(
            {"id": "tc_1", "question": "q", "ground_truth": "g"},
            {"id": "only", "question": "q", "ground_truth": "g"},
        ),
    )
    two = write(tmp_path, "two.json", doc({"id": "tc_1", "question": "q", "ground_truth": "g"}))
    collection = load_datasets([one, two], now=NOW)
    assert [c.key for c in collection.cases] == ["one/tc_1", "only", "two/tc_1"]
    assert [c.index for c in collection.cases] == [0, 1, 2]


def test_tag_filter_keeps_cases_with_any_tag(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc(
            {"id": "a", "question": "q", "ground_truth": "g", "tags": ["billing"]},
            {"id": "b", "question": "q", "ground_truth": "g", "tags": ["account", "ui"]},
            {"id": "c", "question": "q", "ground_truth": "g"},
        ),
    )
    selected = load_datasets([path], tags=["ui", "billing"], now=NOW)
    assert [c.key for c in selected.cases] == ["a", "b"]
    assert selected.total_cases == 3


def test_reading_datasets_leaves_the_cycle_collector_as_it_was(tmp_path: Path) -> None:
    """The collector is paused while datasets are read (speed), and is running again
    afterwards, also when a file is invalid; a process that had it off keeps it off."""
    import gc

    good = write(tmp_path, "good.json", doc({"id": "a", "question": "q?", "ground_truth": "g"}))
    bad = write(tmp_path, "bad.json", doc({"id": "a"}))
    assert gc.isenabled()
    assert [c.key for c in load_datasets([good]).cases] == ["a"]
    assert gc.isenabled()
    with pytest.raises(DatasetError):
        load_datasets([bad])
    assert gc.isenabled()
    gc.disable()
    try:
        load_datasets([good])
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{"n": ' + "7" * 4301 + "}", True),  # one digit over the limit
        ('{"n": ' + "7" * 4300 + "}", False),  # at the limit: Python reads it
        ('{"n": ' + "1234567890" * 500 + ', "q": "é"}', True),  # not ASCII: the pattern
        ('{"n": "' + "٣" * 4301 + '"}', True),  # Arabic-Indic digits count as digits too
        ('{"n": ' + "12 " * 3000 + "}", False),  # many short numbers
    ],
)
def test_long_digit_runs_are_found_in_any_text(text: str, found: bool) -> None:
    """Whether a file may hold an integer too long to read (then searched for it, and
    reported naming the field): the same answer for ASCII text, searched quickly, and other
    text, searched with the pattern."""
    from rag_eval_pytest.data import bigints

    assert bigints.may_hold_one(text) is found


def test_ground_truth_is_optional_and_null_is_the_same_as_absent(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc({"id": "a", "question": "q"}, {"id": "b", "question": "q2", "ground_truth": None}),
    )
    cases = load_dataset(path, now=NOW).cases
    assert [c.ground_truth for c in cases] == [None, None]


def test_an_empty_ground_truth_is_still_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "d.json", doc({"id": "a", "question": "q", "ground_truth": " "}))
    with pytest.raises(
        DatasetError,
        match=r"case 'a' \(test_cases\[0\]\): field 'ground_truth': "
        "must not be empty",
    ):
        load_dataset(path, now=NOW)


def test_the_ground_truth_notice_names_the_cases_and_metrics_in_one_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.json",
        doc(
            {"id": "has", "question": "q", "ground_truth": "g"},
            *({"id": f"c{i}", "question": f"q{i}"} for i in range(6)),
        ),
    )
    cases = load_datasets([path], now=NOW).cases
    notice = missing_ground_truth_notice(cases, ["context_recall", "answer_correctness"])
    assert notice == (
        "6 of 7 cases have no 'ground_truth'; the metrics that need one (context_recall, "
        "answer_correctness) are not judged for them: c0, c1, c2, c3, c4, …"
    )
    assert missing_ground_truth_notice(cases[:1], ["context_recall"]) is None
    assert missing_ground_truth_notice(cases, []) is None


def _many_cases(tmp_path: Path, cases: int) -> Path:
    rows = [
        {
            "id": f"c{i:05d}",
            "question": f"What is the refund policy of store {i}?",
            "ground_truth": f"Store {i} refunds within 30 days.",
            "expected_contexts": ["a.md", "b.md"],
            "answer": f"Store {i} refunds purchases within 30 days.",
            "contexts": [
                {"text": f"Store {i} refunds within 30 days of purchase.", "source": "a.md"},
                {"text": "Shipping takes five business days.", "source": "b.md"},
            ],
        }
        for i in range(cases)
    ]
    return write(tmp_path, "many.json", doc(*rows))


def test_loaded_cases_are_kept_packed_not_as_models(tmp_path: Path) -> None:
    """A loaded dataset kept every case's model (about 4 KB a case, 310 MB at 50,000 cases)
    until the end of the run; each is now kept in its compact form and made into its model
    when read, and the parsed rows are let go of while the models are made."""
    path = _many_cases(tmp_path, 2000)
    gc.collect()
    models_before = sum(type(o) is Case for o in gc.get_objects())  # other tests' own
    tracemalloc.start()
    try:
        collection = load_datasets([path], now=NOW)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    gc.collect()
    assert sum(type(o) is Case for o in gc.get_objects()) == models_before
    assert kept / 2000 < 2000 and peak / 2000 < 4000
    assert (
        collection.cases[1999].case.contexts[0].text
        == "Store 1999 refunds within 30 days of purchase."
    )
    assert collection.cases[5].case.expected_contexts == ["a.md", "b.md"]


def test_a_case_read_again_is_not_made_again_and_few_models_are_kept(tmp_path: Path) -> None:
    """A test reads its case some 8 times; each read made the model again from its packed
    form. The last few cases' models are kept: a case read again is the same model, and
    reading every case of a large dataset keeps no more than a few."""
    collection = load_datasets([_many_cases(tmp_path, 200)], now=NOW)
    first = collection.cases[7]
    assert first.case is first.case
    gc.collect()
    models_before = sum(type(o) is Case for o in gc.get_objects())
    read = [loaded.case.id for loaded in collection.cases]
    gc.collect()
    assert read == [f"c{i:05d}" for i in range(200)]
    assert sum(type(o) is Case for o in gc.get_objects()) - models_before <= 8
    assert collection.cases[199].case is collection.cases[199].case
