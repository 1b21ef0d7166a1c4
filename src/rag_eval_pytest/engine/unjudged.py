"""Checks a test asserted that its judge could not make: a check the judge cannot make at
all (a criterion under the local judge) or a verdict it was unsure of.

Such a check neither ends the test nor passes it: the assertion records it here, on the
running test, and the test's other assertions run. A test that then ends without a failure
is reported as skipped with the reasons (terminal ``s``, JUnit ``<skipped message="not
judged: ...">``), never as passed; the run's verdict counts it as not judged.

Imported by the entry module's runner in every run with a dataset: stdlib and pytest only.
"""

from __future__ import annotations

import pytest

NOT_JUDGED: pytest.StashKey[list[str]] = pytest.StashKey()
"""The reasons of the checks the running test asserted and its judge could not make."""


def defer_not_judged(item: pytest.Item | None, reasons: list[str]) -> None:
    """Record on ``item`` (the running test) the checks it asserted that were not judged."""
    if item is not None and reasons:
        item.stash.setdefault(NOT_JUDGED, []).extend(reasons)


def skip_unless_failed(item: pytest.Item, report: pytest.TestReport) -> None:
    """Report a passing call whose test asserted checks not judged as skipped, with why."""
    reasons = item.stash.get(NOT_JUDGED, None)
    if not reasons or report.when != "call" or not report.passed:
        return
    path, lineno, _ = item.location
    report.outcome = "skipped"
    report.longrepr = (path, (lineno or 0) + 1, "Skipped: not judged: " + "; ".join(reasons))
