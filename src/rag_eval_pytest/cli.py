"""The ``rag-eval`` command: ``rag-eval merge`` combines the reports of shards;
``rag-eval report`` rebuilds the HTML report from the JSON report and the history;
``rag-eval convert`` turns a DeepEval or RAGAS dataset into one of ours; ``rag-eval generate``
makes a test set from the user's own documents (:mod:`.generate`).

rag-eval merge shard-*/eval_report.json --output-dir results
rag-eval report results
rag-eval convert --from deepeval goldens.json dataset.json
rag-eval calibrate labelled.json --output calibration.json
rag-eval generate docs/ --output generated.json

No command writes over one of its inputs (under any name: a link, a relative path), and an
output that exists is replaced only with ``--force``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import output_refusal
from .data.foreign import FORMATS, Format
from .errors import RagEvalError
from .release import package_version

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .data.foreign import Conversion
    from .engine.calibration import Agreement, Calibration
    from .reporting.merge import Merged
    from .reporting.models import Report
    from .reporting.report_file import ReportParts
    from .reporting.spool import CaseSpool

_FATAL = 3
_PROBLEMS_SHOWN = 10


class _Stop(Exception):
    """A command stops with one message (after the command's name) and the fatal exit code."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rag-eval", description="rag-eval-pytest tools")
    commands = parser.add_subparsers(dest="command", required=True)
    _merge_parser(commands)
    _report_parser(commands)
    _convert_parser(commands)
    _calibrate_parser(commands)
    _generate_parser(commands)
    return parser


def _merge_parser(commands: Any) -> None:
    merge = commands.add_parser(
        "merge",
        help="merge the eval_report.json of shards (--rag-shard I/N) into one report",
        description="Merge the JSON reports of shards into eval_report.json, eval_report.md "
        "and eval_report.html, append one line to results.jsonl, and exit with the run's code. "
        "The reports must not exist in DIR yet (unless --force) and are never one of the "
        "shards' reports.",
    )
    merge.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    merge.add_argument("--output-dir", type=Path, default=Path("results"), metavar="DIR")
    merge.add_argument("--no-history", action="store_true", help="do not append to results.jsonl")
    merge.add_argument(
        "--force",
        action="store_true",
        help="replace the reports when DIR already has them (results.jsonl is appended to)",
    )
    merge.add_argument("--critical-exit-code", type=int, default=2, metavar="CODE")
    merge.add_argument("--fatal-exit-code", type=int, default=3, metavar="CODE")
    merge.add_argument(
        "--allow-partial",
        action="store_true",
        help="merge even when shards are missing, given twice or from different runs: the "
        "report is marked partial and says what is missing (otherwise: the fatal code)",
    )


def _convert_parser(commands: Any) -> None:
    convert = commands.add_parser(
        "convert",
        help="convert a DeepEval or RAGAS dataset file into a dataset of rag-eval-pytest",
        description="Convert DeepEval goldens or test cases, or RAGAS samples (JSON, JSONL or "
        "CSV), into a dataset file (JSON, JSONL or YAML by OUT's suffix). Items with an "
        "answer become cases with a recorded answer: the RAG system is not called for them. "
        "OUT must not exist yet (unless --force) and is never IN.",
    )
    convert.add_argument("--from", dest="source", required=True, choices=FORMATS)
    convert.add_argument("input", type=Path, metavar="IN")
    convert.add_argument("output", type=Path, metavar="OUT")
    convert.add_argument("--force", action="store_true", help="replace OUT when it exists")


def _generate_parser(commands: Any) -> None:
    generate = commands.add_parser(
        "generate",
        help="generate a test set from your own documents",
        description="Read DOCS (files and folders: Markdown, text, HTML, PDF, JSONL rows of "
        "{text, source}), split them into chunks with stable ids and write a dataset of "
        "questions with ground truths and the chunks each came from (expected_contexts). "
        "Offline (--judge local, the default without a key): extractive questions made by "
        "rule. With an LLM judge: questions of several kinds, each checked against its "
        "chunks. FILE must not exist yet (unless --force or --append) and is never one of "
        "DOCS. Review the cases before committing them.",
    )
    generate.add_argument("documents", nargs="+", type=Path, metavar="DOCS")
    generate.add_argument("--output", type=Path, required=True, metavar="FILE")
    generate.add_argument("--count", type=int, default=20, metavar="N", help="default: 20")
    generate.add_argument(
        "--judge", default=None, metavar="KIND", help="as --rag-judge (local: offline)"
    )
    generate.add_argument(
        "--config", type=Path, default=None, metavar="PATH", help="default: eval-config.yaml"
    )
    generate.add_argument("--seed", type=int, default=0, metavar="N", help="default: 0")
    _generate_kinds(generate)
    generate.add_argument("--append", action="store_true", help="add to FILE's cases")
    generate.add_argument(
        "--dry-run", action="store_true", help="print the plan and its cost, ask nothing"
    )
    generate.add_argument("--max-cost", type=float, default=None, metavar="USD")
    generate.add_argument("--force", action="store_true", help="replace FILE when it exists")


def _generate_kinds(generate: argparse.ArgumentParser) -> None:
    """What ``rag-eval generate`` writes: the kinds of question, conversations, and how the
    expected contexts name their documents."""
    generate.add_argument(
        "--types",
        type=lambda text: [t.strip() for t in text.split(",") if t.strip()],
        default=None,
        metavar="KINDS",
        help="comma-separated: single, multi_hop, comparison, conditional, unanswerable "
        "(default: all; offline: extractive)",
    )
    generate.add_argument(
        "--conversations", type=int, default=0, metavar="K", help="K multi-turn cases too"
    )
    generate.add_argument(
        "--source-format",
        choices=("path", "chunk"),
        default="path",
        help="expected_contexts as the document path as given (default) or path#chunk",
    )


def _generate(options: argparse.Namespace) -> int:
    """``rag-eval generate``: 0 when the dataset is written, 3 (one message) otherwise."""
    from .generate.command import run
    from .generate.request import Request

    request = Request(
        documents=options.documents,
        output=options.output,
        count=options.count,
        judge=options.judge,
        config=options.config,
        seed=options.seed,
        types=options.types,
        conversations=options.conversations,
        source_format=options.source_format,
        append=options.append,
        dry_run=options.dry_run,
        max_cost=options.max_cost,
        force=options.force,
    )
    return run(request)


def _report_parser(commands: Any) -> None:
    report = commands.add_parser(
        "report",
        help="rebuild eval_report.html from eval_report.json and the history",
        description="Write eval_report.html from a run's eval_report.json (REPORT: the file, "
        "or the output folder that holds it). Its trend is the one the report recorded; a "
        "report without one (a run or merge without history) gets its trend from the "
        "results.jsonl beside it, when there is one. The page must not exist yet (unless "
        "--force: the run wrote one) and is never the JSON report or the history.",
    )
    report.add_argument("report", type=Path, nargs="?", default=Path("results"), metavar="REPORT")
    report.add_argument(
        "--output",
        type=Path,
        default=None,
        metavar="FILE",
        help="default: eval_report.html beside the JSON report",
    )
    report.add_argument(
        "--history",
        type=Path,
        default=None,
        metavar="FILE",
        help="default: results.jsonl beside the JSON report",
    )
    report.add_argument("--force", action="store_true", help="replace the page when it exists")


def _report(options: argparse.Namespace) -> int:
    """``rag-eval report``: 0 when the page is written, 3 (one message) otherwise. The JSON
    report is read in parts (each case where it lies in the file, read again as the page
    shows it), so the page of any number of cases is written holding one at a time."""
    from .atomic import atomic_writer
    from .reporting.html_report import write_html

    source, history, out = _report_paths(options)
    try:
        parts = _loaded_report(source, out, history, force=options.force)
    except _Stop as stop:
        print(f"rag-eval report: {stop}", file=sys.stderr)
        return _FATAL
    report = parts.head
    if report.trend is None and history.is_file():
        report = _with_history(report, history)
    try:
        with atomic_writer(out, shared=True) as fh:
            write_html(fh, report, parts.cases)
    except OSError as exc:
        print(f"rag-eval report: {out}: cannot be written ({exc.strerror})", file=sys.stderr)
        return _FATAL
    counts = report.summary.counts
    print(f"wrote {out} ({counts.cases} cases, exit {report.run.exit_code} reported)")
    return 0


def _report_paths(options: argparse.Namespace) -> tuple[Path, Path, Path]:
    """The JSON report, the history and the page to write: as given, or beside the report."""
    from .reporting.files import HISTORY_FILE, HTML_REPORT, JSON_REPORT

    path: Path = options.report
    source = path / JSON_REPORT if path.is_dir() else path
    history: Path = options.history or source.parent / HISTORY_FILE
    out: Path = options.output or source.parent / HTML_REPORT
    return source, history, out


def _loaded_report(source: Path, out: Path, history: Path, *, force: bool) -> ReportParts:
    """The JSON report (in parts), once the page may be written where it goes."""
    from .reporting.report_file import open_report

    refusal = output_refusal(out, [source, history], force=force, role="--output")
    if refusal is not None:
        raise _Stop(refusal)
    try:
        return open_report(source)
    except RagEvalError as exc:
        raise _Stop(str(exc)) from None


def _with_history(report: Report, history: Path) -> Report:
    """The report with its trend built from ``history``: the lines before the report's own
    (matched by run id; all of them when it has none), and the report as the last run."""
    import warnings

    from .reporting.history import history_entry, read_lines
    from .reporting.trend import build_trend

    with warnings.catch_warnings(record=True) as caught:  # bad lines: said in the report
        warnings.simplefilter("always")
        entries = read_lines(history)
    run_id = report.run.id
    own = next((i for i, e in enumerate(entries) if run_id and e.run_id == run_id), None)
    earlier = entries if own is None else entries[:own]
    trend = build_trend(earlier, history_entry(report))
    return report.with_trend(trend, [str(w.message) for w in caught])


def _calibrate_parser(commands: Any) -> None:
    calibrate = commands.add_parser(
        "calibrate",
        help="measure the configured judge against your own labels and write its thresholds",
        description="Score every labelled case of LABELS (a dataset whose cases have their "
        "recorded answer and contexts and labels: {metric: pass|fail}) with the judge of the "
        "config, print per metric the balanced accuracy with its 95 % interval, Cohen's "
        "kappa, the ROC AUC, the threshold that fits the labels best and the labelled cases "
        "the judge disagreed with at it, and write them to a calibration file for "
        "judge.calibration. Each labelled metric needs at least 5 labelled passes and 5 "
        "labelled failures.",
    )
    calibrate.add_argument("labels", type=Path, metavar="LABELS")
    calibrate.add_argument(
        "--config", type=Path, default=None, metavar="PATH", help="default: eval-config.yaml"
    )
    calibrate.add_argument("--judge", default=None, metavar="KIND", help="as --rag-judge")
    calibrate.add_argument("--output", type=Path, default=Path("calibration.json"), metavar="FILE")
    calibrate.add_argument(
        "--force", action="store_true", help="replace FILE when it exists (never LABELS)"
    )


def _calibrate(options: argparse.Namespace) -> int:
    """``rag-eval calibrate``: 0 when the calibration is written, 3 (one message) otherwise."""
    try:
        result = _calibration(options)
    except RagEvalError as exc:
        print(f"rag-eval calibrate: {exc}", file=sys.stderr)
        return _FATAL
    _print_calibration(result)
    unplaced = result.unplaced()
    if unplaced is not None:
        print(f"rag-eval calibrate: {unplaced}; nothing written", file=sys.stderr)
        return _FATAL
    try:
        options.output.write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"rag-eval calibrate: {options.output}: {exc.strerror}", file=sys.stderr)
        return _FATAL
    print(f"\nwritten: {options.output} (point judge.calibration at it)")
    return 0


def _calibration(options: argparse.Namespace) -> Calibration:
    """The judge of the config (or ``--judge``) measured against the labels, once the
    calibration may be written where it goes."""
    from .config.files import find_config_file
    from .config.resolution import Override, resolve_settings
    from .engine.calibration import calibrate

    here = Path.cwd()
    file = find_config_file(here, options.config, here)
    overrides = [] if options.judge is None else [Override("judge.kind", options.judge, "--judge")]
    settings = resolve_settings(file, overrides).settings
    inputs = [options.labels, *([file.path] if file.path is not None else [])]
    refusal = output_refusal(options.output, inputs, force=options.force, role="--output")
    if refusal is not None:
        raise RagEvalError(refusal)
    return calibrate(settings, options.labels, dict(os.environ))


def _print_calibration(result: Calibration) -> None:
    """The calibration's table, then the labelled cases the judge disagreed with."""
    print(f"judge: {result.judge}; labelled cases of {result.dataset}\n")
    print(
        "| metric | cases | threshold | balanced accuracy | 95 % interval | Cohen's kappa "
        "| ROC AUC | best threshold | its balanced accuracy | decided | decided: balanced "
        "accuracy |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for agreement in result.metrics.values():
        print(_calibration_row(agreement))
    for agreement in result.metrics.values():
        _print_disagreed(agreement)


def _calibration_row(a: Agreement) -> str:
    auc = "n/a" if a.auc is None else f"{a.auc:.3f}"
    decided = "n/a" if a.decided_balanced_accuracy is None else f"{a.decided_balanced_accuracy:.3f}"
    return (
        f"| {a.metric} | {a.cases} | {a.threshold:.2f} | {a.balanced_accuracy:.3f} | "
        f"{a.interval[0]:.3f}-{a.interval[1]:.3f} | {a.kappa:.3f} | {auc} | "
        f"{a.best_threshold:.2f} | {a.best_balanced_accuracy:.3f} | {a.decided} of "
        f"{a.cases} | {decided} |"
    )


def _print_disagreed(a: Agreement) -> None:
    """The labelled cases of a metric the judge disagreed with, the first few of them."""
    shown = a.disagreed[:_PROBLEMS_SHOWN]
    print(
        f"\n{a.metric}: the judge disagreed with {len(a.disagreed)} of {a.cases} labels "
        f"at the best threshold {a.best_threshold:.2f}" + (":" if shown else "")
    )
    for d in shown:
        print(f"  {d.case}: labelled {d.label}, scored {d.score:.2f}")
    if len(a.disagreed) > len(shown):
        print(f"  … and {len(a.disagreed) - len(shown)} more (in the calibration file)")


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    if options.command == "calibrate":
        return _calibrate(options)
    if options.command == "generate":
        return _generate(options)
    if options.command == "convert":
        return _convert(options.source, options.input, options.output, force=options.force)
    if options.command == "report":
        return _report(options)
    return _merge(options)


def _convert(source: Format, path: Path, out: Path, *, force: bool) -> int:
    """``rag-eval convert``: 0 when written, 3 (one message naming the file) otherwise."""
    try:
        _check_converted_output(path, out, force=force)
        conversion = _conversion(source, path, _input_text(path))
        _write_converted(source, path, out, conversion.cases)
    except _Stop as stop:
        print(f"rag-eval convert: {stop}", file=sys.stderr)
        return _FATAL
    for note in conversion.notes:
        print(f"note: {path}: {note}", file=sys.stderr)
    print(_converted_line(path, out, conversion.cases))
    return 0


def _check_converted_output(path: Path, out: Path, *, force: bool) -> None:
    """A dataset file type, never the input, and a file that exists only with ``force``."""
    from .data.writing import SUFFIXES, unknown_suffix

    if out.suffix.lower() not in SUFFIXES:
        raise _Stop(f"{out}: {unknown_suffix(out.suffix)}")
    refusal = output_refusal(out, [path], force=force, role="OUT")
    if refusal is not None:
        raise _Stop(refusal)


def _input_text(path: Path) -> str:
    from .data.reading import FileTooLarge, read_limited

    try:
        return read_limited(path).decode("utf-8-sig")
    except FileTooLarge as exc:
        raise _Stop(f"{path}: {exc}; split it into several files") from None
    except OSError as exc:
        raise _Stop(f"{path}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise _Stop(f"{path}: not UTF-8 text") from None


def _conversion(source: Format, path: Path, text: str) -> Conversion:
    """The file's items as our cases; every problem listed (the first few) when there is one."""
    from .data.foreign import NAMES, ConversionError, convert_rows, read_items

    try:
        items = read_items(path.name, text)
        return convert_rows(source, items, cells=path.suffix.lower() == ".csv")
    except ConversionError as exc:
        shown = exc.problems[:_PROBLEMS_SHOWN]
        more = len(exc.problems) - len(shown)
        lines = "".join(f"\n  {p}" for p in shown) + (f"\n  … and {more} more" if more else "")
        count = "1 problem" if len(exc.problems) == 1 else f"{len(exc.problems)} problems"
        raise _Stop(f"cannot convert {path} as {NAMES[source]} ({count}):{lines}") from None


def _write_converted(source: Format, path: Path, out: Path, cases: list[dict[str, Any]]) -> None:
    from .atomic import write_atomic
    from .data.foreign import NAMES
    from .data.writing import dataset_text

    document = {
        "metadata": {
            "name": path.stem,
            "description": f"converted from the {NAMES[source]} file {path.name}",
            "created": dt.date.today().isoformat(),
        },
        "test_cases": cases,
    }
    try:
        write_atomic(out, dataset_text(document, out.suffix.lower()), shared=True)
    except OSError as exc:
        raise _Stop(f"{out}: cannot be written ({exc.strerror})") from None


def _converted_line(path: Path, out: Path, cases: list[dict[str, Any]]) -> str:
    recorded = sum(_recorded(case) for case in cases)
    chats = sum("turns" in case for case in cases)
    among = f"; {chats} of them conversations" if chats else ""
    return (
        f"converted {len(cases)} cases from {path} ({recorded} with a recorded "
        f"answer, {len(cases) - recorded} to ask the RAG system{among}): wrote {out}"
    )


def _recorded(case: dict[str, object]) -> bool:
    """Whether a converted case is not asked of the RAG system: its answer is recorded (each
    turn's, for a conversation)."""
    turns = case.get("turns")
    if isinstance(turns, list):
        return all(isinstance(turn, dict) and "answer" in turn for turn in turns)
    return "answer" in case


def _merge(options: argparse.Namespace) -> int:
    """``rag-eval merge``: the merged run's exit code; the fatal code (one message) when the
    shards cannot be merged."""
    out: Path = options.output_dir
    with contextlib.ExitStack() as stack:
        try:
            merged, cases = _merged(options, stack)
        except (_Stop, RagEvalError) as exc:
            print(f"rag-eval merge: {exc}", file=sys.stderr)
            return int(options.fatal_exit_code)
        report = merged.report if options.no_history else _with_trend(merged.report, out)
        written = _write_merged(out, report, cases, history=not options.no_history)
    _print_merged(len(options.reports), report, written)
    print(f"rag-eval: exit {merged.decision.code}: {merged.decision.reason}")
    return merged.decision.code


def _merged(
    options: argparse.Namespace, stack: contextlib.ExitStack[bool | None]
) -> tuple[Merged, CaseSpool]:
    """The shards' reports merged, once the merged reports may be written where they go.
    Each shard is read in parts and its cases one at a time, in the merged order, into a
    spool under the output folder (removed when ``stack`` closes)."""
    from .reporting.merge import Shard, merge_shards
    from .reporting.report_file import open_report
    from .reporting.spool import CaseSpool

    refusal = _merge_refusal(options.output_dir, options.reports, force=options.force)
    if refusal is not None:
        raise _Stop(refusal)
    shards = []
    for path in options.reports:
        parts = open_report(path, shard=True)
        stack.callback(parts.cases.close)
        shards.append(Shard(path, parts.head, parts.cases))
    cases = CaseSpool(options.output_dir)
    stack.callback(cases.close)
    merged = merge_shards(
        shards,
        cases,
        version=package_version(),
        critical_code=options.critical_exit_code,
        fatal_code=options.fatal_exit_code,
        allow_partial=options.allow_partial,
    )
    return merged, cases


def _with_trend(report: Report, out: Path) -> Report:
    """The merged report with its trend from the history in ``out``."""
    from .reporting.files import HISTORY_FILE
    from .reporting.history import history_entry, read_lines
    from .reporting.trend import build_trend

    return report.with_trend(build_trend(read_lines(out / HISTORY_FILE), history_entry(report)))


def _write_merged(out: Path, report: Report, cases: CaseSpool, *, history: bool) -> list[Path]:
    """The merged reports written in ``out`` (``report``'s cases: ``cases``, each read as it
    is written), and its line appended to the history."""
    from .atomic import atomic_writer
    from .reporting.files import (
        HISTORY_FILE,
        HTML_REPORT,
        JSON_REPORT,
        MARKDOWN_REPORT,
        write_report_json,
    )
    from .reporting.history import append_line, history_entry
    from .reporting.html_report import write_html
    from .reporting.markdown import write_markdown

    with atomic_writer(out / JSON_REPORT, shared=True) as fh:
        write_report_json(fh, report.to_json(), cases.written())
    with atomic_writer(out / MARKDOWN_REPORT, shared=True) as fh:
        write_markdown(fh, report, cases)
    with atomic_writer(out / HTML_REPORT, shared=True) as fh:
        write_html(fh, report, cases)
    written = [out / JSON_REPORT, out / MARKDOWN_REPORT, out / HTML_REPORT]
    if history:
        append_line(out / HISTORY_FILE, history_entry(report))
        written.append(out / HISTORY_FILE)
    return written


def _print_merged(count: int, report: Report, written: list[Path]) -> None:
    counts = report.summary.counts
    composite = report.summary.composite.score
    print(
        f"merged {count} reports: {counts.cases} cases ({counts.passed} passed, "
        f"{counts.failed} failed, {counts.errors} errors), composite "
        f"{'n/a' if composite is None else f'{composite:.2f}'}"
    )
    for path in written:
        print(f"wrote {path}")
    for warning in report.warnings:
        if warning.startswith("partial merge: "):
            print(f"warning: {warning}", file=sys.stderr)


def _merge_refusal(out: Path, reports: Sequence[Path], *, force: bool) -> str | None:
    """Why the merged reports are not written in ``out``: one of them would replace a
    shard's report, or exists without ``--force`` (the history is appended to)."""
    from .reporting.files import HTML_REPORT, JSON_REPORT, MARKDOWN_REPORT

    for name in (JSON_REPORT, MARKDOWN_REPORT, HTML_REPORT):
        refusal = output_refusal(
            out / name,
            reports,
            force=force,
            role="the merged report",
            advice="give another --output-dir",
        )
        if refusal is not None:
            return refusal
    return None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
