"""Baselines and judge-flaky cases: this run's case scores against the last run of the same
selection (or a report), a regression only for a significant drop of at least ``min_drop``,
and a case flaky when its outcome flipped twice with the same answer and contexts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rag_eval_pytest.config.settings import RegressionSettings
from rag_eval_pytest.metrics.base import MetricResult
from rag_eval_pytest.reporting.baseline_store import (
    KeptCase,
    KeptRuns,
    KeptScore,
    UnreadableStore,
    payload_content,
    read_kept,
    store_path,
    write_kept,
)
from rag_eval_pytest.reporting.baselines import (
    NO_HISTORY,
    Baseline,
    NotCompared,
    case_scores,
    check_noise,
    compare,
    content_hash,
    describe,
    flaky_cases,
    flips,
    history_baseline,
    load_baseline,
    outcomes_after,
    unusable_reason,
)
from rag_eval_pytest.reporting.collector import CaseRecord


def record(
    key: str, outcome: str = "passed", answer: str = "a", **scores: float | None
) -> CaseRecord:
    payload: Any = {
        "schema": 1, "key": key, "id": key, "index": 0, "dataset": "d.json", "question": "q",
        "ground_truth": "g", "critical": False, "tags": [], "expected_contexts": None,
        "recorded": False, "answer": answer, "contexts": [{"text": "c", "source": None}],
        "sources": [], "latency": None, "error": None, "adapter": None, "metrics": [],
    }  # fmt: skip
    rec = CaseRecord(payload=payload)
    for name, score in scores.items():
        status = "not_judged" if score is None else "passed"
        rec.add_metric(
            MetricResult(case=key, metric=name, status=status, score=score, threshold=None)
        )
    rec.add_test(f"t::{key}", outcome, None)  # type: ignore[arg-type]
    return rec


def test_case_scores_keep_only_judged_scores() -> None:
    scores = case_scores(
        [record("a", faithfulness=0.9, context_recall=None), record("b", faithfulness=0.5)]
    )
    assert scores == {"faithfulness": {"a": 0.9, "b": 0.5}}


def test_the_content_hash_follows_the_answer_and_contexts_only() -> None:
    one = record("a", answer="Paris").payload
    assert content_hash(one) == content_hash(record("b", "failed", answer="Paris").payload)
    assert content_hash(one) != content_hash(record("a", answer="Lyon").payload)


def test_a_consistent_drop_is_a_regression_and_described() -> None:
    before = Baseline("history: run r1", "r1", {"faithfulness": {f"c{i}": 0.9 for i in range(10)}})
    after = {"faithfulness": {f"c{i}": 0.6 for i in range(10)}, "new_metric": {"c0": 1.0}}
    comparison = compare(before, after, alpha=0.05, min_drop=0.05)
    (change,) = comparison.changes  # only the metric both runs scored
    # Every case dropped by 0.3: of the 2^10 sign patterns only the two uniform ones are as
    # extreme, p = 2 / 1024, kept to 4 places.
    assert change.p_value == round(2 / 1024, 4)
    assert change.regression and change.significant
    assert comparison.regressions == [change]
    assert describe(change) == (
        "faithfulness 0.90 -> 0.60 (-0.30, 95 % -0.30 to -0.30, p=0.002, 10 cases)"
    )


def test_a_significant_drop_smaller_than_min_drop_is_no_regression() -> None:
    before = Baseline("b", "r1", {"m": {f"c{i}": 0.9 for i in range(10)}})
    after = {"m": {f"c{i}": 0.88 for i in range(10)}}
    (change,) = compare(before, after, alpha=0.05, min_drop=0.05).changes
    assert change.significant and not change.regression


def test_nothing_to_compare_says_why() -> None:
    missing = compare(NotCompared(NO_HISTORY, unusable=False), {}, alpha=0.05, min_drop=0.05)
    assert (missing.baseline, missing.not_compared, missing.changes, missing.unusable) == (
        "none",
        NO_HISTORY,
        [],
        False,
    )
    one_case = compare(
        Baseline("b", "r1", {"m": {"c0": 1.0}}), {"m": {"c0": 0.0}}, alpha=0.05, min_drop=0.05
    )
    assert one_case.not_compared == (
        "the baseline b: no metric was scored on 2 or more of the same cases"
    )
    other_cases = compare(
        Baseline("main.json", "r1", {"m": {"x0": 1.0, "x1": 1.0}}, named=True),
        {"m": {"c0": 0.0, "c1": 0.0}},
        alpha=0.05,
        min_drop=0.05,
    )
    assert other_cases.not_compared == (
        "the baseline main.json has no scored case in common with this run (2 scored there, 2 here)"
    )
    assert other_cases.unusable


def test_an_unusable_baseline_fails_the_gate_and_a_first_run_does_not() -> None:
    unreadable = NotCompared("the baseline cannot be read: main.json: file not found")
    gated = compare(unreadable, {}, alpha=0.05, min_drop=0.05, gate=True)
    assert unusable_reason(gated) == (
        "--rag-fail-on-regression, and no comparison: the baseline cannot be read: "
        "main.json: file not found"
    )
    assert unusable_reason(compare(unreadable, {}, alpha=0.05, min_drop=0.05)) is None
    first = compare(NotCompared(NO_HISTORY, unusable=False), {}, alpha=0.05, min_drop=0.05)
    assert unusable_reason(first.model_copy(update={"gate": True})) is None


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
        version=2,
        judge_identity=None,
        outcomes={"a": [["r1", "x", "passed"], ["r2", "x", "failed"], "junk", ["r3", "x"]]},
    )
    outcomes = outcomes_after(kept, [rec], "r9", window=2)
    assert outcomes == {"a": [["r2", "x", "failed"], ["r9", content_hash(rec.payload), "failed"]]}
    assert outcomes_after(None, [rec], "r1", 5)["a"][0][0] == "r1"


def test_load_baseline_from_history_or_a_report(tmp_path: Path) -> None:
    assert load_baseline("history", None) == NotCompared(NO_HISTORY, unusable=False)
    kept = KeptRuns(
        version=2,
        judge_identity="j",
        cases={"c0": KeptCase(content="x", metrics={"m": KeptScore(run="r1", score=1)})},
    )
    baseline = load_baseline("history", kept)
    assert isinstance(baseline, Baseline)
    assert (baseline.scores, baseline.runs) == ({"m": {"c0": 1.0}}, {"m": {"c0": "r1"}})
    unreadable = load_baseline("history", UnreadableStore("the stored baseline x is not JSON"))
    assert unreadable == NotCompared("the stored baseline x is not JSON")
    missing = load_baseline(str(tmp_path / "nope.json"), None)
    assert isinstance(missing, NotCompared) and missing.unusable
    assert missing.reason == (
        f"the baseline cannot be read: {tmp_path / 'nope.json'}: file not found"
    )


def test_the_history_is_named_by_the_runs_its_compared_scores_came_from() -> None:
    kept = KeptRuns(
        version=2,
        judge_identity="j",
        runs=["r9", "r1"],  # oldest first, whatever their names
        cases={
            f"c{i}": KeptCase(
                content="x", metrics={"m": KeptScore(run="r1" if i < 2 else "r9", score=1)}
            )
            for i in range(4)
        },
    )
    baseline = history_baseline(kept)
    subset = compare(baseline, {"m": {"c0": 0.5, "c1": 0.5}}, alpha=0.05, min_drop=0.05)
    assert (subset.baseline, subset.baseline_run) == ("history: run r1", "r1")
    full = compare(baseline, {"m": {f"c{i}": 0.5 for i in range(4)}}, alpha=0.05, min_drop=0.05)
    assert (full.baseline, full.baseline_run) == ("history: runs r9, r1", "r1")


def test_check_noise_quarantines_a_flaky_failing_case_and_stores_the_run(tmp_path: Path) -> None:
    hashed = content_hash(record("a").payload)
    stored = {"r1": "passed", "r2": "failed", "r3": "passed"}
    path = store_path(tmp_path, "j")
    write_kept(
        path,
        KeptRuns(
            version=2,
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
    kept = read_kept(path, "j")
    assert kept is not None
    assert kept.cases == {
        "a": KeptCase(
            content=payload_content(record("a").payload),
            metrics={"faithfulness": KeptScore(run="r4", score=0.2)},
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
    assert kept is not None and kept.outcomes["c0"][-1][0] == "r2"  # its outcomes are kept


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
        cases = {
            key: {"content": "x", "metrics": {"faithfulness": {"run": "r1", "score": 0.5}}}
            for key in "ac"
        }
        cases["b"] = {"content": "x", "metrics": {"faithfulness": {"run": "r1", "score": value}}}
        stored = {"version": 2, "judge_identity": "j", "cases": cases, "outcomes": {}}
        path.write_text(json.dumps(stored), encoding="utf-8")
        noise = check_noise(RegressionSettings(), tmp_path, "j", "r2", records)
        # Not compared, with the file, the case and the value named: a gate on a baseline
        # someone edited is no gate (fatal under --rag-fail-on-regression).
        assert noise.comparison is not None and noise.comparison.unusable
        assert noise.comparison.not_compared == (
            f"the stored baseline {path}: case 'b': metric 'faithfulness': score: {error}"
        )
        assert noise.unusable() is None  # reported, not fatal, without the gate
