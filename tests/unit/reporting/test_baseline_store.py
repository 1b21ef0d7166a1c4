"""The cases earlier runs kept: one file per judge identity, each case's last judged score
per metric with its run, a flagged run keeping no score, and a file that is not one a run
writes refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_eval_pytest.reporting.baseline_store import (
    KeptCase,
    KeptScore,
    UnreadableStore,
    read_kept,
    store_path,
    updated,
    write_kept,
)
from tests.unit.reporting.test_baselines import record


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
    assert second.cases == {
        "a": KeptCase(
            metrics={
                "faithfulness": KeptScore(run="r2", score=0.7),
                "retrieval_recall": KeptScore(run="r1", score=1.0),
            }
        ),
        "b": KeptCase(metrics={"faithfulness": KeptScore(run="r1", score=0.8)}),
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
    assert read_kept(path) == flagged


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "is not JSON"),
        (b'{"version": 2, "cases": {', "is not JSON"),
        (b"\xff\xfe\x00", "is not JSON"),
        (b"[]", "is not a stored baseline of version 2"),
        (b'{"run_id": "r1", "scores": {}}', "is not a stored baseline of version 2"),
        (
            b'{"version": 2, "judge_identity": null, "cases": {"c1": {"metrics": '
            b'{"m": {"run": "r1", "score": "high"}}}}}',
            "case 'c1': metric 'm': score: Input should be a valid number (got 'high')",
        ),
        (
            b'{"version": 2, "judge_identity": null, "cases": {"c1": {"metrics": {}, "x": 1}}}',
            "case 'c1': x: Extra inputs are not permitted (got 1)",
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
        read_kept(path)
    assert str(raised.value).startswith(f"the stored baseline {path}")
    assert words in str(raised.value)


def test_a_missing_file_is_no_run_yet_and_an_endless_one_is_refused_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = store_path(tmp_path, "j")
    assert read_kept(path) is None
    monkeypatch.setattr("rag_eval_pytest.data.reading.MAX_FILE_BYTES", 1024 * 1024)
    path.parent.mkdir()
    path.symlink_to("/dev/zero")
    with pytest.raises(UnreadableStore, match="cannot be read: larger than 1 MiB"):
        read_kept(path)
