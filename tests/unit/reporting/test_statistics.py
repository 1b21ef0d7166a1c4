"""The interval of a mean and the paired change since a baseline: honest about noise,
reproducible, cheap at any size."""

from __future__ import annotations

import random

from rag_eval_pytest.reporting.statistics import (
    RESAMPLED_UP_TO,
    mean_interval,
    paired_change,
    seed_of,
)


def noisy(n: int, drop: float, seed: int) -> tuple[dict[str, float], dict[str, float]]:
    """Scores of n cases, then the same cases judged again with noise and ``drop``."""
    rng = random.Random(seed)
    before = {f"c{i}": rng.random() for i in range(n)}
    after = {k: min(1.0, max(0.0, v - drop + rng.gauss(0, 0.1))) for k, v in before.items()}
    return before, after


def test_the_interval_is_reproducible_and_holds_the_mean() -> None:
    rng = random.Random(3)
    values = [rng.random() for _ in range(50)]
    first = mean_interval(values, seed_of("faithfulness", 50))
    assert first == mean_interval(values, seed_of("faithfulness", 50))
    assert first is not None
    mean = sum(values) / len(values)
    assert first[0] < mean < first[1]
    assert mean_interval([0.7], 1) is None
    assert mean_interval([0.5, 0.5, 0.5], 1) == (0.5, 0.5)


def test_noise_alone_is_not_significant_and_a_real_drop_is() -> None:
    same = paired_change(*noisy(100, 0.0, 1), seed=1)
    dropped = paired_change(*noisy(100, 0.1, 2), seed=2)
    assert same is not None and dropped is not None
    assert not same.is_regression(alpha=0.05, min_drop=0.05)
    assert dropped.is_regression(alpha=0.05, min_drop=0.05)
    assert dropped.interval[0] < dropped.change < dropped.interval[1] < 0
    # Significant but smaller than the least drop that matters: not a regression.
    small = paired_change(*noisy(RESAMPLED_UP_TO, 0.03, 3), seed=3)
    assert small is not None and small.significant(0.05)
    assert not small.is_regression(alpha=0.05, min_drop=0.05)


def test_only_the_cases_both_runs_scored_are_compared() -> None:
    before = {"a": 1.0, "b": 1.0, "c": 0.0}
    after = {"a": 0.0, "b": 0.0, "d": 1.0}
    change = paired_change(before, after, seed=1)
    assert change is not None
    assert (change.cases, change.before, change.after, change.change) == (2, 1.0, 0.0, -1.0)
    assert paired_change({"a": 1.0}, {"a": 0.0}, seed=1) is None


def test_large_runs_use_the_normal_approximation_of_the_same_quantities() -> None:
    before, after = noisy(5000, 0.01, 4)
    change = paired_change(before, after, seed=4)
    assert change is not None and change.cases == 5000
    assert change.p_value < 0.05 and -0.02 < change.change < 0
