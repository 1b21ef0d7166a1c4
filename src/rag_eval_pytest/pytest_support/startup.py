"""A run's start: which role objects this process registers, and with what.

With a dataset, :func:`start_dataset_run` builds the session (bad input ends the run here,
before any test is collected, with one message and the fatal code) and registers the
process's roles: the :class:`~.runner.Runner` (a :class:`~.runner.WorkerRunner` on an xdist
worker) and, where the reports are written, the :class:`~.aggregation.AggregatingProcess`.
Without one, :func:`start_dormant_run` registers the :class:`~.inline.DormantRun`, which does
the same when a test first evaluates a case made in code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from ..config.options import ini_flag, removed_ini_key
from ..errors import RagEvalError

if TYPE_CHECKING:
    from pathlib import Path

    from ..engine.session import EvalSession


def start_dataset_run(config: pytest.Config, paths: list[Path]) -> None:
    """Build the session from the datasets at ``paths`` and register this process's roles."""
    from .bootstrap import fatal_exit_code
    from .guard import SingleExitMessage
    from .runner import Runner, WorkerRunner

    config.pluginmanager.register(SingleExitMessage(config), "rag_eval_single_exit_message")
    session = _session_or_exit(config, paths)
    worker = hasattr(config, "workerinput")
    # The runner first (it closes the session's loops at the end, however the run ends);
    # idle on an xdist controller, which collects nothing.
    (WorkerRunner if worker else Runner).register(config, session)
    if worker:
        return
    try:
        notices = _notices(config, session)
    except RagEvalError as exc:
        error = str(exc)
    else:
        _register_aggregating(config, session, notices)
        return
    pytest.exit(f"rag-eval: {error}", returncode=fatal_exit_code(config))


def _register_aggregating(config: pytest.Config, session: EvalSession, notices: list[str]) -> None:
    from .aggregation import AggregatingProcess

    if session.settings.dry_run:
        from .dry_run import render_plan

        config.get_terminal_writer().line(render_plan(session))
        pytest.exit("rag-eval: dry run, nothing was called", returncode=0)
    AggregatingProcess.register(config, session, notices).handle_sigterm()


def _session_or_exit(config: pytest.Config, paths: list[Path]) -> EvalSession:
    from .bootstrap import build_session, fatal_exit_code

    try:
        return build_session(config, paths)
    except RagEvalError as exc:
        error = str(exc)
    from ..reporting.step_summary import append_fatal_summary

    code = fatal_exit_code(config)
    append_fatal_summary(error, code)
    # Raised outside the except block: the exit carries no chained traceback, whose frames'
    # arguments (the raw config, the environment) pytest would render.
    pytest.exit(f"rag-eval: {error}", returncode=code)


def _notices(config: pytest.Config, session: EvalSession) -> list[str]:
    """The configuration's and the datasets' warnings, issued once (a warnings filter may
    make them errors)."""
    from . import notices

    return notices.issue(config, [*session.config_warnings, *session.datasets.warnings])


def start_dormant_run(config: pytest.Config) -> None:
    """A run without a dataset: dormant until a test evaluates a case made in code."""
    from .inline import DormantRun, dry_run_without_dataset

    if removed_ini_key(config.getini) is not None:
        _exit_on_removed_ini_key(config)
    dry = config.getini("rag_dry_run")
    # A value that is not true or false runs the dry run too, which refuses it by name.
    if config.getoption("rag_dry_run", False) or (dry and ini_flag(dry) is not False):
        dry_run_without_dataset(config)
    DormantRun.register(config)


def _exit_on_removed_ini_key(config: pytest.Config) -> None:
    """A removed ini key ends a run without a dataset too, naming what replaces it."""
    from .bootstrap import fatal_exit_code, refuse_removed_ini_keys

    try:
        refuse_removed_ini_keys(config)
    except RagEvalError as exc:
        error = str(exc)
    else:
        return
    pytest.exit(f"rag-eval: {error}", returncode=fatal_exit_code(config))
