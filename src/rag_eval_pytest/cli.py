"""The ``rag-eval`` command: ``rag-eval merge`` combines the reports of shards.

rag-eval merge shard-*/eval_report.json --output-dir results
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import RagEvalError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rag-eval", description="rag-eval-pytest tools")
    commands = parser.add_subparsers(dest="command", required=True)
    merge = commands.add_parser(
        "merge",
        help="merge the eval_report.json of shards (--rag-shard I/N) into one report",
        description="Merge the JSON reports of shards into eval_report.json and "
        "eval_report.md, append one line to results.jsonl, and exit with the run's code.",
    )
    merge.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    merge.add_argument("--output-dir", type=Path, default=Path("results"), metavar="DIR")
    merge.add_argument("--no-history", action="store_true", help="do not append to results.jsonl")
    merge.add_argument("--critical-exit-code", type=int, default=2, metavar="CODE")
    merge.add_argument("--fatal-exit-code", type=int, default=3, metavar="CODE")
    merge.add_argument(
        "--allow-partial",
        action="store_true",
        help="merge even when shards are missing, given twice or from different runs: the "
        "report is marked partial and says what is missing (otherwise: the fatal code)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    from .atomic import write_atomic
    from .reporting.files import (
        HISTORY_FILE,
        JSON_REPORT,
        MARKDOWN_REPORT,
        append_history,
        report_json,
    )
    from .reporting.history import history_entry
    from .reporting.markdown import render_markdown
    from .reporting.merge import merge_reports
    from .reporting.reader import load_report

    try:
        docs = [(path, load_report(path)) for path in options.reports]
        merged = merge_reports(
            docs,
            version=_version(),
            critical_code=options.critical_exit_code,
            fatal_code=options.fatal_exit_code,
            allow_partial=options.allow_partial,
        )
    except RagEvalError as exc:
        print(f"rag-eval merge: {exc}", file=sys.stderr)
        return int(options.fatal_exit_code)
    out: Path = options.output_dir
    report = merged.report
    if not options.no_history:
        from .reporting.files import read_history
        from .reporting.trend import build_trend

        report = report.with_trend(
            build_trend(read_history(out / HISTORY_FILE), history_entry(report))
        )
    write_atomic(out / JSON_REPORT, report_json(report.to_json()), shared=True)
    write_atomic(out / MARKDOWN_REPORT, render_markdown(report), shared=True)
    written = [out / JSON_REPORT, out / MARKDOWN_REPORT]
    if not options.no_history:
        append_history(out / HISTORY_FILE, history_entry(report))
        written.append(out / HISTORY_FILE)
    counts = report.summary.counts
    composite = report.summary.composite.score
    print(
        f"merged {len(docs)} reports: {counts.cases} cases ({counts.passed} passed, "
        f"{counts.failed} failed, {counts.errors} errors), composite "
        f"{'n/a' if composite is None else f'{composite:.2f}'}"
    )
    for path in written:
        print(f"wrote {path}")
    for warning in report.warnings:
        if warning.startswith("partial merge: "):
            print(f"warning: {warning}", file=sys.stderr)
    print(f"rag-eval: exit {merged.decision.code}: {merged.decision.reason}")
    return merged.decision.code


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rag-eval-pytest")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
