"""Baselines: this run's cases against the history (each case's last run not flagged) or a
report, only like with like (the same judge, the same case content); a regression for a
significant drop of at least ``min_drop``, or for a case that newly fails with stable
verdicts; a baseline that cannot be used named, and fatal under the gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rag_eval_pytest.metrics.base import MetricResult
from rag_eval_pytest.reporting.baseline_store import (
    KeptCase,
    KeptRuns,
    KeptScore,
    UnreadableStore,
)
from rag_eval_pytest.reporting.baselines import (
    NO_HISTORY,
    Baseline,
    Cases,
    NotCompared,
    Verdict,
    compare,
    failing_regressions,
    history_baseline,
    load_baseline,
    run_cases,
    unusable_reason,
)
from rag_eval_pytest.reporting.collector import CaseRecord
from rag_eval_pytest.reporting.wording import describe


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


def passed_score(run: str, score: float, *, stable: bool = False) -> KeptScore:
    """A passed result kept for the next runs (``record``'s metrics have no threshold)."""
    return KeptScore(run=run, score=score, status="passed", threshold=None, stable=stable)


def test_a_runs_cases_keep_only_judged_scores() -> None:
    cases = run_cases(
        [record("a", faithfulness=0.9, context_recall=None), record("b", faithfulness=0.5)]
    )
    assert cases.scores == {"faithfulness": {"a": 0.9, "b": 0.5}}
    assert list(cases.contents) == ["a", "b"]
    assert cases.verdicts["faithfulness"]["a"] == Verdict(passed=True, threshold=None, stable=False)


def test_a_consistent_drop_is_a_regression_and_described() -> None:
    before = Baseline(
        "history: run r1", "r1", Cases({"faithfulness": {f"c{i}": 0.9 for i in range(10)}})
    )
    after = Cases({"faithfulness": {f"c{i}": 0.6 for i in range(10)}, "new_metric": {"c0": 1.0}})
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
    before = Baseline("b", "r1", Cases({"m": {f"c{i}": 0.9 for i in range(10)}}))
    after = Cases({"m": {f"c{i}": 0.88 for i in range(10)}})
    (change,) = compare(before, after, alpha=0.05, min_drop=0.05).changes
    assert change.significant and not change.regression


def test_nothing_to_compare_says_why() -> None:
    nothing = Cases({})
    missing = compare(NotCompared(NO_HISTORY, unusable=False), nothing, alpha=0.05, min_drop=0.05)
    assert (missing.baseline, missing.not_compared, missing.changes, missing.unusable) == (
        "none",
        NO_HISTORY,
        [],
        False,
    )
    # One shared case: no mean to test, but the case itself is compared (newly failing).
    one_case = compare(
        Baseline("b", "r1", Cases({"m": {"c0": 1.0}})),
        Cases({"m": {"c0": 0.0}}),
        alpha=0.05,
        min_drop=0.05,
    )
    assert (one_case.not_compared, one_case.changes) == (None, [])
    other_cases = compare(
        Baseline("main.json", "r1", Cases({"m": {"x0": 1.0, "x1": 1.0}}), named=True),
        Cases({"m": {"c0": 0.0, "c1": 0.0}}),
        alpha=0.05,
        min_drop=0.05,
    )
    assert other_cases.not_compared == (
        "the baseline main.json has no scored case in common with this run (2 scored there, 2 here)"
    )
    assert other_cases.unusable


def test_an_unusable_baseline_fails_the_gate_and_a_first_run_does_not() -> None:
    unreadable = NotCompared("the baseline cannot be read: main.json: file not found")
    nothing = Cases({})
    gated = compare(unreadable, nothing, alpha=0.05, min_drop=0.05, gate=True)
    assert unusable_reason(gated) == (
        "--rag-fail-on-regression, and no comparison: the baseline cannot be read: "
        "main.json: file not found"
    )
    assert unusable_reason(compare(unreadable, nothing, alpha=0.05, min_drop=0.05)) is None
    first = compare(NotCompared(NO_HISTORY, unusable=False), nothing, alpha=0.05, min_drop=0.05)
    assert unusable_reason(first.model_copy(update={"gate": True})) is None


def _judged(verdicts: dict[str, tuple[float, bool, bool]], threshold: float = 0.7) -> Cases:
    """Cases of one metric, each ``(score, passed, stable)``."""
    return Cases(
        {"faithfulness": {k: score for k, (score, _, _) in verdicts.items()}},
        {"faithfulness": {k: Verdict(p, threshold, st) for k, (_, p, st) in verdicts.items()}},
        {key: "same" for key in verdicts},
    )


def test_a_case_that_newly_fails_with_stable_verdicts_is_a_regression_whatever_the_mean() -> None:
    # Three cases broken, four a little better: the mean's drop is within the noise.
    before = {f"c{i}": (1.0, True, True) for i in range(3)}
    before |= {f"c{i}": (0.75, True, True) for i in range(3, 7)}
    before |= {f"c{i}": (0.5, False, True) for i in range(7, 10)}
    after = {f"c{i}": (0.33, False, True) for i in range(3)}
    after |= {f"c{i}": (1.0, True, True) for i in range(3, 7)}
    after |= {f"c{i}": (0.5, False, True) for i in range(7, 10)}
    after["c1"] = (0.33, False, False)  # one vote of an LLM judge this time
    comparison = compare(
        Baseline("b", "r1", _judged(before)),
        _judged(after),
        alpha=0.05,
        min_drop=0.05,
        gate=True,
        flaky={"c2"},
    )
    (change,) = comparison.changes
    assert not change.regression and change.p_value > 0.05
    assert [(f.key, f.before, f.after, f.regression) for f in comparison.newly_failing] == [
        ("c0", 1.0, 0.33, True),
        ("c1", 1.0, 0.33, False),  # not stable now
        ("c2", 1.0, 0.33, False),  # judge-flaky
    ]
    assert comparison.flagged
    assert failing_regressions(comparison) == (
        "1 case newly fails with stable verdicts: c0 faithfulness 1.00 -> 0.33 (< 0.70)",
    )


def test_a_failure_at_another_threshold_is_not_newly_failing() -> None:
    before = _judged({"c0": (0.8, True, True), "c1": (0.8, True, True)}, threshold=0.7)
    after = _judged({"c0": (0.8, False, True), "c1": (0.8, False, True)}, threshold=0.9)
    comparison = compare(Baseline("b", "r1", before), after, alpha=0.05, min_drop=0.05)
    assert comparison.newly_failing == [] and not comparison.flagged


def test_load_baseline_from_history_or_a_report(tmp_path: Path) -> None:
    assert load_baseline("history", None) == NotCompared(NO_HISTORY, unusable=False)
    kept = KeptRuns(
        version=3,
        judge_identity="j",
        cases={"c0": KeptCase(content="x", metrics={"m": passed_score("r1", 1)})},
    )
    baseline = load_baseline("history", kept)
    assert isinstance(baseline, Baseline)
    assert (baseline.cases.scores, baseline.runs) == ({"m": {"c0": 1.0}}, {"m": {"c0": "r1"}})
    unreadable = load_baseline("history", UnreadableStore("the stored baseline x is not JSON"))
    assert unreadable == NotCompared("the stored baseline x is not JSON")
    missing = load_baseline(str(tmp_path / "nope.json"), None)
    assert isinstance(missing, NotCompared) and missing.unusable
    assert missing.reason == (
        f"the baseline cannot be read: {tmp_path / 'nope.json'}: file not found"
    )


def test_the_history_is_named_by_the_runs_its_compared_scores_came_from() -> None:
    kept = KeptRuns(
        version=3,
        judge_identity="j",
        runs=["r9", "r1"],  # oldest first, whatever their names
        cases={
            f"c{i}": KeptCase(content="x", metrics={"m": passed_score("r1" if i < 2 else "r9", 1)})
            for i in range(4)
        },
    )
    baseline = history_baseline(kept)
    subset = compare(baseline, Cases({"m": {"c0": 0.5, "c1": 0.5}}), alpha=0.05, min_drop=0.05)
    assert (subset.baseline, subset.baseline_run) == ("history: run r1", "r1")
    full = compare(
        baseline, Cases({"m": {f"c{i}": 0.5 for i in range(4)}}), alpha=0.05, min_drop=0.05
    )
    assert (full.baseline, full.baseline_run) == ("history: runs r9, r1", "r1")
