"""The aggregating process's side of the run (a plain run, or the xdist controller): the
:class:`~rag_eval_pytest.reporting.aggregator.Aggregator` that writes the reports, and the
hooks that hand it each test report.

Imported by the entry module in every run: the heavy modules are imported when a run
evaluates cases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from .guard import SESSION_KEY, guarded

if TYPE_CHECKING:
    from ..engine.session import EvalSession
    from ..reporting.aggregator import Aggregator
    from ..reporting.payload import CasePayload

AGGREGATOR_KEY: pytest.StashKey[Aggregator] = pytest.StashKey()
CRITICAL_MARKER = "rag_critical"

# What travels on a test report, from the process that ran the test to this one (xdist
# serialises report attributes): JSON-safe payloads (reporting/payload.py) and a setup error.
REPORT_ATTRIBUTE = "rag_eval"
"""The payload of the test's dataset case."""
INLINE_ATTRIBUTE = "rag_eval_inline"
"""The payloads of the cases the test made in code."""
SETUP_ERROR_ATTRIBUTE = "rag_eval_setup_error"
"""Why the test could not get its judge or RAG system (the run is fatal)."""


def start_aggregator(config: pytest.Config, session: EvalSession) -> Aggregator:
    """Make the run's aggregator and register the hooks that feed it."""
    from ..reporting.aggregator import Aggregator
    from .bootstrap import output_dir

    aggregator = config.stash[AGGREGATOR_KEY] = Aggregator(
        settings=session.settings,
        datasets=session.datasets,
        run=session.run,
        redactor=session.redactor,
        output_dir=output_dir(config, session),
        rootdir=config.rootpath,
        version=_version(),
        adapter_label=_adapter_label(session),
    )
    config.pluginmanager.register(AggregatorHooks(config), "rag_eval_aggregator")
    return aggregator


def prune_judge_cache(config: pytest.Config) -> None:
    """Once per run, at its end, in the process that aggregates it (the workers have written
    their entries by then): remove the judge cache's entries not used for
    ``judge.cache_max_age_days`` and the least recently used past ``judge.cache_max_mb``, so
    a cache saved after every CI run does not only grow."""
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    from ..judges.cache import JudgeCache, prune_cache
    from ..judges.factory import cache_for

    judge = session.settings.judge
    cache = cache_for(judge, session.judge_cache_dir)
    if isinstance(cache, JudgeCache):
        prune_cache(
            cache.directory, max_age_days=judge.cache_max_age_days, max_mb=judge.cache_max_mb
        )


class AggregatorHooks:
    """Controller and plain runs: hands each test report to the aggregator. A plugin object,
    because ``pytest_runtest_logreport`` receives no config to find the aggregator by; it
    holds the config, not the aggregator, as pytest keeps registered plugins to the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        aggregator = self.config.stash.get(AGGREGATOR_KEY, None)
        if aggregator is not None:  # why pytest stopped ("1 error during collection")
            aggregator.interruption = str(excinfo.value)
            # Ctrl-C or SIGTERM (not pytest's own stops: collection errors, pytest.exit)
            aggregator.signalled = isinstance(
                excinfo.value, KeyboardInterrupt
            ) and not isinstance(excinfo.value, pytest.Session.Interrupted)

    @pytest.hookimpl(trylast=True)  # after other plugins have seen the report whole
    @guarded("pytest_runtest_logreport")
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        aggregator = self.config.stash.get(AGGREGATOR_KEY, None)
        if aggregator is not None:
            hand_over(aggregator, report)
            # pytest keeps every report to the end of the run: without the payloads, which
            # the aggregator has taken, a long run holds a copy less of each case's results.
            for name in (REPORT_ATTRIBUTE, INLINE_ATTRIBUTE):
                if name in report.__dict__:
                    delattr(report, name)


def hand_over(aggregator: Aggregator, report: pytest.TestReport) -> None:
    """Give the aggregator one test report: its outcome and the payloads it carries (the
    dataset case of a test taking ``rag_case``, the cases the test made in code)."""
    setup_error = getattr(report, SETUP_ERROR_ATTRIBUTE, None)
    if isinstance(setup_error, str):
        aggregator.setup_failed(setup_error)
    payloads: list[CasePayload | None] = [*report_payloads(report)] or [None]
    for payload in payloads:
        aggregator.add_report(
            nodeid=report.nodeid,
            when=report.when,
            outcome=report.outcome,
            payload=payload,
            critical_marker=CRITICAL_MARKER in report.keywords,
            message=short_message(report),
        )


def report_payloads(report: pytest.TestReport) -> list[CasePayload]:
    """The case payloads a test report carries."""
    found: list[Any] = [getattr(report, REPORT_ATTRIBUTE, None)]
    found.extend(getattr(report, INLINE_ATTRIBUTE, None) or [])
    if found == [None]:
        return []
    from ..reporting.payload import is_payload

    return [p for p in found if is_payload(p)]


def short_message(report: pytest.TestReport) -> str | None:
    """The one-line reason of a failed or skipped test, for the reports."""
    if report.passed:
        return None
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, lineno, reason)
        return str(longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if message is None:
        message = str(longrepr).strip().splitlines()[-1] if longrepr else None
    return message.splitlines()[0][:300] if message else None


def _adapter_label(session: EvalSession) -> str | None:
    settings = session.settings
    if settings.target:
        return f"{settings.adapter or 'callable'} {settings.target}"
    return settings.adapter


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rag-eval-pytest")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"
