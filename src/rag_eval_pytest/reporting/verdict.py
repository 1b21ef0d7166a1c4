"""The verdict of a run: its exit code and the reason, decided in one place (SPEC 7, 9, 10, 11).

:func:`decide_verdict` is the one function that decides it, from the run's summary (the cases'
scores, statuses and what the judges failed to decide) and how the run ended (:class:`RunEnd`:
pytest's status, a setup error, whether any test ran). A run (``reporting/aggregator.py``) and
``rag-eval merge`` (``reporting/merge.py``) both call it, so shards merged into one report get
the verdict one run of all their cases would have got.

0 all passed and thresholds met; 1 a test failed, a run threshold was not met, or a check was
not judged (the judge cannot make it, or was unsure of its verdict); the critical code
(default 2) when a critical case failed; the fatal code (default 3) when the run could not
judge (configuration, data, a judge that failed), whichever judge was chosen.
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

    from .summary import RunSummary, ThresholdCheck


@dataclass(frozen=True)
class ExitDecision:
    code: int
    reason: str


@dataclass(frozen=True)
class RunEnd:
    """How a run ended, besides what its cases say."""

    pytest_status: int = 0
    pytest_detail: str = ""
    """Why pytest ended as it did ("1 error during collection")."""
    ran_tests: bool = True
    """Whether any test ran (a collection, ``--setup-plan`` or a ``-k`` matching nothing ran
    none: such a run decides nothing, whatever the gates)."""
    failed_tests: int = 0
    """The tests that failed (pytest's "failed"), errors aside."""
    errored_tests: int = 0
    """The tests that errored (pytest's "error": a setup or teardown that failed, a case
    whose RAG system failed), said as errors, not as failures."""
    setup_error: str | None = None
    """The plugin stopped the run: a judge or RAG system a fixture could not give."""
    report_only: bool = False
    empty_shard: str | None = None
    """A shard that holds none of the selected cases, said as such (it passes)."""
    carried: tuple[str, ...] = ()
    """Fatal reasons of the shards merged, that their cases do not show (a setup error)."""
    unsupported: str = "fail"
    """What checks the judge could not make, and verdicts it was unsure of, do to the run
    (``judge.unsupported``): ``fail`` (exit 1) or ``report`` (the run may pass). Never fatal:
    a verdict the judge could not reach is no outage of the run."""
    regressions: tuple[str, ...] = ()
    """Regressions since the baseline that fail the run (``--rag-fail-on-regression``)."""
    baseline_unusable: str | None = None
    """Why the run, asked to fail on a regression, could not be compared with its baseline:
    a gate that cannot compare gives no verdict."""
    quarantined: tuple[tuple[str, int], ...] = ()
    """Judge-flaky cases whose failures do not fail the run (``regression.flaky: quarantine``), with
    their failed tests."""


@dataclass(frozen=True)
class ExitCodes:
    critical: int = 2
    fatal: int = 3


def fatal_reason(summary: RunSummary, end: RunEnd) -> str | None:
    """Why the run gives no verdict on the RAG system: a setup error, a RAG system that
    failed for every case, a judge that failed (for every case of a metric, stopped during
    the run, or on some cases: a check asked for and not made is no pass, whichever judge
    it was), a regression gate whose baseline cannot be used. A check the judge cannot
    make, or a verdict it was unsure of, is not among them: the judge answered, and the run
    counts it as not judged (exit 1)."""
    if end.setup_error:
        return end.setup_error
    if summary.rag_failed_all:
        return f"the RAG system failed for every case ({summary.cases})"
    return _judge_failure(summary) or _gate_failure(end)


def _judge_failure(summary: RunSummary) -> str | None:
    """The judge failed for every case of a metric, stopped during the run, or failed on
    some cases."""
    trouble = summary.judge
    if trouble.unjudged_metrics:
        error = next(iter(trouble.unjudged_metrics.values()))
        return f"{error}; no case could be judged on {', '.join(trouble.unjudged_metrics)}"
    if trouble.stopped is not None:  # a verdict on the cases judged before the stop is none
        reason, cases = trouble.stopped
        return f"{reason}; {cases} of {summary.cases} cases not judged"
    if trouble.failed_cases:
        return (
            f"the judge failed on {len(trouble.failed_cases)} of {_count(summary.cases, 'case')}"
            f" ({_names(list(trouble.failed_cases))}): {trouble.first_error}"
        )
    return None


def _gate_failure(end: RunEnd) -> str | None:
    """The regression gate's baseline cannot be used, or a merged shard was fatal."""
    if end.baseline_unusable:
        return end.baseline_unusable
    if end.carried:
        return "; ".join(end.carried)
    return None


def decide_verdict(
    summary: RunSummary, end: RunEnd, codes: ExitCodes | None = None
) -> ExitDecision:
    """The run's exit code and its reason: the one place a verdict is decided. A run that
    ran no test, and a shard without cases, decide nothing on the cases; any other run is
    decided on its tests, cases and gates (:func:`decide_exit_code`)."""
    if _ran_no_test(end):
        return _no_test_decision(end.pytest_status)
    fatal = fatal_reason(summary, end)
    if end.empty_shard is not None and not fatal and end.pytest_status in (0, 5):
        return ExitDecision(0, end.empty_shard)
    return _decide_on_cases(summary, end, fatal, codes or ExitCodes())


def _ran_no_test(end: RunEnd) -> bool:
    """No test ran (a collection, ``--setup-plan``, a ``-k`` matching nothing), and pytest
    says nothing worse: such a run decides nothing, whatever the gates."""
    return not end.ran_tests and end.empty_shard is None and end.pytest_status in (0, 5)


def _no_test_decision(pytest_status: int) -> ExitDecision:
    if pytest_status == 5:
        return ExitDecision(5, pytest_status_reason(5) + " (pytest's exit status kept)")
    return ExitDecision(0, "no test ran: nothing was evaluated, no gate applies")


def _decide_on_cases(
    summary: RunSummary, end: RunEnd, fatal: str | None, codes: ExitCodes
) -> ExitDecision:
    """The verdict on the run's tests, cases and gates, the quarantined cases' failures
    aside."""
    tests = _TestsCounted.of(end)
    unsupported = summary.judge.unchecked_line()
    return decide_exit_code(
        tests.status,
        failed_tests=tests.failed,
        errored_tests=tests.errored,
        critical_failures=[k for k in summary.critical.failed if k not in tests.quarantined],
        unmet=summary.unmet,
        regressions=end.regressions,
        unchecked=unsupported if end.unsupported == "fail" else "",
        notice=_notice(tests.quarantined, unsupported if end.unsupported == "report" else ""),
        fatal_reason=fatal,
        critical_code=codes.critical,
        fatal_code=codes.fatal,
        pytest_detail=end.pytest_detail,
        report_only_misses=summary.below_threshold if end.report_only else 0,
    )


@dataclass(frozen=True)
class _TestsCounted:
    """pytest's status and the failed and errored tests that count, the quarantined
    judge-flaky cases' (with their failed tests) aside."""

    status: int
    failed: int
    errored: int
    quarantined: dict[str, int]

    @classmethod
    def of(cls, end: RunEnd) -> _TestsCounted:
        quarantined = dict(end.quarantined)
        failed, errored = _not_quarantined(end, sum(quarantined.values()))
        status = end.pytest_status
        if status == 1 and quarantined and not failed and not errored:
            status = 0  # every failure was a quarantined judge-flaky case's
        return cls(status, failed, errored, quarantined)


def _notice(quarantined: dict[str, int], unchecked: str) -> str:
    """What the run says without failing: the quarantined cases, and the checks not judged
    under ``judge.unsupported: report``."""
    notices = []
    if quarantined:
        notices.append(
            f"QUARANTINED as judge-flaky, their failures did not fail the run: "
            f"{_names(list(quarantined))}"
        )
    if unchecked:
        notices.append(unchecked)
    return "; ".join(notices)


def _not_quarantined(end: RunEnd, quarantined: int) -> tuple[int, int]:
    """The failed and errored tests that count, less the quarantined cases' (failures
    first: a judge-flaky case fails its tests more often than it errors)."""
    failed = max(0, end.failed_tests - quarantined)
    errored = max(0, end.errored_tests - max(0, quarantined - end.failed_tests))
    return failed, errored


def _tests_line(failed: int, errored: int, pytest_status: int) -> str:
    """The tests that failed and those that errored, apart: ``2 tests failed, 1 error``."""
    parts = []
    if failed or (pytest_status == 1 and not errored):
        parts.append(f"{_count(max(failed, 1), 'test')} failed")
    if errored:
        parts.append(_count(errored, "error"))
    return ", ".join(parts)


def _count(count: int, noun: str) -> str:
    """``1 test``, ``2 tests``."""
    return f"{count} {noun}{'s' if count != 1 else ''}"


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
    errored_tests: int = 0,
    unmet: Sequence[ThresholdCheck],
    fatal_reason: str | None = None,
    critical_code: int = 2,
    fatal_code: int = 3,
    pytest_detail: str = "",
    report_only_misses: int = 0,
    unchecked: str = "",
    notice: str = "",
    regressions: Sequence[str] = (),
) -> ExitDecision:
    """Decide the exit code and say why, in one line: fatal (the run could not judge) over
    critical (a critical case failed) over 1 (failures, unmet thresholds, regressions, checks
    not judged) over 0. The reason opens with what decided the code and names a failed
    critical case whenever there is one, under the fatal code too. ``pytest_detail`` says why
    pytest ended as it did ("1 error during collection"); ``errored_tests`` are said apart
    from ``failed_tests``; ``report_only_misses`` counts the scores below their per-case
    thresholds that a report-only run let pass, so that a green run does not read as "all
    thresholds met". ``unchecked`` says which checks were not judged (the run fails);
    ``notice`` the same when the run may pass (``judge.unsupported: report``)."""
    critical = _critical_line(critical_failures)
    if pytest_status not in (0, 1):
        return _pytest_decision(
            pytest_status, pytest_detail, fatal_reason, critical, critical_code, fatal_code
        )
    if fatal_reason:
        return ExitDecision(fatal_code, _joined(f"fatal: {fatal_reason}", critical))
    if critical:  # what else fails the run, besides the critical tests themselves
        others = _failure_reasons(unmet, (0, 0, 0), regressions, unchecked, report_only_misses)
        return ExitDecision(critical_code, _joined(critical, *others))
    tests = (failed_tests, errored_tests, pytest_status)
    failures = _failure_reasons(unmet, tests, regressions, unchecked, report_only_misses)
    if _fails(tests, unmet, unchecked, regressions):
        return ExitDecision(1, _joined(*failures))
    return _passed(_joined(*failures, notice))


def _fails(
    tests: tuple[int, int, int],
    unmet: Sequence[ThresholdCheck],
    unchecked: str,
    regressions: Sequence[str],
) -> bool:
    """Whether the run fails short of a fatal or critical reason: a test failed or errored,
    a run threshold was not met, a check was not judged, a metric regressed."""
    failed, errored, pytest_status = tests
    return bool(failed or errored or pytest_status == 1 or unmet or unchecked or regressions)


def _passed(said: str) -> ExitDecision:
    """The run passes, with what it says besides (scores below per-case thresholds a
    report-only run let pass, notices)."""
    if said:
        return ExitDecision(0, "all tests passed and run-level thresholds met; " + said)
    return ExitDecision(0, "all tests passed and all thresholds met")


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _critical_line(critical_failures: Sequence[str]) -> str:
    """ "critical case tc_1 failed": empty when no critical case failed."""
    if not critical_failures:
        return ""
    noun = "case" if len(critical_failures) == 1 else "cases"
    return f"critical {noun} {_names(list(critical_failures))} failed"


def _pytest_decision(
    status: int,
    detail: str,
    fatal_reason: str | None,
    critical: str,
    critical_code: int,
    fatal_code: int,
) -> ExitDecision:
    """pytest ended with a code of its own (interrupted, internal error, usage error, ...)."""
    if fatal_reason and status == 2:  # the run was stopped for the fatal reason
        return ExitDecision(fatal_code, _joined(f"fatal: {fatal_reason}", critical))
    reason = pytest_status_reason(status, detail)
    if status == critical_code:
        return ExitDecision(fatal_code, _joined(f"fatal: {reason}", critical))
    return ExitDecision(status, _joined(f"{reason} (pytest's exit status kept)", critical))


def _failure_reasons(
    unmet: Sequence[ThresholdCheck],
    tests: tuple[int, int, int],
    regressions: Sequence[str],
    unchecked: str,
    report_only_misses: int,
) -> list[str]:
    """What fails the run short of a fatal or critical reason, one part each; ``tests`` is
    the failed tests, the errored tests and pytest's status."""
    reasons = [
        "; ".join(c.describe() for c in unmet),
        _tests_line(*tests),
        "regressed since the baseline: " + "; ".join(regressions) if regressions else "",
        unchecked,
        _report_only_line(report_only_misses),
    ]
    return [reason for reason in reasons if reason]


def _report_only_line(misses: int) -> str:
    """The scores below their per-case thresholds that a report-only run let pass."""
    if not misses:
        return ""
    return f"report only: {_count(misses, 'score')} below per-case thresholds failed no test"
