"""Cost of the plugin as the dataset grows: 1,000, 10,000 and 50,000 pre-recorded cases,
every case passing, and 2 of every 3 failing.

For each size, writes a dataset of pre-recorded cases (answers and contexts included, so no
RAG system is called) with ``expected_contexts``, and a config that checks the two retrieval
metrics only (``metrics: {retrieval_precision, retrieval_recall}``: no judge, no model).
Then runs real ``pytest`` processes, as a user would, and measures:

* collection: ``pytest --collect-only -q`` in zero-code mode;
* the whole run: ``pytest -q``, each of
  - zero-code mode (no test file), every case passing, and with 2 of 3 cases failing (their
    ``expected_contexts`` name a document the case did not retrieve: both metrics fail);
  - a test file whose one test takes ``rag_case`` and calls ``assert_retrieval``, the same
    two datasets;
  - plain pytest with the plugin disabled (``-p no:rag_eval``): N trivial parametrized tests,
    all passing, and the same with 2 of 3 failing an ``assert`` (pytest's own cost of as many
    failures);
* peak memory of each run: the pytest process's ``ru_maxrss`` (``os.wait4``; the "Maximum
  resident set size" that ``/usr/bin/time -v`` prints);
* CPU time (user + system, all threads of the pytest process: this work never waits on a
  network, and CPU time does not count the time other programs on a shared machine take the
  cores), per case two ways:
  - *amortised*: CPU / N, the fixed start-up cost included;
  - *marginal*: the same with the fixed cost taken out, measured with the same kind of run at
    ``--fixed-size`` cases (default 10): (CPU at N - CPU at 10) / (N - 10). This is what one
    more case costs, and the figure that shows whether that grows with the dataset;
  - the plugin's own time per test in passing zero-code runs: (run - plain run) / N, and its
    marginal form, as before;
* ``pytest --rag-dry-run`` on the largest dataset;
* peak memory (and time) of processes that hold much at once, beside plain pytest's:
  - the largest size run in 3 shards (``--rag-shard``), ``rag-eval merge`` of their reports
    and ``rag-eval report`` (the HTML page) of the merged one;
  - 3 cases, each with a 10 MB answer and a 10 MB context (the third failing), against plain
    pytest reading the same dataset and checking the same in 3 parametrized tests;
  - one conversation of ``--turns`` (10,000) recorded turns, against plain pytest checking
    every turn in one test.

Usage: ``python benchmarks/scale.py [--sizes 1000,10000,50000] [--runs 1] [--dry-run-only]
[--plain-failing-up-to N] [--only runs,merge,huge,conversation] [--turns 10000]``
(``--sizes 1000,10000`` for a quick run; ``--dry-run-only`` times only the dry run; plain
pytest's failing runs are quadratic in the failures, about 20 minutes at 50,000 tests on 2
cores: ``--plain-failing-up-to 10000`` leaves out the larger ones; ``--only
merge,huge,conversation`` measures only the peak memory cases, the merge at the largest of
``--sizes``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cached_overhead import BASELINE
from cached_overhead import dataset as overhead_dataset

CONFIG = "metrics:\n  retrieval_precision: null\n  retrieval_recall: null\n"


TEST_FILE = """
from rag_eval_pytest import assert_retrieval


def test_retrieval(rag_case):
    assert_retrieval(rag_case)
"""

PLAIN_FAILING = """
import pytest

@pytest.mark.parametrize("n", range({cases}))
def test_plain(n):
    assert n % 3 == 0
"""


def dataset(cases: int, *, failing: bool = False) -> dict[str, Any]:
    """The cached-overhead benchmark's cases, each expecting the sources it retrieved; with
    ``failing``, 2 of every 3 expect a document none of their contexts comes from."""
    doc: dict[str, Any] = overhead_dataset(cases)
    for i, row in enumerate(doc["test_cases"]):
        row["expected_contexts"] = [context["source"] for context in row["contexts"]]
        if failing and i % 3:
            row["expected_contexts"] = ["not-retrieved.md"]
    return doc


def failing_cases(cases: int) -> int:
    """How many of ``cases`` fail in a failing run: 2 of every 3."""
    return cases - (cases + 2) // 3


@dataclass
class Run:
    seconds: float  # wall clock
    cpu_seconds: float  # user + system, every thread of the process
    max_rss_mb: float
    output: str


def pytest_run(args: list[str], cwd: Path, *, ok: tuple[int, ...] = (0,)) -> Run:
    """One pytest process: wall time and its own peak memory (``ru_maxrss`` of that child)."""
    return process_run(["-m", "pytest", "-q", "-p", "no:randomly", *args], cwd, ok=ok)


MEASURED = """
import json, os, subprocess, sys, time

start = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as out:
    json.dump({"seconds": time.perf_counter() - start, "code": os.waitstatus_to_exitcode(status),
               "cpu": usage.ru_utime + usage.ru_stime, "max_rss_kib": usage.ru_maxrss}, out)
"""
"""Runs a command and writes its wall time, exit code, CPU time and peak memory. A child's
``ru_maxrss`` starts at the peak of the process it was started from (Linux keeps the larger
at ``exec``): measured from this script, which built datasets of 50,000 cases, every process
would weigh at least what the script once did. Started from this small process instead, the
command's peak is its own."""


def process_run(args: list[str], cwd: Path, *, ok: tuple[int, ...] = (0,)) -> Run:
    """One Python process (``python ARGS``): wall time, CPU time and its own peak memory
    (``ru_maxrss``, as ``/usr/bin/time -v`` reports it)."""
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryFile("w+") as out:
        measured = Path(tmp) / "measured.json"
        command = [sys.executable, "-c", MEASURED, str(measured), sys.executable, *args]
        subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=True)
        out.seek(0)
        text = out.read()
        numbers = json.loads(measured.read_text())
    if numbers["code"] not in ok:
        sys.exit(f"python {' '.join(args)} exited {numbers['code']}:\n{text[-3000:]}")
    # ru_maxrss: KiB on Linux
    return Run(numbers["seconds"], numbers["cpu"], numbers["max_rss_kib"] / 1024, text)


def median_run(args: list[str], cwd: Path, runs: int, *, ok: tuple[int, ...] = (0,)) -> Run:
    measured = [pytest_run(args, cwd, ok=ok) for _ in range(runs)]
    middle = sorted(measured, key=lambda r: r.seconds)[len(measured) // 2]
    return Run(
        statistics.median(r.seconds for r in measured),
        statistics.median(r.cpu_seconds for r in measured),
        max(r.max_rss_mb for r in measured),
        middle.output,
    )


KINDS = (
    "plain, passing",
    "plain, failing",
    "zero-code, passing",
    "zero-code, failing",
    "rag_case file, passing",
    "rag_case file, failing",
)
"""The runs of each size: plain pytest (the plugin disabled), zero-code mode and a test file
taking ``rag_case``, each with every case passing and with 2 of 3 failing."""


@dataclass
class Size:
    cases: int
    collect: Run
    base_collect: Run
    runs: dict[str, Run]

    @property
    def run(self) -> Run:
        return self.runs["zero-code, passing"]

    @property
    def base_run(self) -> Run:
        return self.runs["plain, passing"]

    @property
    def overhead(self) -> float:
        """CPU seconds the plugin's passing run takes beyond the baseline's."""
        return self.run.cpu_seconds - self.base_run.cpu_seconds


def write_folders(cases: int, root: Path) -> dict[str, Path]:
    """One folder per kind of run, with its dataset, config and test file."""
    folders = {
        kind: root / f"{kind.replace(', ', '-').replace(' ', '_')}_{cases}" for kind in KINDS
    }
    for kind, folder in folders.items():
        folder.mkdir(parents=True)
        (folder / "pytest.ini").write_text("[pytest]\n")
        failing = kind.endswith("failing")
        if kind.startswith("plain"):
            test = PLAIN_FAILING if failing else BASELINE
            (folder / "test_plain.py").write_text(test.format(cases=cases))
            continue
        (folder / "cases.json").write_text(json.dumps(dataset(cases, failing=failing)))
        (folder / "eval-config.yaml").write_text(CONFIG)
        if kind.startswith("rag_case"):
            (folder / "test_retrieval.py").write_text(TEST_FILE)
    return folders


def measure(cases: int, root: Path, runs: int, *, plain_failing: bool = True) -> Size:
    folders = write_folders(cases, root)
    plugin = ["--rag-dataset", "cases.json"]
    off = ["-p", "no:rag_eval"]
    measured: dict[str, Run] = {}
    for kind, folder in folders.items():
        if kind == "plain, failing" and not plain_failing:
            continue
        args = off if kind.startswith("plain") else plugin
        ok = (1,) if kind.endswith("failing") else (0,)
        measured[kind] = median_run(args, folder, runs, ok=ok)
        if not kind.startswith("plain"):
            check_counts(kind, folder, cases)
    return Size(
        cases,
        collect=median_run([*plugin, "--collect-only"], folders["zero-code, passing"], runs),
        base_collect=median_run([*off, "--collect-only"], folders["plain, passing"], runs),
        runs=measured,
    )


def check_counts(kind: str, folder: Path, cases: int) -> None:
    """The run's report says what the dataset makes it: every case passed, or 2 of 3 failed."""
    report = json.loads((folder / "results" / "eval_report.json").read_text())
    counts = report["summary"]["counts"]
    failed = failing_cases(cases) if kind.endswith("failing") else 0
    if (counts["passed"], counts["failed"]) != (cases - failed, failed):
        sys.exit(f"{kind}, {cases} cases: expected {failed} failed cases, the report says {counts}")


def dry_run(cases: int, root: Path, runs: int) -> Run:
    folder = root / f"dry_run_{cases}"
    if not folder.exists():
        folder.mkdir()
        (folder / "cases.json").write_text(json.dumps(dataset(cases)))
        (folder / "eval-config.yaml").write_text(CONFIG)
        (folder / "pytest.ini").write_text("[pytest]\n")
    # The dry run ends the session before the tests, with pytest's "interrupted" status.
    return median_run(["--rag-dataset", "cases.json", "--rag-dry-run"], folder, runs, ok=(0, 2))


def print_overhead(sizes: list[Size], fixed: Size) -> None:
    """The plugin's own time per test in passing zero-code runs, against plain pytest's."""
    fixed_size = fixed.cases

    def marginal(size: Size) -> float:
        return (size.overhead - fixed.overhead) / (size.cases - fixed_size)

    print(
        "\n| cases | collect-only (baseline) | run, wall (baseline) | run, CPU (baseline) "
        "| peak memory (baseline) | plugin CPU per test, amortised | marginal |"
    )
    print("|---" * 7 + "|")
    for size in sizes:
        print(
            f"| {size.cases:,} | {size.collect.seconds:.2f} s ({size.base_collect.seconds:.2f} s) "
            f"| {size.run.seconds:.2f} s ({size.base_run.seconds:.2f} s) "
            f"| {size.run.cpu_seconds:.2f} s ({size.base_run.cpu_seconds:.2f} s) "
            f"| {size.run.max_rss_mb:.0f} MB ({size.base_run.max_rss_mb:.0f} MB) "
            f"| {size.overhead / size.cases * 1000:.3f} ms | {marginal(size) * 1000:.3f} ms |"
        )
    if len(sizes) > 1:
        first, last = sizes[0], sizes[-1]
        print(
            f"plugin time per test, {last.cases:,} against {first.cases:,} cases: marginal "
            f"{marginal(last) / marginal(first):.2f} x (target: at most 1.3 x), amortised "
            f"{last.overhead / last.cases / (first.overhead / first.cases):.2f} x"
        )


def per_case(size: Size, fixed: Size, kind: str) -> tuple[float, float] | None:
    """CPU milliseconds per case of ``kind`` at ``size``: amortised and marginal."""
    run, base = size.runs.get(kind), fixed.runs.get(kind)
    if run is None or base is None:
        return None
    amortised = run.cpu_seconds / size.cases * 1000
    return amortised, (run.cpu_seconds - base.cpu_seconds) / (size.cases - fixed.cases) * 1000


def print_runs(sizes: list[Size], fixed: Size) -> None:
    """Every run: wall and CPU time, peak memory, CPU per case."""
    print(
        "\n| cases | run | wall | CPU | peak memory | CPU per case, amortised | marginal |\n"
        + "|---" * 7
        + "|"
    )
    for size in sizes:
        for kind, run in size.runs.items():
            amortised, marginal = per_case(size, fixed, kind) or (0.0, 0.0)
            print(
                f"| {size.cases:,} | {kind} | {run.seconds:.2f} s | {run.cpu_seconds:.2f} s "
                f"| {run.max_rss_mb:.0f} MB | {amortised:.3f} ms | {marginal:.3f} ms |"
            )


def print_failing(sizes: list[Size], fixed: Size) -> None:
    """Failing runs against passing ones, marginal CPU per case: the ratio (target: at most
    1.5 x) at each size, and how each grows from the smallest size to the largest."""
    print(
        "\n| cases | plain pytest: passing / failing | zero-code: passing / failing "
        "| rag_case file: passing / failing |\n" + "|---" * 4 + "|"
    )

    def pair(size: Size, mode: str) -> str:
        passing = per_case(size, fixed, f"{mode}, passing")
        failing = per_case(size, fixed, f"{mode}, failing")
        if passing is None or failing is None:
            return "-"
        return f"{passing[1]:.3f} / {failing[1]:.3f} ms ({failing[1] / passing[1]:.2f} x)"

    for size in sizes:
        modes = ("plain", "zero-code", "rag_case file")
        print(f"| {size.cases:,} | " + " | ".join(pair(size, mode) for mode in modes) + " |")
    if len(sizes) > 1:
        first, last = sizes[0], sizes[-1]
        for kind in KINDS[1:]:
            start, end = per_case(first, fixed, kind), per_case(last, fixed, kind)
            if start is not None and end is not None:
                print(
                    f"{kind}: marginal CPU per case at {last.cases:,} against {first.cases:,} "
                    f"cases: {end[1] / start[1]:.2f} x"
                )


# --------------------------------------------------------------------------- peak memory

RAG_EVAL = ["-c", "import sys; from rag_eval_pytest.cli import main; sys.exit(main())"]
"""``rag-eval`` run by this Python (its code the one pytest imports)."""

HUGE = 10_000_000
"""Characters of each huge answer and each huge context."""

PLAIN_HUGE = """
import json

import pytest

CASES = json.load(open("cases.json", encoding="utf-8"))["test_cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_plain(case):
    sources = [c["source"] for c in case["contexts"]]
    assert all(name in sources for name in case["expected_contexts"])
"""
"""Plain pytest's side of the huge-text run: the same dataset read, the same check, in plain
Python (one case in three failing)."""

PLAIN_CONVERSATION = """
import json


def test_plain():
    (conversation,) = json.load(open("cases.json", encoding="utf-8"))["test_cases"]
    for turn in conversation["turns"]:
        sources = [c["source"] for c in turn["contexts"]]
        assert all(name in sources for name in turn["expected_contexts"])
"""
"""Plain pytest's side of the long conversation: every turn checked in one test."""


@dataclass
class Measured:
    """One row of the peak memory table: the plugin's process, and plain pytest's where it
    has a counterpart."""

    what: str
    run: Run
    plain: Run | None = None
    report_mb: float | None = None


def dataset_folder(folder: Path, doc: dict[str, Any]) -> Path:
    """A folder with the dataset ``doc``, the retrieval metrics' config and a pytest.ini."""
    folder.mkdir(parents=True)
    (folder / "cases.json").write_text(json.dumps(doc))
    (folder / "eval-config.yaml").write_text(CONFIG)
    (folder / "pytest.ini").write_text("[pytest]\n")
    return folder


def merge_and_report(cases: int, root: Path, shards: int = 3) -> list[Measured]:
    """``cases`` run in ``shards`` shards (``--rag-shard``), then ``rag-eval merge`` of their
    reports and ``rag-eval report`` (the HTML page) of the merged one."""
    folder = dataset_folder(root / f"shards_{cases}", dataset(cases))
    for index in range(1, shards + 1):
        shard = ["--rag-shard", f"{index}/{shards}", "--rag-output-dir", f"shard{index}"]
        pytest_run(["--rag-dataset", "cases.json", *shard], folder)
    reports = [f"shard{index}/eval_report.json" for index in range(1, shards + 1)]
    merge = process_run([*RAG_EVAL, "merge", *reports, "--output-dir", "merged"], folder)
    check_cases(folder / "merged" / "eval_report.json", cases)
    page = process_run([*RAG_EVAL, "report", "merged", "--output", "page.html"], folder)
    return [
        Measured(f"`rag-eval merge` of {shards} shards, {cases:,} cases", merge),
        Measured(f"`rag-eval report` of those {cases:,} cases", page),
    ]


def check_cases(report: Path, cases: int) -> None:
    counts = json.loads(report.read_text())["summary"]["counts"]
    if counts["passed"] + counts["failed"] != cases:
        sys.exit(f"{report}: expected {cases} cases, the report says {counts}")


def huge_texts(root: Path) -> Measured:
    """Three cases, each with an answer and a context of :data:`HUGE` characters (the third
    failing: it expects a document it did not retrieve)."""
    answer = "The refund takes thirty days. " * (HUGE // 30)
    context = "Refunds are accepted within thirty days. " * (HUGE // 41)
    doc = {
        "test_cases": [
            {
                "id": f"huge_{n}",
                "question": "How long does a refund take?",
                "answer": answer,
                "contexts": [{"text": context, "source": "refunds.md"}],
                "expected_contexts": ["refunds.md" if n < 2 else "shipping.md"],
            }
            for n in range(3)
        ]
    }
    folder = dataset_folder(root / "huge", doc)
    run = pytest_run(["--rag-dataset", "cases.json"], folder, ok=(1,))
    (folder / "test_plain.py").write_text(PLAIN_HUGE)
    plain = pytest_run(["-p", "no:rag_eval"], folder, ok=(1,))
    size = (folder / "results" / "eval_report.json").stat().st_size / 1e6
    return Measured("3 cases, each a 10 MB answer and a 10 MB context", run, plain, size)


def long_conversation(root: Path, turns: int) -> Measured:
    """One conversation of ``turns`` recorded turns, each retrieving what it expects."""
    doc = {
        "test_cases": [
            {
                "id": "long",
                "turns": [
                    {
                        "question": f"And what about plan {n}?",
                        "answer": f"Plan {n} costs {n} EUR a month.",
                        "contexts": [{"text": f"Plan {n}: {n} EUR a month.", "source": "a.md"}],
                        "expected_contexts": ["a.md"],
                    }
                    for n in range(turns)
                ],
            }
        ]
    }
    folder = dataset_folder(root / f"conversation_{turns}", doc)
    run = pytest_run(["--rag-dataset", "cases.json"], folder)
    (folder / "test_plain.py").write_text(PLAIN_CONVERSATION)
    plain = pytest_run(["-p", "no:rag_eval"], folder)
    size = (folder / "results" / "eval_report.json").stat().st_size / 1e6
    return Measured(f"a conversation of {turns:,} turns", run, plain, size)


def print_memory(rows: list[Measured]) -> None:
    """Peak memory (and time) of each process, beside plain pytest's."""
    print(
        "\n| what | wall | CPU | peak memory | plain pytest: wall, CPU, peak memory "
        "| eval_report.json |\n" + "|---" * 6 + "|"
    )
    for row in rows:
        run, plain = row.run, row.plain
        base = (
            "-"
            if plain is None
            else (f"{plain.seconds:.2f} s, {plain.cpu_seconds:.2f} s, {plain.max_rss_mb:.0f} MB")
        )
        size = "-" if row.report_mb is None else f"{row.report_mb:.1f} MB"
        print(
            f"| {row.what} | {run.seconds:.2f} s | {run.cpu_seconds:.2f} s "
            f"| {run.max_rss_mb:.0f} MB | {base} | {size} |"
        )


def measure_memory(root: Path, parts: set[str], merge_size: int, turns: int) -> list[Measured]:
    """The peak memory cases chosen by ``--only``."""
    rows: list[Measured] = []
    if "merge" in parts:
        rows += merge_and_report(merge_size, root)
    if "huge" in parts:
        rows.append(huge_texts(root))
    if "conversation" in parts:
        rows.append(long_conversation(root, turns))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated")
    parser.add_argument("--runs", type=int, default=1, help="runs of each command (median)")
    parser.add_argument(
        "--fixed-size", type=int, default=10, help="cases of the run that measures fixed costs"
    )
    parser.add_argument(
        "--plain-failing-up-to",
        type=int,
        default=None,
        help="plain pytest's failing runs only up to this size (they are quadratic)",
    )
    parser.add_argument(
        "--dry-run-only", action="store_true", help="only the dry run of the largest size"
    )
    parser.add_argument(
        "--only",
        default="runs,merge,huge,conversation",
        help="comma-separated: runs (each size's runs), merge (3 shards of the largest size, "
        "their merge and its HTML page), huge (10 MB texts), conversation (one long one)",
    )
    parser.add_argument("--turns", type=int, default=10_000, help="the conversation's turns")
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    parts = set(options.only.split(","))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, runs of each: {options.runs}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set: every start compiles pytest's plugins again")
    if options.dry_run_only:
        with tempfile.TemporaryDirectory() as tmp:
            dry_run(max(sizes), Path(tmp), 1)  # bytecode caches written, the file read once
            dry = dry_run(max(sizes), Path(tmp), options.runs)
        print(
            f"--rag-dry-run, {max(sizes):,} cases: {dry.seconds:.2f} s ({dry.cpu_seconds:.2f} s "
            f"CPU), {dry.max_rss_mb:.0f} MB (median of {options.runs})"
        )
        return
    if "runs" not in parts:
        with tempfile.TemporaryDirectory() as tmp:
            print_memory(measure_memory(Path(tmp), parts, max(sizes), options.turns))
        return
    up_to = options.plain_failing_up_to
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        measure(options.fixed_size, root / "warm-up", 1)  # bytecode caches written, files read
        fixed = measure(options.fixed_size, root / "fixed", options.runs)
        print(
            f"fixed cost ({options.fixed_size} cases): run {fixed.run.seconds:.2f} s "
            f"({fixed.run.cpu_seconds:.2f} s CPU), baseline {fixed.base_run.seconds:.2f} s "
            f"({fixed.base_run.cpu_seconds:.2f} s CPU): {fixed.overhead:.2f} s CPU more",
            flush=True,
        )
        results: list[Size] = []
        for cases in sizes:
            plain_failing = up_to is None or cases <= up_to
            results.append(
                measure(cases, root / str(cases), options.runs, plain_failing=plain_failing)
            )
            print_runs(results[-1:], fixed)
            sys.stdout.flush()
        largest = max(sizes)
        dry = dry_run(largest, root, options.runs)
        memory = measure_memory(root, parts, largest, options.turns)
    print_overhead(results, fixed)
    print_failing(results, fixed)
    print_runs(results, fixed)
    print(
        f"--rag-dry-run, {largest:,} cases: {dry.seconds:.2f} s ({dry.cpu_seconds:.2f} s CPU), "
        f"{dry.max_rss_mb:.0f} MB (target: under 10 s at 50,000)"
    )
    print_memory(memory)


if __name__ == "__main__":
    main()
