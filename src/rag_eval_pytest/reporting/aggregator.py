"""The end of the run in the aggregating process (plain run or xdist controller).

Turns collected reports into the summary, decides the exit code, renders the document and
writes ``eval_report.json``, ``eval_report.md``, ``eval_report.html`` and one ``results.jsonl``
line. A failed write is reported in the terminal summary, never raised.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from pydantic import BaseModel, ValidationError

from ..atomic import atomic_writer
from ..runtime.heap import paused_collection
from .baseline_store import BASELINES, UnreadableStore
from .collector import CRASHED, RunCollector, crashed_case_payload
from .document import build_document, case_result, now_iso
from .files import HISTORY_FILE, HTML_REPORT, JSON_REPORT, MARKDOWN_REPORT, write_report_json
from .history import (
    append_line,
    datasets_digest,
    git_commit,
    history_entry,
    read_lines,
    selection,
)
from .html_report import write_html
from .markdown import write_markdown, write_step_summary
from .models import CaseResult, DatasetInfo, FlakyCase, Regression, Report, RunSection
from .noise import RunCases, check_noise
from .spool import CaseSpool
from .step_summary import SUMMARY_FILE, append_step_summary
from .summary import SummaryBuilder
from .trend import build_trend
from .verdict import ExitCodes, ExitDecision, RunEnd, decide_verdict

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import TextIO

    from ..config.settings import Settings
    from ..data.dataset import Dataset, DatasetCollection
    from ..redaction import Redactor
    from .models import Selection
    from .noise import NoiseCheck
    from .payload import CasePayload, RunInfo
    from .summary import RunSummary


@dataclass
class Aggregator:
    settings: Settings
    datasets: DatasetCollection
    run: RunInfo
    redactor: Redactor
    output_dir: Path
    rootdir: Path
    version: str
    adapter_label: str | None = None
    judge_labels: list[str] = field(default_factory=list)
    """Every judge the run's tests used (described), in the order first met."""
    judge_identities: list[str] = field(default_factory=list)
    """Every judge identity the run's tests used: the trend compares only runs of the same."""
    collector: RunCollector = field(default_factory=RunCollector)
    started: float = field(default_factory=time.monotonic)
    report: Report | None = None
    """The report as written (secrets redacted), once the run has finished."""
    written: list[str] = field(default_factory=list)
    write_errors: list[str] = field(default_factory=list)
    ran_tests: bool = False
    """Whether a test ran: a call phase, or a setup that failed or skipped. A run that only
    collected (``--collect-only``, ``--fixtures``), planned (``--setup-plan``) or deselected
    every test (``-k`` matching nothing) writes nothing, so it cannot replace the last
    report or put an empty line in the history."""
    errored: set[tuple[str, str]] = field(default_factory=set)
    """The phases that errored (a setup or teardown that failed: pytest's "error"), each
    once however many cases its report carries: the exit line says them apart."""
    decision: ExitDecision | None = None
    """The exit code and its reason, once the run has finished."""
    interruption: str = ""
    """Why pytest stopped the run early, as it says it ("1 error during collection")."""
    signalled: bool = False
    """Ctrl-C or SIGTERM stopped the run: its partial report is written even when no test
    had finished (a CI job cancelled while its first case hangs leaves a report saying so),
    without a history line."""
    _cases: CaseSpool | None = None

    def __post_init__(self) -> None:
        self.collector.spool.file.directory = self.output_dir

    def add_report(self, **report: Any) -> None:
        """Take one test report (see :meth:`RunCollector.add`)."""
        self._note_outcome(report)
        payload = self._payload_of(report)
        if payload is not None:
            self._note_judge(payload)
        self.collector.add(**report)

    def _note_outcome(self, report: dict[str, Any]) -> None:
        """Whether a test ran, and the setups and teardowns that failed."""
        if report.get("when") == "call" or report.get("outcome") != "passed":
            self.ran_tests = True
        if report.get("when") in ("setup", "teardown") and report.get("outcome") == "failed":
            self.errored.add((report["nodeid"], report["when"]))

    def _payload_of(self, report: dict[str, Any]) -> CasePayload | None:
        """The report's case payload; a crashed worker's case gets one made for it."""
        payload: CasePayload | None = report.get("payload")
        if payload is None and report.get("when") == CRASHED:
            payload = report["payload"] = crashed_case_payload(
                report["nodeid"], self.datasets.by_key(), report.get("message")
            )
        return payload

    def _note_judge(self, payload: CasePayload) -> None:
        """The adapter and the judges a case names, each once, in the order first seen."""
        if self.adapter_label is None and payload.get("adapter"):
            self.adapter_label = payload["adapter"]
        _add_once(self.judge_labels, payload.get("judge"))
        _add_once(self.judge_identities, payload.get("judge_identity"))

    @property
    def judge_label(self) -> str | None:
        """The judges the run used, as the reports name them ("a; b" for two)."""
        return "; ".join(self.judge_labels) or None

    @property
    def unsupported_policy(self) -> Literal["fail", "report"]:
        """``judge.unsupported``, or its default: fail (exit 1), whichever judge was chosen. A
        check not judged is no outage: it never makes the run fatal, nor hides a critical
        failure behind the fatal code."""
        return self.settings.judge.unsupported or "fail"

    def _calibration_warnings(self) -> list[str]:
        """Whether the judges the tests used are the one ``judge.calibration`` was made for:
        thresholds chosen on another judge's scores may not fit."""
        path = self.settings.judge.calibration
        if path is None or not self.judge_identities:
            return []
        calibrated = _calibrated_identity(path)
        if calibrated is _UNREADABLE:
            return []
        return _calibration_mismatch(path, calibrated, self.judge_identities)

    def setup_failed(self, message: str) -> None:
        """A test's fixture could not give the judge or the RAG system: the run is fatal."""
        if self.collector.setup_error is None:
            self.collector.setup_error = message

    @paused_collection()  # what the run built lives until written: no cyclic garbage
    def finish(self, *, pytest_status: int, failed_tests: int, interrupted: bool) -> ExitDecision:
        """Summarise, decide, write. Returns the exit decision for pytest's session.
        ``failed_tests`` counts as pytest does, errors and failures together."""
        try:
            return self._finish(pytest_status, failed_tests, interrupted=interrupted)
        finally:
            self.close()

    def close(self) -> None:
        """Remove what the run spooled to disk (its cases are in the reports by now)."""
        self.collector.close()
        if self._cases is not None:
            self._cases.close()
            self._cases = None

    def _finish(self, pytest_status: int, failed_tests: int, *, interrupted: bool) -> ExitDecision:
        folded = self._fold()
        decided = self._decide(folded, pytest_status, failed_tests)
        self.decision = decided.decision
        if self._writes_nothing(decided):
            return decided.decision
        history = self._keeps_history(decided)
        run = self._run_section(decided, pytest_status, folded, interrupted=interrupted)
        self._publish(self._document(run, decided, history=history), folded, history)
        if history and not interrupted:  # what the next run of this selection compares with
            self._store(decided.noise)
        return decided.decision

    def _decide(self, folded: _Folded, pytest_status: int, failed_tests: int) -> _Decided:
        """The summary, the selection, the noise check and the verdict."""
        settings = self.settings
        summary = folded.builder.summary(
            thresholds=settings.thresholds,
            slow_threshold=settings.slow_threshold,
            critical_tests=list(self.collector.critical_tests.values()),
        )
        chosen = self._selection(folded, summary)
        noise = check_noise(
            settings.regression,
            self.output_dir,
            chosen.judge_identity,
            self.run.run_id,
            folded.noise,
            judge=self.judge_label,
        )
        end = self._run_end(pytest_status, failed_tests, noise)
        codes = ExitCodes(critical=settings.exit_codes.critical, fatal=settings.exit_codes.fatal)
        return _Decided(summary, chosen, noise, end, decide_verdict(summary, end, codes))

    def _writes_nothing(self, decided: _Decided) -> bool:
        """A run that ran no test writes nothing, unless it is a shard without cases (its
        report is for the merge) or Ctrl-C stopped it (its report says so)."""
        return not self.ran_tests and not decided.empty_shard_report and not self.signalled

    def _keeps_history(self, decided: _Decided) -> bool:
        """An empty shard's report exists for the merge, an interrupted run's that ran no test
        to say so: neither adds a line to the history."""
        return self.settings.output.history and not decided.empty_shard_report and self.ran_tests

    def _store(self, noise: NoiseCheck) -> None:
        try:
            noise.store()
        except OSError as exc:
            self.write_errors.append(f"{self.output_dir / BASELINES}: {exc.strerror or exc}")
        except UnreadableStore as exc:  # changed since it was read: it names the file
            self.write_errors.append(str(exc))

    def _fold(self) -> _Folded:
        """Each case read back from the spool alone, in report order: counted into the
        summary and the noise check, and spooled again as the report shows it."""
        folded = _Folded(
            SummaryBuilder(self.settings.normalised_weights()), CaseSpool(self.output_dir)
        )
        self._cases = folded.cases
        slow = self.settings.slow_threshold
        for record in self.collector.records():
            scored = folded.builder.add(record)
            folded.noise.add(record)
            folded.keys.append(record.payload["key"])
            if record.payload.get("inline"):
                folded.inline.append({f: record.payload.get(f) for f in _DEFINING})
            self._spool_case(folded.cases, case_result(record, scored, slow))
        return folded

    def _spool_case(self, cases: CaseSpool, case: CaseResult) -> None:
        """The case as the JSON report writes it (every secret masked) and, where that
        differs, as the renderers show it."""
        doc = case.model_dump(mode="json")
        written = self.redactor.data(doc)
        shown = None if written == doc else _masked(doc, self.redactor, CaseResult)
        cases.add(written, None if shown == written else shown)

    def _selection(self, folded: _Folded, summary: RunSummary) -> Selection:
        return selection(
            cases=folded.keys,
            metrics=list(summary.metrics),
            judge=self.judge_label,
            judge_identities=self.judge_identities,
            datasets_sha256=datasets_digest(
                [ds.sha256 for ds in self.datasets.datasets], folded.inline
            ),
            total_cases=self.datasets.total_cases + len(folded.inline),
        )

    def _run_end(self, pytest_status: int, failed_tests: int, noise: NoiseCheck) -> RunEnd:
        settings = self.settings
        return RunEnd(
            pytest_status=pytest_status,
            pytest_detail=self.interruption,
            ran_tests=self.ran_tests,
            failed_tests=max(0, failed_tests - len(self.errored)),
            errored_tests=len(self.errored),
            setup_error=self.collector.setup_error,
            report_only=settings.report_only,
            empty_shard=self._empty_shard(),
            unsupported=self.unsupported_policy,
            regressions=noise.failing(),
            baseline_unusable=noise.unusable(),
            quarantined=tuple(noise.quarantined.items()),
        )

    def _empty_shard(self) -> str | None:
        shard = self.settings.shard
        if shard is None or self.datasets.cases:
            return None
        return (
            f"shard {shard} holds none of the {self.datasets.total_cases} cases: "
            "its report has no case, for rag-eval merge"
        )

    def _run_section(
        self, decided: _Decided, pytest_status: int, folded: _Folded, *, interrupted: bool
    ) -> RunSection:
        settings, decision = self.settings, decided.decision
        return RunSection(
            id=self.run.run_id,
            started_at=self.run.started_at,
            finished_at=now_iso(),
            duration_s=round(time.monotonic() - self.started, 3),
            partial=interrupted,
            datasets=[_dataset_info(ds) for ds in self.datasets.datasets],
            selected_cases=len(self.datasets.cases) + len(folded.inline),
            tags_filter=list(settings.tags),
            shard=settings.shard,
            selection=decided.chosen,
            adapter=self.adapter_label,
            judge=self.judge_label,
            git_commit=git_commit(self.rootdir),
            pytest_exit=pytest_status,
            exit_code=decision.code,
            exit_reason=decision.reason,
            report_only=settings.report_only,
            setup_error=self.collector.setup_error,
            unsupported=self.unsupported_policy,
        )

    def _document(self, run: RunSection, decided: _Decided, *, history: bool) -> Report:
        """The report without its cases (they are spooled), compared and with its trend."""
        noise = decided.noise
        report = build_document(
            run,
            decided.summary,
            [],
            critical_tests=list(self.collector.critical_tests.values()),
            warnings=[*self.datasets.warnings, *self._calibration_warnings()],
            thresholds=dict(self.settings.thresholds),
            weights=self.settings.normalised_weights(),
            version=self.version,
        )
        report = report.model_copy(
            update={
                "comparison": noise.comparison,
                "flaky": [
                    FlakyCase(key=key, outcomes=outcomes, quarantined=key in noise.quarantined)
                    for key, outcomes in noise.flaky.items()
                ],
            }
        )
        return self._with_trend(report) if history else report

    def _publish(self, report: Report, folded: _Folded, history: bool) -> None:
        """Write the reports, the history line and the step summary (secrets masked)."""
        doc = report.to_json()
        written = self.redactor.data(doc)
        self.report = Report.from_json(_masked(doc, self.redactor, Report))
        self._write(self.report, written, folded.cases, history=history)
        self._append_step_summary(self.report, folded.cases)

    def _with_trend(self, report: Report) -> Report:
        """The report with the last runs from results.jsonl and this one, regressions
        flagged."""
        import warnings

        with warnings.catch_warnings(record=True) as caught:  # bad lines: said in the report
            warnings.simplefilter("always")
            history = read_lines(self.output_dir / HISTORY_FILE)
        trend = build_trend(
            history, history_entry(report), tolerance=self.settings.output.regression_tolerance
        )
        comparison = report.comparison
        if (
            comparison is not None
            and comparison.baseline.startswith("history")
            and (comparison.changes)
        ):
            # The same test as the gate: a drop larger than the judge's noise, not a mean that
            # moved by more than a tolerance.
            trend = trend.model_copy(
                update={
                    "regressions": [
                        Regression(
                            name=c.metric,
                            previous=c.before,
                            current=c.after,
                            previous_run=comparison.baseline_run,
                        )
                        for c in comparison.regressions
                    ]
                }
            )
        return report.with_trend(trend, [str(w.message) for w in caught])

    def _append_step_summary(self, report: Report, cases: CaseSpool) -> None:
        """The compact summary: ``eval_summary.md`` beside the reports (a pull-request
        comment), and on GitHub Actions the run's page (``$GITHUB_STEP_SUMMARY``)."""

        def write(out: TextIO) -> None:
            write_step_summary(out, report, cases)

        if "markdown" in self.settings.output.formats:
            self._write_file(self.output_dir / SUMMARY_FILE, write)
        problem = append_step_summary(write)
        if problem:
            self.write_errors.append(problem)

    def _write(
        self, report: Report, doc: dict[str, Any], cases: CaseSpool, *, history: bool
    ) -> None:
        """Write the reports (``report`` as the renderers show it, ``doc`` as the JSON report
        writes it, each without its cases: ``cases``) and, with ``history``, its history
        line."""
        out = self.output_dir
        for name, write in self._writers(report, doc, cases):
            self._write_file(out / name, write)
        if history:
            path = out / HISTORY_FILE
            try:
                append_line(path, history_entry(report))
                self.written.append(str(path))
            except (OSError, TimeoutError, ValueError) as exc:
                self.write_errors.append(f"{path}: {exc}")

    def _writers(
        self, report: Report, doc: dict[str, Any], cases: CaseSpool
    ) -> list[tuple[str, Callable[[TextIO], object]]]:
        """Each report file the run writes, and what writes it."""
        formats = self.settings.output.formats
        writers: dict[str, tuple[str, Callable[[TextIO], object]]] = {
            "json": (JSON_REPORT, lambda fh: write_report_json(fh, doc, cases.written())),
            "markdown": (MARKDOWN_REPORT, lambda fh: write_markdown(fh, report, cases)),
            "html": (HTML_REPORT, lambda fh: write_html(fh, report, cases)),
        }
        return [writers[name] for name in ("json", "markdown", "html") if name in formats]

    def _write_file(self, path: Path, write: Callable[[TextIO], object]) -> None:
        try:
            with atomic_writer(path, shared=True) as fh:
                write(fh)
            self.written.append(str(path))
        except OSError as exc:
            self.write_errors.append(f"{path}: {exc.strerror or exc}")
        except ValueError as exc:  # a value no report can hold: the others are still written
            self.write_errors.append(f"{path}: {exc}")


_DEFINING = ("key", "question", "ground_truth", "expected_contexts")
"""What defines a case made in code, for the selection's digest of the datasets."""


@dataclass(frozen=True)
class _Decided:
    summary: RunSummary
    chosen: Selection
    noise: NoiseCheck
    end: RunEnd
    decision: ExitDecision

    @property
    def empty_shard_report(self) -> bool:
        """A shard without cases passes (pytest would exit 5, turning a fixed CI matrix over a
        small dataset red though nothing got worse) and writes a report for the merge."""
        return self.end.empty_shard is not None and self.decision.reason == self.end.empty_shard


@dataclass
class _Folded:
    """What the run keeps of its cases once each was read back: the summary's counts, what
    the noise check needs, the cases spooled as the report shows them, their keys."""

    builder: SummaryBuilder
    cases: CaseSpool
    noise: RunCases = field(default_factory=RunCases)
    keys: list[str] = field(default_factory=list)
    inline: list[dict[str, Any]] = field(default_factory=list)
    """What defines each case made in code (:data:`_DEFINING`)."""


def _add_once(seen: list[str], name: str | None) -> None:
    if name and name not in seen:
        seen.append(name)


_UNREADABLE = object()
"""A calibration file that cannot be read: no warning about it here."""


def _calibrated_identity(path: str) -> object:
    """The judge identity the calibration file at ``path`` was made for (``None`` when it
    names none), or :data:`_UNREADABLE`."""
    import json
    from pathlib import Path

    try:
        return json.loads(Path(path).read_text(encoding="utf-8")).get("judge_identity")
    except (OSError, ValueError, AttributeError):
        return _UNREADABLE


def _calibration_mismatch(path: str, calibrated: object, identities: list[str]) -> list[str]:
    """The warning when a judge of the run is not the one the calibration was made for."""
    others = [i for i in identities if i != calibrated]
    if not others:
        return []
    return [
        f"judge.calibration {path} was made for another judge identity ({calibrated}) than "
        f"this run's ({', '.join(others)}): its thresholds may not fit; run rag-eval "
        "calibrate again with this judge"
    ]


def _dataset_info(ds: Dataset) -> DatasetInfo:
    return DatasetInfo(
        path=str(ds.path),
        name=ds.metadata.name,
        version=ds.metadata.version,
        created=ds.metadata.created.isoformat() if ds.metadata.created else None,
        cases=len(ds.cases),
    )


def _masked(doc: dict[str, Any], redactor: Redactor, model: type[BaseModel]) -> dict[str, Any]:
    """``doc`` (a report or a case as JSON) with every secret in its text masked, for the
    renderers. A secret inside one of the report's fixed words (a status such as ``failed``)
    leaves that word whole: the renderers print those words anyway."""

    def mask(value: Any) -> Any:
        if isinstance(value, str):
            return redactor.text(value)
        if isinstance(value, dict):
            return {key: mask(item) for key, item in value.items()}
        if isinstance(value, list):
            return [mask(item) for item in value]
        return value

    masked: Any = mask(doc)
    try:
        model.model_validate(masked)
    except ValidationError as exc:
        for error in exc.errors():
            *parents, last = error["loc"]
            target, source = masked, cast("Any", doc)
            for step in parents:
                target, source = target[step], source[step]
            target[last] = source[last]
    return cast("dict[str, Any]", masked)
