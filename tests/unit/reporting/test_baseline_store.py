"""The cases earlier runs kept: one file per judge identity, each case's last judged score
per metric with its run, a flagged run keeping no score, and a file that is not one a run
writes refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_eval_pytest.reporting.baseline_store import (
    KeptCase,
    UnreadableStore,
    payload_content,
    read_kept,
    store_path,
    updated,
    write_kept,
)
from tests.unit.reporting.test_baselines import passed_score, record


def test_each_judge_identity_has_its_own_file(tmp_path: Path) -> None:
    one, other, none = (store_path(tmp_path, j) for j in ("abc passes=1", "abc passes=3", None))
    assert len({one, other, none}) == 3
    assert one.parent == tmp_path / "baselines" and one.name.startswith("judge-")
    assert store_path(tmp_path, "abc passes=1") == one


def test_a_run_replaces_what_it_judged_and_leaves_the_rest(tmp_path: Path) -> None:
    first = updated(
        None,
        "j",
        [record("a", faithfulness=0.9, retrieval_recall=1.0), record("b", faithfulness=0.8)],
        {"a": [["r1", "h", "passed"]]},
        run_id="r1",
        scores=True,
    )
    # A -k run of one test: case a's faithfulness only; its recall and case b stay as r1 left
    # them, and a metric it could not judge keeps the score judged before.
    second = updated(
        first,
        "j",
        [record("a", faithfulness=0.7, retrieval_recall=None)],
        {"a": [["r1", "h", "passed"], ["r2", "h", "passed"]]},
        run_id="r2",
        scores=True,
    )
    content = payload_content(record("a").payload)
    assert second.cases == {
        "a": KeptCase(
            content=content,
            metrics={
                "faithfulness": passed_score("r2", 0.7),
                "retrieval_recall": passed_score("r1", 1.0, stable=True),
            },
        ),
        "b": KeptCase(
            content=payload_content(record("b").payload),
            metrics={"faithfulness": passed_score("r1", 0.8)},
        ),
    }
    flagged = updated(
        second, "j", [record("b", faithfulness=0.1)], {"b": [["r3", "h", "failed"]]},
        run_id="r3", scores=False,
    )  # fmt: skip
    assert flagged.cases == second.cases
    assert (first.runs, second.runs, flagged.runs) == (["r1"], ["r1", "r2"], ["r1", "r2"])
    assert flagged.outcomes["b"] == [["r3", "h", "failed"]]
    path = store_path(tmp_path, "j")
    write_kept(path, flagged)
    kept = read_kept(path, "j")
    assert kept is not None and kept.of() == flagged.model_copy(update={"stored_cases": 2})
    # A case whose question changed is another case: what was kept of it goes.
    edited = record("a", faithfulness=0.5)
    edited.payload["question"] = "another question?"
    third = updated(flagged, "j", [edited], {}, run_id="r4", scores=True)
    assert third.cases["a"] == KeptCase(
        content=payload_content(edited.payload),
        metrics={"faithfulness": passed_score("r4", 0.5)},
    )
    assert payload_content(edited.payload) != content


HEADER = b'{"version": 3, "judge_identity": "j"}\n'
END = b'{"runs": ["r1"]}\n'


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "is not JSON Lines"),
        (HEADER + b'{"key": "c1", "case": {', "is not JSON Lines"),
        (
            HEADER + b'{"key": "c1", "case": {"content": "x"}}\n',
            "is cut short: it has no last line",
        ),
        (HEADER + END + END, "holds lines after its last"),
        (b"\xff\xfe\x00", "is not JSON Lines"),
        (b"[]", "is not a stored baseline of version 3"),
        (b'{"run_id": "r1", "scores": {}}', "is not a stored baseline of version 3"),
        (
            b'{"version":2,"judge_identity":"j","cases":{"c1":{"metrics":{}}},"runs":[]}',
            "(version 2): cases.c1.content: Field required",
        ),
        (
            HEADER + b'{"key": "c1", "case": {"content": "x", '
            b'"metrics": {"m": {"run": "r1", "score": "high"}}}}\n' + END,
            "case 'c1': metric 'm': score: Input should be a valid number (got 'high')",
        ),
        (
            HEADER + b'{"key": "c1", "case": {"metrics": {}}}\n' + END,
            "case 'c1': content: Field required",
        ),
        (
            b'{"version": 3, "judge_identity": "other"}\n' + END,
            "was kept for judge identity other, not this run's (j)",
        ),
    ],
)
def test_a_file_a_run_does_not_write_is_refused_by_name(
    tmp_path: Path, content: bytes, words: str
) -> None:
    path = store_path(tmp_path, "j")
    path.parent.mkdir()
    path.write_bytes(content)
    with pytest.raises(UnreadableStore) as raised:
        read_kept(path, "j")
    assert str(raised.value).startswith(f"the stored baseline {path}")
    assert words in str(raised.value)


def test_a_missing_file_is_no_run_yet_and_an_endless_one_is_refused_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = store_path(tmp_path, "j")
    assert read_kept(path, "j") is None
    monkeypatch.setattr("rag_eval_pytest.data.reading.MAX_FILE_BYTES", 1024 * 1024)
    path.parent.mkdir()
    path.symlink_to("/dev/zero")
    with pytest.raises(UnreadableStore, match="is not JSON Lines"):  # its first 64 KB
        read_kept(path, "j")
    path.unlink()
    line = b'{"key": "c", "outcomes": [["r1", "h", "passed"]]}\n'
    path.write_bytes(HEADER + line * (1024 * 1024 // len(line) + 1) + END)
    with pytest.raises(UnreadableStore, match="cannot be read: larger than 1 MiB"):
        read_kept(path, "j")


def test_a_file_of_release_0_1_0_is_read_and_rewritten_as_json_lines(tmp_path: Path) -> None:
    kept = updated(
        None, "j", [record("a", faithfulness=0.9)], {"a": [["r1", "h", "passed"]]},
        run_id="r1", scores=True,
    )  # fmt: skip
    path = store_path(tmp_path, "j")
    path.parent.mkdir()
    old = kept.model_dump(mode="json", exclude={"stored_cases"}) | {"version": 2}
    path.write_text(json.dumps(old, separators=(",", ":")), encoding="utf-8")
    store = read_kept(path, "j")
    assert store is not None and store.of() == kept.model_copy(update={"stored_cases": 1})
    assert path.read_text().splitlines()[0] == '{"version":3,"judge_identity":"j"}'
