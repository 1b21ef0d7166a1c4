"""The exit-code decision (SPEC section 7), a pure function.

0 all passed and thresholds met; 1 a test failed or a run threshold was not met; the critical
code (default 2) when a critical case failed; the fatal code (default 3) for fatal conditions.
Only pytest's own 0 or 1 are ever changed: its other codes (interrupted, internal error, usage
error, no tests, warnings) stand, since they already mean "stop the line".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .summary import ThresholdCheck


@dataclass(frozen=True)
class ExitDecision:
    code: int
    reason: str


def _names(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def decide_exit_code(
    pytest_status: int,
    *,
    failed_tests: int,
    critical_failures: Sequence[str],
    unmet: Sequence[ThresholdCheck],
    fatal_reason: str | None = None,
    critical_code: int = 2,
    fatal_code: int = 3,
) -> ExitDecision:
    """Decide the exit code and say why, in one line."""
    if pytest_status not in (0, 1):
        return ExitDecision(pytest_status, f"pytest exit status {pytest_status} kept")
    if fatal_reason:
        return ExitDecision(fatal_code, f"fatal: {fatal_reason}")
    if critical_failures:
        noun = "case" if len(critical_failures) == 1 else "cases"
        return ExitDecision(
            critical_code, f"critical {noun} {_names(list(critical_failures))} failed"
        )
    reasons = []
    if unmet:
        reasons.append(
            "; ".join(
                f"{c.name} {c.score:.2f} < {c.threshold:.2f}" for c in unmet if c.score is not None
            )
        )
    if failed_tests or pytest_status == 1:
        count = max(failed_tests, 1)
        reasons.append(f"{count} test{'s' if count != 1 else ''} failed")
    if reasons:
        return ExitDecision(1, "; ".join(reasons))
    return ExitDecision(0, "all tests passed and all thresholds met")
