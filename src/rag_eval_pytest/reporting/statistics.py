"""How sure a run's numbers are: a confidence interval for a metric's mean, and whether a
change since a baseline run is larger than the judge's own noise.

Pure functions of the scores, seeded from what they describe (the metric and the cases), so
the same scores always give the same interval and p-value: a report is reproducible.

* :func:`mean_interval`: a 95 % percentile bootstrap interval of the mean over the cases.
* :func:`paired_change`: the change of a metric over the cases both runs scored, with a 95 %
  paired bootstrap interval and the two-sided p-value of a sign-flip permutation test (under
  "nothing changed", each case's difference is as likely positive as negative).

Beyond :data:`RESAMPLED_UP_TO` cases both use the normal approximation of the same
quantities (the mean's standard error; the sign-flip distribution's variance, the sum of the
squared differences over n squared), which the resampling converges to at that size and which
costs nothing at 50,000 cases.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

ROUNDS = 2000
"""Bootstrap resamples and permutations: a p-value near 0.05 is known to about +-0.005."""
EXACT_UP_TO = 12
"""Cases up to which every sign pattern is counted (the p-value is exact)."""
RESAMPLED_UP_TO = 200
"""Cases up to which the interval and the p-value are resampled; the normal approximation
beyond."""
_Z = 1.959964  # the 97.5th percentile of the standard normal


def _normal_p(z: float) -> float:
    """The two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def seed_of(*parts: object) -> int:
    """A seed derived from what is resampled, so the same input gives the same numbers."""
    material = "\x1f".join(map(str, parts)).encode("utf-8")
    return int.from_bytes(hashlib.sha256(material).digest()[:8], "big")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _percentiles(values: list[float]) -> tuple[float, float]:
    values.sort()
    low = values[int(0.025 * (len(values) - 1))]
    high = values[round(0.975 * (len(values) - 1))]
    return low, high


def mean_interval(values: Sequence[float], seed: int) -> tuple[float, float] | None:
    """The 95 % bootstrap interval of the mean of ``values`` (``None`` for fewer than 2)."""
    n = len(values)
    if n < 2:
        return None
    if min(values) == max(values):
        return (values[0], values[0])
    if n > RESAMPLED_UP_TO:
        mean = _mean(values)
        error = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
        low, high = max(0.0, mean - _Z * error), min(1.0, mean + _Z * error)
    else:
        rng = random.Random(seed)
        low, high = _percentiles([_mean(rng.choices(values, k=n)) for _ in range(ROUNDS)])
    return round(low, 4), round(high, 4)


@dataclass(frozen=True)
class Change:
    """A metric's change from a baseline over the cases both runs scored."""

    cases: int
    before: float
    after: float
    change: float
    interval: tuple[float, float]
    p_value: float
    least_p: float
    """The smallest p-value the test can give with this many cases (all differences one
    way): above alpha, no change could be told from noise."""

    def testable(self, alpha: float) -> bool:
        """Whether the cases are enough for the test to tell a change from noise at all."""
        return self.least_p < alpha

    def significant(self, alpha: float) -> bool:
        return self.p_value < alpha

    def is_regression(self, alpha: float, min_drop: float) -> bool:
        """A drop both larger than the noise (p < ``alpha``) and at least ``min_drop``; with
        too few cases to test (five or fewer at 0.05), a drop of at least ``min_drop``."""
        dropped = -self.change >= min_drop - 1e-9
        return dropped and (self.significant(alpha) or not self.testable(alpha))


def paired_change(
    before: Mapping[str, float], after: Mapping[str, float], seed: int
) -> Change | None:
    """The change of the mean over the cases both runs scored (``None`` when fewer than 2)."""
    shared = sorted(set(before) & set(after))
    if len(shared) < 2:
        return None
    differences = [after[key] - before[key] for key in shared]
    n = len(differences)
    observed = _mean(differences)
    interval, p_value = _certainty(differences, observed, seed)
    return Change(
        cases=n,
        before=round(_mean([before[k] for k in shared]), 4),
        after=round(_mean([after[k] for k in shared]), 4),
        change=round(observed, 4),
        interval=(round(interval[0], 4), round(interval[1], 4)),
        p_value=round(p_value, 4),
        least_p=2 / 2**n if n < 64 else 0.0,
    )


def _certainty(
    differences: list[float], observed: float, seed: int
) -> tuple[tuple[float, float], float]:
    """The mean difference's 95 % interval and p-value: none for no difference at all,
    resampled up to :data:`RESAMPLED_UP_TO` cases, the normal approximation beyond."""
    if not any(differences):
        return (observed, observed), 1.0
    if len(differences) > RESAMPLED_UP_TO:
        return _normal_certainty(differences, observed)
    rng = random.Random(seed)
    n = len(differences)
    interval = _percentiles([_mean(rng.choices(differences, k=n)) for _ in range(ROUNDS)])
    return interval, _sign_flip_p(differences, observed, rng)


def _normal_certainty(
    differences: list[float], observed: float
) -> tuple[tuple[float, float], float]:
    n = len(differences)
    spread = math.sqrt(sum((d - observed) ** 2 for d in differences) / (n - 1) / n)
    null_spread = math.sqrt(sum(d * d for d in differences)) / n
    return (observed - _Z * spread, observed + _Z * spread), _normal_p(observed / null_spread)


def _sign_flip_p(differences: list[float], observed: float, rng: random.Random) -> float:
    """Sign flips: under "no change", each difference is as likely the other way round;
    every pattern for a few cases (exact), a seeded sample of them beyond."""
    n = len(differences)
    magnitude = abs(observed) - 1e-12
    exact = n <= EXACT_UP_TO
    patterns = range(2**n) if exact else (rng.getrandbits(n) for _ in range(ROUNDS))
    extreme = sum(abs(_flipped_mean(differences, bits)) >= magnitude for bits in patterns)
    return extreme / 2**n if exact else (extreme + 1) / (ROUNDS + 1)


def _flipped_mean(differences: list[float], bits: int) -> float:
    """The mean of the differences with those whose bit is clear turned the other way."""
    return sum(d if bits >> i & 1 else -d for i, d in enumerate(differences)) / len(differences)
