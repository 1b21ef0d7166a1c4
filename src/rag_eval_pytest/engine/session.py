"""The evaluation session of one pytest process: its settings, cases and shared means.

Every pytest process with a dataset has one (a plain run, the xdist controller and each
worker): the resolved settings, the selected cases, the redactor, the run's identity, the
background event loop and the limiters. The work itself (queries, metrics, judges) is the
:class:`~.engine.Engine`'s, in the processes that run tests.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..data.response import Message, RAGResponse
from ..metrics.base import Measurement, Metric, Sample, Services
from ..runtime.event_loop import CLOSE_WAIT, GuardedLoop, LoopThread
from ..runtime.limits import AdaptiveLimiter
from .progress import RunProgress

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence
    from pathlib import Path

    from ..config.settings import Settings
    from ..data.dataset import DatasetCollection, LoadedCase
    from ..judges.llm import JudgeDeadline
    from ..redaction import Redactor
    from ..reporting.payload import RunInfo

THREADS_TIMEOUT = 30.0
"""Seconds the end of a run waits for blocking calls still running in worker threads."""
INTERRUPTED_WAIT = 0.25
"""Seconds each step of closing a loop may take after Ctrl-C or SIGTERM (the reports are
written by then): a CI runner kills the process about 10 s after its SIGTERM."""


def closing_wait(interrupted: bool) -> float:
    """Seconds each step of closing a loop may take at the end of a run."""
    return INTERRUPTED_WAIT if interrupted else CLOSE_WAIT


@dataclass
class EvalSession:
    settings: Settings
    datasets: DatasetCollection
    redactor: Redactor
    run: RunInfo
    search_paths: list[Path] = field(default_factory=list)
    config_warnings: list[str] = field(default_factory=list)
    config_file: str = ""
    """The config file in force, or where none was found (``ConfigFile.describe``)."""
    calibration: dict[str, Any] | None = None
    """The calibration file of ``judge.calibration``, read at the start (``rag-eval
    calibrate``)."""
    judge_cache_dir: Path | None = None
    loop: LoopThread = field(default_factory=LoopThread)
    rag_loop: GuardedLoop = field(default_factory=GuardedLoop)
    """The loop the RAG system's code runs on (all adapters but HTTP): one it may block."""
    rag_limiter: AdaptiveLimiter = field(init=False)
    judge_limiter: AdaptiveLimiter = field(init=False)
    case_limiter: AdaptiveLimiter = field(init=False)
    judge_deadline: JudgeDeadline = field(init=False)
    progress: RunProgress = field(default_factory=RunProgress)
    notify: Callable[[str], None] | None = None  # a line of information on the terminal
    _notices: set[str] = field(default_factory=set)

    def default_threshold(self, metric: Metric) -> float:
        """A metric's threshold when a test gives none: the calibration's, else its own."""
        if self.calibration is not None:
            entry = self.calibration["metrics"].get(metric.result_name)
            if entry is not None:
                return float(entry["best_threshold"])
        return metric.default_threshold

    def __post_init__(self) -> None:
        limits = self.settings.concurrency
        self.rag_limiter = AdaptiveLimiter(limits.rag or limits.limit)
        # Twice the cases by default: a provider's queue stays full while responses are
        # being parsed (the limiter halves itself on 429 and overload).
        self.judge_limiter = AdaptiveLimiter(limits.judge or 2 * limits.limit)
        self.case_limiter = AdaptiveLimiter(limits.limit)
        from ..judges.llm import JudgeDeadline

        self.judge_deadline = JudgeDeadline(self.settings.judge.deadline)
        # Configured auth headers are secrets in every process, the aggregating one included,
        # before any adapter exists (workers may be the ones that build it).
        for source, secrets in configured_secrets(self.settings):
            self.redactor.add(*secrets, source=source)
        weak = self.redactor.weak_sources()
        if weak:
            from ..redaction import weak_secrets_notice

            self.config_warnings.append(weak_secrets_notice(weak))

    def __repr__(self) -> str:
        # Short, and without the settings' credentials (``pytest -l`` prints it).
        return f"EvalSession(run={self.run.run_id!r}, cases={len(self.datasets.cases)})"

    # ------------------------------------------------------------------ cases

    @property
    def cases(self) -> list[LoadedCase]:
        return self.datasets.cases

    def case(self, key: str) -> LoadedCase:
        """The selected case ``key`` (``KeyError`` when there is none), by its key."""
        return self.datasets.by_key()[key]

    def add_secrets(self, secrets: Sequence[str], source: str) -> None:
        """Mask ``secrets`` (an adapter's, a judge's) from now on; say once which of them are
        too weak to be masked in texts."""
        known = set(self.redactor.weak_sources())
        self.redactor.add(*secrets, source=source)
        weak = [s for s in self.redactor.weak_sources() if s not in known]
        if weak:
            from ..redaction import weak_secrets_notice

            self.notice(f"rag-eval: {weak_secrets_notice(weak)}")

    def notice(self, line: str) -> None:
        """Tell the user something once per run, on the terminal."""
        if line in self._notices or self.notify is None:
            return
        self._notices.add(line)
        with contextlib.suppress(Exception):  # information only, never an error
            self.notify(self.redactor.text(line))

    # ------------------------------------------------------------------ lifecycle

    def close(
        self, closers: Sequence[Callable[[], Awaitable[None]]] = (), *, interrupted: bool = False
    ) -> None:
        """Run ``closers`` (the clients' ``aclose``), then close the loops. Blocking calls
        still running (the model loading, a slow RAG call after ``-x``) are waited for, for a
        while, unless the run was interrupted (Ctrl-C, SIGTERM): then the process ends without
        them, and each loop gets :data:`INTERRUPTED_WAIT` seconds a step. A blocked loop is
        not waited for."""

        async def close_all() -> None:
            for aclose in closers:
                with contextlib.suppress(Exception):  # best effort at the end of a run
                    await aclose()

        wait = closing_wait(interrupted)
        until = time.monotonic() + (0 if interrupted else THREADS_TIMEOUT)
        self.loop.close(close_all(), threads_timeout=until - time.monotonic(), wait=wait)
        self.rag_loop.close(threads_timeout=until - time.monotonic(), wait=wait)


def configured_secrets(settings: Settings) -> list[tuple[str, list[str]]]:
    """The secrets the settings name, known before any client is built, with where each
    comes from: the RAG endpoint's and the judge URL's credentials, and the values of the
    configured HTTP headers."""
    from ..errors import ConfigError
    from ..redaction import header_secrets, url_secrets
    from ..values import resolve_headers

    http = settings.http
    found = [
        ("the RAG endpoint's URL", url_secrets(http.endpoint) if http.endpoint else []),
        ("judge.base_url", url_secrets(settings.judge.base_url or "")),
    ]
    try:
        headers = header_secrets(resolve_headers(http.headers, http.header_args))
    except ConfigError:  # reported where the headers are used
        return found
    return [*found, ("an HTTP header of the RAG endpoint", headers)]


def recorded_response(loaded: LoadedCase) -> RAGResponse:
    case = loaded.case
    assert case.answer is not None
    return RAGResponse(answer=case.answer, contexts=case.contexts, latency=None)


def make_sample(
    loaded: LoadedCase, response: RAGResponse, history: Sequence[Message] = ()
) -> Sample:
    case = loaded.case
    return Sample(
        history=history,
        case_key=loaded.key,
        question=case.question,
        ground_truth=case.ground_truth or "",
        answer=response.answer,
        contexts=list(response.contexts) if response.contexts is not None else None,
        sources=response.retrieved_sources,
        ranked_sources=response.ranked_sources,
        expected_contexts=case.expected_contexts,
        expected_grades=case.expected_grades,
    )


async def measure(metric: Metric, sample: Sample, services: Services) -> Measurement:
    """Run a metric, turning missing inputs into an explicit *not judged*."""
    missing = metric.missing_input(sample, services)
    if missing is not None:
        return Measurement.not_judged(missing)
    return await metric.measure(sample, services)
