"""One run's noise check: its judge-flaky cases (an outcome that flipped twice with the same
answer and contexts), its comparison with the history, and what it keeps: a run flagged as a
regression keeps no score, a stored baseline someone edited is named, not compared."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from rag_eval_pytest.config.settings import RegressionSettings
from rag_eval_pytest.reporting.baseline_store import (
    KeptCase,
    KeptRuns,
    payload_content,
    read_kept,
    store_path,
    write_kept,
)
from rag_eval_pytest.reporting.baselines import NO_HISTORY
from rag_eval_pytest.reporting.noise import (
    check_noise,
    content_hash,
    flaky_cases,
    flips,
    outcomes_after,
)
from tests.unit.reporting.test_baselines import passed_score, record


def test_the_content_hash_follows_the_answer_and_contexts_only() -> None:
    one = record("a", answer="Paris").payload
    assert content_hash(one) == content_hash(record("b", "failed", answer="Paris").payload)
    assert content_hash(one) != content_hash(record("a", answer="Lyon").payload)


def test_flips_count_pass_fail_changes_on_the_latest_answer_only() -> None:
    assert flips([]) == 0
    assert flips([["r1", "h", "passed"], ["r2", "h", "failed"], ["r3", "h", "passed"]]) == 2
    # Another answer's outcomes do not count; neither do errors or skips.
    history = [
        ["r1", "old", "failed"],
        ["r2", "h", "passed"],
        ["r3", "h", "error"],
        ["r4", "h", "passed"],
    ]
    assert flips(history) == 0


def test_a_case_is_flaky_after_two_flips() -> None:
    outcomes = {
        "flaky": [["r1", "h", "passed"], ["r2", "h", "failed"], ["r3", "h", "passed"]],
        "once": [["r1", "h", "passed"], ["r2", "h", "failed"]],
    }
    assert flaky_cases(outcomes) == {"flaky": "passed, failed, passed"}


def test_outcomes_keep_the_last_window_with_this_run_last() -> None:
    rec = record("a", "failed")
    kept = KeptRuns(
        version=3,
        judge_identity=None,
        outcomes={"a": [["r1", "x", "passed"], ["r2", "x", "failed"], "junk", ["r3", "x"]]},
    )
    outcomes = outcomes_after(kept, [rec], "r9", window=2)
    assert outcomes == {"a": [["r2", "x", "failed"], ["r9", content_hash(rec.payload), "failed"]]}
    assert outcomes_after(None, [rec], "r1", 5)["a"][0][0] == "r1"


def test_check_noise_quarantines_a_flaky_failing_case_and_stores_the_run(tmp_path: Path) -> None:
    hashed = content_hash(record("a").payload)
    stored = {"r1": "passed", "r2": "failed", "r3": "passed"}
    path = store_path(tmp_path, "j")
    write_kept(
        path,
        KeptRuns(
            version=3,
            judge_identity="j",
            outcomes={"a": [[run, hashed, status] for run, status in stored.items()]},
        ),
    )
    settings = RegressionSettings(flaky="quarantine", fail=True)
    noise = check_noise(
        settings, tmp_path, "j", "r4", [record("a", "failed", faithfulness=0.2), record("b")]
    )
    assert noise.flaky == {"a": "passed, failed, passed, failed"}
    assert noise.quarantined == {"a": 1}
    assert noise.comparison is not None and noise.comparison.not_compared == NO_HISTORY
    assert noise.failing() == ()  # nothing regressed
    noise.store()
    store = read_kept(path, "j")
    assert store is not None
    kept = store.of()
    assert kept.cases == {
        "a": KeptCase(
            content=payload_content(record("a").payload),
            metrics={"faithfulness": passed_score("r4", 0.2)},
        )
    }
    assert kept.outcomes["a"][-1] == ["r4", hashed, "failed"]


def test_check_noise_without_a_baseline_compares_nothing(tmp_path: Path) -> None:
    noise = check_noise(RegressionSettings(baseline="none"), tmp_path, "j", "r1", [record("a")])
    assert noise.comparison is None and noise.regressions == [] and noise.quarantined == {}


def test_a_run_flagged_as_a_regression_keeps_no_score(tmp_path: Path) -> None:
    settings = RegressionSettings(fail=True)
    good = [record(f"c{i}", faithfulness=0.9) for i in range(6)]
    check_noise(settings, tmp_path, "j", "r1", good).store()
    bad = [record(f"c{i}", "failed", faithfulness=0.2) for i in range(6)]
    flagged = check_noise(settings, tmp_path, "j", "r2", bad)
    assert flagged.failing() and flagged.comparison is not None and flagged.comparison.flagged
    flagged.store()
    # The same build again is compared with r1, not with the run that regressed.
    again = check_noise(settings, tmp_path, "j", "r3", bad)
    assert again.comparison is not None and again.comparison.baseline == "history: run r1"
    assert again.failing()
    kept = read_kept(store_path(tmp_path, "j"), "j")
    assert kept is not None and kept.of().outcomes["c0"][-1][0] == "r2"  # its outcomes are kept


def test_a_stored_baseline_with_a_score_that_is_not_a_number_does_not_end_the_run(
    tmp_path: Path,
) -> None:
    path = store_path(tmp_path, "j")
    path.parent.mkdir()
    records = [record(key, faithfulness=0.5) for key in "abcdef"]
    for value, error in (
        ("high", "Input should be a valid number (got 'high')"),
        (float("nan"), "Input should be a finite number (got nan)"),
        (True, "Input should be a valid number (got True)"),
        (5, "Input should be less than or equal to 1 (got 5)"),
    ):
        entry = {"run": "r1", "score": 0.5, "status": "passed", "threshold": 0.5, "stable": True}
        cases = {key: {"content": "x", "metrics": {"faithfulness": entry}} for key in "ac"}
        cases["b"] = {"content": "x", "metrics": {"faithfulness": entry | {"score": value}}}
        lines = [{"version": 3, "judge_identity": "j"}]
        lines += [{"key": key, "case": kept} for key, kept in sorted(cases.items())]
        lines.append({"runs": ["r1"]})
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        noise = check_noise(RegressionSettings(), tmp_path, "j", "r2", records)
        # Not compared, with the file, the case and the value named: a gate on a baseline
        # someone edited is no gate (fatal under --rag-fail-on-regression).
        assert noise.comparison is not None and noise.comparison.unusable
        assert noise.comparison.not_compared == (
            f"the stored baseline {path}: case 'b': metric 'faithfulness': score: {error}"
        )
        assert noise.unusable() is None  # reported, not fatal, without the gate


def test_a_run_is_stored_one_case_at_a_time(tmp_path: Path) -> None:
    """The store of 5,000 cases, kept and judged again: built whole before it was written
    (models, their JSON data, the text), it held each case three times over at once."""
    settings = RegressionSettings()
    records = [record(f"case-{i:04d}", faithfulness=0.9) for i in range(5000)]
    check_noise(settings, tmp_path, "j", "r1", records).store()
    noise = check_noise(settings, tmp_path, "j", "r2", records)
    tracemalloc.start()
    try:
        noise.store()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    store = read_kept(store_path(tmp_path, "j"), "j")
    assert store is not None and store.stored_cases == 5000
    kept = store.of()
    assert len(kept.cases) == 5000 and kept.runs == ["r2"]
    assert kept.cases["case-4999"].metrics["faithfulness"].run == "r2"
    assert kept.outcomes["case-0000"][-1][0] == "r2" and len(kept.outcomes["case-0000"]) == 2
    assert peak < 1_000_000  # whole, 10 MB


def test_a_run_reads_the_kept_cases_one_at_a_time(tmp_path: Path) -> None:
    """A run of 10 cases against the 5,000 cases earlier runs kept: the kept file was read
    whole (its text, its JSON data and its models at once: about 4 KB a case, 40 MB at 10,000
    cases); it is read a line at a time, and the run keeps what it holds of its own cases."""
    settings = RegressionSettings()
    kept = [record(f"case-{i:04d}", faithfulness=0.9) for i in range(5000)]
    check_noise(settings, tmp_path, "j", "r1", kept).store()
    subset = [record(f"case-{i:04d}", faithfulness=0.8) for i in range(0, 5000, 500)]
    tracemalloc.start()
    try:
        noise = check_noise(settings, tmp_path, "j", "r2", subset)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert noise.comparison is not None and noise.comparison.baseline == "history: run r1"
    (change,) = noise.comparison.changes
    assert (change.metric, change.cases, change.before) == ("faithfulness", 10, 0.9)
    assert peak < 500_000  # whole, 15 MB
