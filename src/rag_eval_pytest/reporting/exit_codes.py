"""The exit-code decision (SPEC section 7), a pure function.

0 all passed and thresholds met; 1 a test failed or a run threshold was not met; the critical
code (default 2) when a critical case failed; the fatal code (default 3) for fatal conditions.
pytest's own 0 or 1 become the plugin's verdict. Its other codes (interrupted, internal error,
usage error, no tests, warnings) already mean "stop the line" and stand, except the one equal
to the critical code (pytest's 2, "interrupted", with the default): it becomes the fatal code,
so the critical code means only "a critical case failed". A run the plugin stopped itself (a
setup error) is fatal, though pytest calls it interrupted.
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


PYTEST_STATUS = {
    2: "interrupted",
    3: "internal error",
    4: "usage error",
    5: "no tests collected",
    6: "too many warnings",
}


def pytest_status_reason(status: int, detail: str = "") -> str:
    """What pytest's own exit status means, for the reason line."""
    what = PYTEST_STATUS.get(status, f"exit status {status}")
    return f"pytest: {what}" + (f": {detail}" if detail else "")


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
    pytest_detail: str = "",
    report_only_misses: int = 0,
) -> ExitDecision:
    """Decide the exit code and say why, in one line. ``pytest_detail`` says why pytest
    ended as it did ("1 error during collection"); ``report_only_misses`` counts the scores
    below their per-case thresholds that a report-only run let pass, so that a green run
    does not read as "all thresholds met"."""
    if pytest_status not in (0, 1):
        if fatal_reason and pytest_status == 2:  # the run was stopped for the fatal reason
            return ExitDecision(fatal_code, f"fatal: {fatal_reason}")
        reason = pytest_status_reason(pytest_status, pytest_detail)
        if pytest_status == critical_code:
            return ExitDecision(fatal_code, f"fatal: {reason}")
        return ExitDecision(pytest_status, f"{reason} (pytest's exit status kept)")
    if fatal_reason:
        return ExitDecision(fatal_code, f"fatal: {fatal_reason}")
    if critical_failures:
        noun = "case" if len(critical_failures) == 1 else "cases"
        return ExitDecision(
            critical_code, f"critical {noun} {_names(list(critical_failures))} failed"
        )
    reasons = []
    if unmet:
        reasons.append("; ".join(c.describe() for c in unmet))
    if failed_tests or pytest_status == 1:
        count = max(failed_tests, 1)
        reasons.append(f"{count} test{'s' if count != 1 else ''} failed")
    if report_only_misses:
        scores = "score" if report_only_misses == 1 else "scores"
        reasons.append(
            f"report only: {report_only_misses} {scores} below per-case thresholds failed no test"
        )
    if failed_tests or pytest_status == 1 or unmet:
        return ExitDecision(1, "; ".join(reasons))
    if reasons:
        return ExitDecision(0, "all tests passed and run-level thresholds met; " + reasons[-1])
    return ExitDecision(0, "all tests passed and all thresholds met")
