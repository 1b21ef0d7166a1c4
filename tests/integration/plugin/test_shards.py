"""Sharding for CI matrices and merging the shards' reports."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.cli import main
from rag_eval_pytest.reporting.models import cases_digest
from tests.helpers import case, read_report

CONFIG = "metrics:\n  retrieval_recall: null\n"


def cases() -> list[dict[str, Any]]:
    return [
        case(
            f"c{i}",
            "refund policy?" if i % 3 else "deliver abroad?",
            expected_contexts=["policy.md"],
            critical=i in (0, 4),
            tags=[f"t{i % 2}"],
        )
        for i in range(7)
    ]


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str


def merge(capsys: pytest.CaptureFixture[str], *args: str) -> Done:
    """``rag-eval merge ARGS`` in the test's folder (pytester's), in this process (the
    command's own process is tested with ``rag-eval convert`` and ``calibrate``)."""
    capsys.readouterr()
    code = main(["merge", *args])
    captured = capsys.readouterr()
    return Done(code, captured.out, captured.err)


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    report["run"] = None
    report.pop("trend")  # each output directory has its own history
    report.pop("comparison", None)  # and its own baseline (a merge compares with none)
    report.pop("integrity")  # the digest of the cases, their latencies with them
    report["summary"]["latency"] = None
    for c in report["cases"]:
        c["latency_s"] = None
    return report


def test_shards_split_the_cases_and_merge_into_the_full_report(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(cases())
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    base = ("--rag-dataset", "dataset.json", "--rag-target", rag_app, "-p", "no:randomly")
    full = pytester.runpytest(*base, "--rag-output-dir", "full")
    assert full.ret == 2
    shard_keys = []
    for index in (1, 2, 3):
        result = pytester.runpytest(
            *base, "--rag-shard", f"{index}/3", "--rag-output-dir", f"s{index}"
        )
        report = read_report(pytester, f"s{index}")
        assert report["run"]["shard"] == f"{index}/3"
        shard_keys.append([c["key"] for c in report["cases"]])
        assert result.ret in (0, 1, 2)
    assert shard_keys == [["c0", "c3", "c6"], ["c1", "c4"], ["c2", "c5"]]

    done = merge(
        capsys,
        "s1/eval_report.json",
        "s2/eval_report.json",
        "s3/eval_report.json",
        "--output-dir",
        "merged",
    )
    assert done.returncode == 2, done.stderr
    assert "merged 3 reports: 7 cases" in done.stdout
    assert (
        "rag-eval: exit 2: critical cases c0, c3 failed" in done.stdout or "exit 2" in done.stdout
    )
    merged = read_report(pytester, "merged")
    assert comparable(merged) == comparable(read_report(pytester, "full"))
    assert (pytester.path / "merged" / "eval_report.md").exists()
    assert (pytester.path / "merged" / "eval_report.html").exists()
    assert "wrote merged/eval_report.html" in done.stdout
    assert len((pytester.path / "merged" / "results.jsonl").read_text().splitlines()) == 1
    # Laid out like a run's own report: one line per case.
    merged_text = (pytester.path / "merged" / "eval_report.json").read_text()
    assert sum(line.startswith('    {"key": ') for line in merged_text.splitlines()) == 7


def test_merge_refuses_overlapping_shards_and_bad_files(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(cases())
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    twice = merge(
        capsys, "results/eval_report.json", "results/eval_report.json", "--output-dir", "merged"
    )
    assert twice.returncode == 3
    assert "results/eval_report.json: the same run as results/eval_report.json, given twice" in (
        twice.stderr
    )
    (pytester.path / "junk.json").write_text(json.dumps({"hello": 1}))
    junk = merge(capsys, "junk.json", "--output-dir", "merged")
    assert junk.returncode == 3
    assert "junk.json: not an eval_report.json" in junk.stderr


def run_shards(pytester: pytest.Pytester, rag_app: str, *shards: str) -> None:
    for shard in shards:
        pytester.runpytest(
            "--rag-dataset", "dataset.json", "--rag-target", rag_app, "-p", "no:randomly",
            "--rag-shard", f"{shard}/3", "--rag-output-dir", f"s{shard}",
        )  # fmt: skip


def test_a_merge_that_lacks_a_shard_is_fatal_unless_allowed_and_then_partial(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(cases())
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    run_shards(pytester, rag_app, "1", "2")
    shards = ("s1/eval_report.json", "s2/eval_report.json", "--output-dir", "merged")
    refused = merge(capsys, *shards)
    assert refused.returncode == 3
    assert "missing shard 3/3" in refused.stderr
    assert "--allow-partial" in refused.stderr
    assert not (pytester.path / "merged").exists()

    allowed = merge(capsys, *shards, "--allow-partial")
    assert "warning: partial merge: missing shard 3/3" in allowed.stderr
    report = read_report(pytester, "merged")
    assert report["run"]["partial"] is True
    assert len(report["cases"]) == 5
    assert "partial merge: missing shard 3/3" in report["warnings"]
    history = json.loads((pytester.path / "merged" / "results.jsonl").read_text())
    assert history["partial"] is True


def test_a_merge_of_a_shard_twice_or_of_different_datasets_is_fatal(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(cases())
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    run_shards(pytester, rag_app, "1", "2", "3")
    (pytester.path / "s1" / "eval_report.json").rename(pytester.path / "first.json")
    run_shards(pytester, rag_app, "1")  # shard 1 again, a second run of it
    both = ("first.json", "s1/eval_report.json", "s2/eval_report.json", "s3/eval_report.json")
    twice = merge(capsys, *both)
    assert twice.returncode == 3
    assert "s1/eval_report.json: shard 1/3 is also in first.json" in twice.stderr

    write_dataset([*cases(), case("c7", "refund policy?", expected_contexts=["policy.md"])])
    run_shards(pytester, rag_app, "3")  # shard 3 of another dataset
    mixed = merge(capsys, "first.json", "s2/eval_report.json", "s3/eval_report.json")
    assert mixed.returncode == 3
    assert "runs of different datasets: content " in mixed.stderr


def test_a_merge_never_writes_over_a_shard_and_replaces_its_reports_only_when_forced(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(cases())
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    run_shards(pytester, rag_app, "1", "2", "3")
    shards = [f"s{i}/eval_report.json" for i in (1, 2, 3)]
    (pytester.path / "linked").mkdir()
    (pytester.path / "linked" / "eval_report.json").symlink_to(
        pytester.path / "s2/eval_report.json"
    )
    kept = {path: path.read_bytes() for path in pytester.path.glob("s*/*") if path.is_file()}
    for out, shard in (("s1", "s1/eval_report.json"), ("linked", "s2/eval_report.json")):
        done = merge(capsys, *shards, "--output-dir", out, "--force")
        assert done.returncode == 3
        assert done.stderr == (
            f"rag-eval merge: {out}/eval_report.json: the merged report is the input file "
            f"{shard}; give another --output-dir\n"
        )
    assert {path: path.read_bytes() for path in kept} == kept
    assert [p.name for p in (pytester.path / "linked").iterdir()] == ["eval_report.json"]

    assert merge(capsys, *shards, "--output-dir", "m").returncode == 2
    again = merge(capsys, *shards, "--output-dir", "m")
    assert again.returncode == 3
    assert again.stderr == (
        "rag-eval merge: m/eval_report.json: already exists; give --force to replace it\n"
    )
    assert len((pytester.path / "m" / "results.jsonl").read_text().splitlines()) == 1
    assert merge(capsys, *shards, "--output-dir", "m", "--force").returncode == 2
    assert len((pytester.path / "m" / "results.jsonl").read_text().splitlines()) == 2


def edit_report(path: Path, edit: Callable[[dict[str, Any]], object]) -> None:
    report = json.loads(path.read_text(encoding="utf-8"))
    edit(report)
    path.write_text(json.dumps(report), encoding="utf-8")


def pass_case(report: dict[str, Any], key: str) -> None:
    """Mark the case ``key`` passed: its status, its tests' outcomes, its metrics'."""
    (found,) = [c for c in report["cases"] if c["key"] == key]
    found["status"] = "passed"
    for test in found["tests"]:
        test.update(outcome="passed", message=None)
    for result in found["metrics"].values():
        result["status"] = "passed"


def test_a_shard_with_cases_removed_or_edited_after_its_run_is_refused(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(cases())
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    run_shards(pytester, rag_app, "1", "2", "3")
    shards = [f"s{i}/eval_report.json" for i in (1, 2, 3)]
    assert [c["key"] for c in read_report(pytester, "s1")["cases"]] == ["c0", "c3", "c6"]
    pristine = (pytester.path / shards[0]).read_text(encoding="utf-8")
    regenerate = "; run its shard again to write it anew\n"

    # The failing critical c0 taken out: the merge used to pass on the 6 cases left.
    edit_report(pytester.path / shards[0], lambda r: r["cases"].pop(0))
    removed = merge(capsys, *shards, "--output-dir", "merged")
    assert removed.returncode == 3
    assert removed.stderr == (
        "rag-eval merge: s1/eval_report.json: holds 2 cases where its run wrote 3: cases were "
        f"removed or added after the run{regenerate}"
    )
    # c0 marked passed, its tests and its retrieval_recall of 0 with it.
    (pytester.path / shards[0]).write_text(pristine, encoding="utf-8")
    edit_report(pytester.path / shards[0], lambda r: pass_case(r, "c0"))
    edited = merge(capsys, *shards, "--output-dir", "merged")
    assert edited.returncode == 3
    assert edited.stderr == (
        "rag-eval merge: s1/eval_report.json: its cases are not the ones its run wrote (their "
        f"digest differs: edited after the run){regenerate}"
    )
    # A report of an earlier version has no digest to check.
    (pytester.path / shards[0]).write_text(pristine, encoding="utf-8")
    edit_report(pytester.path / shards[1], lambda r: r.pop("integrity"))
    earlier = merge(capsys, *shards, "--output-dir", "merged")
    assert earlier.returncode == 3
    assert earlier.stderr == (
        "rag-eval merge: s2/eval_report.json: written by an earlier version, without the count "
        f"and digest of its cases that rag-eval merge checks{regenerate}"
    )
    assert not (pytester.path / "merged").exists()


def test_a_merge_decides_each_metric_from_its_score_not_from_the_status_a_shard_stored(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(cases())
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    run_shards(pytester, rag_app, "1", "2", "3")
    shards = [f"s{i}/eval_report.json" for i in (1, 2, 3)]
    assert merge(capsys, *shards, "--output-dir", "honest").returncode == 2

    def forge(report: dict[str, Any]) -> None:
        """c3's retrieval_recall of 0 stored as passed, with a digest that matches."""
        (c3,) = [c for c in report["cases"] if c["key"] == "c3"]
        recall = c3["metrics"]["retrieval_recall"]
        assert (recall["score"], recall["status"]) == (0.0, "failed")
        recall["status"] = "passed"
        report["integrity"]["cases_sha256"] = cases_digest(report["cases"])

    edit_report(pytester.path / shards[0], forge)
    done = merge(capsys, *shards, "--output-dir", "merged")
    assert done.returncode == 2, done.stderr
    merged, honest = read_report(pytester, "merged"), read_report(pytester, "honest")
    (c3,) = [c for c in merged["cases"] if c["key"] == "c3"]
    assert c3["metrics"]["retrieval_recall"]["status"] == "failed"
    recall = merged["summary"]["metrics"]["retrieval_recall"]
    assert recall == honest["summary"]["metrics"]["retrieval_recall"]
    assert recall["failed"] == 3


@pytest.mark.parametrize("bad", ["0/3", "4/3", "x", "1/0"])
def test_a_bad_shard_is_fatal(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path], bad: str
) -> None:
    write_dataset(cases())
    result = pytester.runpytest("--rag-dataset", "dataset.json", "--rag-shard", bad)
    assert result.ret == 3
    result.stderr.fnmatch_lines([f"Exit: rag-eval: --rag-shard: '{bad}' is not a shard*"])


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda r: r.pop("summary"), "complete eval_report.json: it has no 'summary'"),
        (
            lambda r: r["summary"].pop("latency"),
            "complete eval_report.json: it has no 'summary.latency'",
        ),
        (lambda r: r.update(cases={"a": 1}), "complete eval_report.json: 'cases' is not a list"),
        (
            lambda r: r["cases"][0].pop("tests"),
            "complete eval_report.json: it has no 'cases[0].tests'",
        ),
        (
            lambda r: r["run"].pop("datasets"),
            "complete eval_report.json: it has no 'run.datasets'",
        ),
        (
            lambda r: r["cases"][0].update(latency_s="slow"),
            "valid eval_report.json: 'cases[0].latency_s': Input should be a valid number "
            "(got 'slow')",
        ),
        (
            lambda r: r["cases"][0]["metrics"]["retrieval_recall"].update(status="great"),
            "valid eval_report.json: 'cases[0].metrics.retrieval_recall.status': Input should be "
            "'passed', 'failed' or 'not_judged' (got 'great')",
        ),
    ],
    ids=[
        *("no-summary", "no-latency", "cases-not-a-list", "case-without-tests", "no-datasets"),
        *("latency-not-a-number", "unknown-metric-status"),
    ],
)
def test_a_report_missing_a_part_is_one_message_naming_the_file_and_the_part(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    damage: Callable[[dict[str, Any]], object],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_dataset(cases())
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    pytester.runpytest("--rag-dataset", "dataset.json", "--rag-target", rag_app)
    report = read_report(pytester)
    damage(report)
    (pytester.path / "cut.json").write_text(json.dumps(report))
    done = merge(capsys, "cut.json", "--output-dir", "merged")
    assert done.returncode == 3
    assert f"cut.json: not a {message}" in done.stderr
    assert "Traceback" not in done.stderr and "KeyError" not in done.stderr
    assert not (pytester.path / "merged").exists()


def test_a_shard_without_cases_passes_and_its_report_completes_the_merge(
    pytester: pytest.Pytester,
    write_dataset: Callable[..., Path],
    rag_app: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A fixed CI matrix of 4 jobs over a dataset of 3 cases: the 4th shard holds none.
    write_dataset(cases()[:3])
    pytester.makefile(".yaml", **{"eval-config": CONFIG})
    base = ("--rag-dataset", "dataset.json", "--rag-target", rag_app, "-p", "no:randomly")
    empty = pytester.runpytest(*base, "--rag-shard", "4/4", "--rag-output-dir", "s4")
    assert empty.ret == 0, empty.stdout.str()  # pytest alone says 5, "no tests collected"
    empty.stdout.fnmatch_lines(
        ["rag-eval: exit 0: shard 4/4 holds none of the 3 cases: its report has no case, *"]
    )
    report = read_report(pytester, "s4")
    assert (report["run"]["shard"], report["cases"]) == ("4/4", [])
    assert not (pytester.path / "s4" / "results.jsonl").exists()  # no empty point in the trend

    for index in (1, 2, 3):
        pytester.runpytest(*base, "--rag-shard", f"{index}/4", "--rag-output-dir", f"s{index}")
    reports = [f"s{i}/eval_report.json" for i in (1, 2, 3, 4)]
    done = merge(capsys, *reports, "--output-dir", "m")
    assert "merged 4 reports: 3 cases" in done.stdout, done.stderr
    merged = read_report(pytester, "m")
    assert [c["key"] for c in merged["cases"]] == ["c0", "c1", "c2"]
    assert merged["run"]["pytest_exit"] == 1  # shard 1's failed test; not the empty one's 5
    assert done.returncode == merged["run"]["exit_code"] == 2  # c0 is critical and fails
