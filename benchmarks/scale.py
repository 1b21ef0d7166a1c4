"""Cost of the plugin as the dataset grows: 1,000, 10,000 and 50,000 pre-recorded cases.

For each size, writes a dataset of pre-recorded cases (answers and contexts included, so no
RAG system is called) with ``expected_contexts``, and a config that checks the two retrieval
metrics only (``metrics: {retrieval_precision, retrieval_recall}``: no judge, no model).
Then runs real ``pytest`` processes in zero-code mode, as a user would, and measures:

* collection: ``pytest --collect-only -q``;
* the whole run: ``pytest -q`` (every case passes);
* peak memory of the run: the pytest process's ``ru_maxrss`` (``os.wait4``);
* the same for N trivial parametrized tests with the plugin disabled (``-p no:rag_eval``);
* plugin time per test, in CPU time (user + system, all threads of the pytest process: this
  work never waits on a network, and CPU time does not count the time other programs on a
  shared machine take the cores), two ways:
  - *amortised*: (run - baseline run) / N, the plugin's fixed start-up cost included;
  - *marginal*: the same with the fixed cost taken out, measured at ``--fixed-size`` cases
    (default 10): ((run - baseline) at N - (run - baseline) at 10) / (N - 10). This is what
    one more test costs, and the figure that shows whether that grows with the dataset.
* ``pytest --rag-dry-run`` on the largest dataset.

Usage: ``python benchmarks/scale.py [--sizes 1000,10000,50000] [--runs 1] [--dry-run-only]``
(``--sizes 1000,10000`` for a quick run; ``--dry-run-only`` times only the dry run).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cached_overhead import BASELINE
from cached_overhead import dataset as overhead_dataset

CONFIG = "metrics:\n  retrieval_precision: null\n  retrieval_recall: null\n"


def dataset(cases: int) -> dict[str, Any]:
    """The cached-overhead benchmark's cases, each expecting the sources it retrieved."""
    doc: dict[str, Any] = overhead_dataset(cases)
    for row in doc["test_cases"]:
        row["expected_contexts"] = [context["source"] for context in row["contexts"]]
    return doc


@dataclass
class Run:
    seconds: float  # wall clock
    cpu_seconds: float  # user + system, every thread of the process
    max_rss_mb: float
    output: str


def pytest_run(args: list[str], cwd: Path, *, ok: tuple[int, ...] = (0,)) -> Run:
    """One pytest process: wall time and its own peak memory (``ru_maxrss`` of that child)."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *args],
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if proc.returncode not in ok:
        sys.exit(f"pytest {' '.join(args)} exited {proc.returncode}:\n{text[-3000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(elapsed, cpu, usage.ru_maxrss / 1024, text)  # ru_maxrss: KiB on Linux


def median_run(args: list[str], cwd: Path, runs: int, *, ok: tuple[int, ...] = (0,)) -> Run:
    measured = [pytest_run(args, cwd, ok=ok) for _ in range(runs)]
    middle = sorted(measured, key=lambda r: r.seconds)[len(measured) // 2]
    return Run(
        statistics.median(r.seconds for r in measured),
        statistics.median(r.cpu_seconds for r in measured),
        max(r.max_rss_mb for r in measured),
        middle.output,
    )


@dataclass
class Size:
    cases: int
    collect: Run
    run: Run
    base_collect: Run
    base_run: Run

    @property
    def overhead(self) -> float:
        """CPU seconds the plugin's run takes beyond the baseline's."""
        return self.run.cpu_seconds - self.base_run.cpu_seconds


def measure(cases: int, root: Path, runs: int) -> Size:
    plugin_dir, base_dir = root / f"plugin_{cases}", root / f"baseline_{cases}"
    plugin_dir.mkdir(parents=True)
    base_dir.mkdir(parents=True)
    (plugin_dir / "cases.json").write_text(json.dumps(dataset(cases)))
    (plugin_dir / "eval-config.yaml").write_text(CONFIG)
    (plugin_dir / "pytest.ini").write_text("[pytest]\n")
    (base_dir / "test_plain.py").write_text(BASELINE.format(cases=cases))
    (base_dir / "pytest.ini").write_text("[pytest]\n")
    plugin = ["--rag-dataset", "cases.json"]
    off = ["-p", "no:rag_eval"]
    size = Size(
        cases,
        collect=median_run([*plugin, "--collect-only"], plugin_dir, runs),
        run=median_run(plugin, plugin_dir, runs),
        base_collect=median_run([*off, "--collect-only"], base_dir, runs),
        base_run=median_run(off, base_dir, runs),
    )
    report = json.loads((plugin_dir / "results" / "eval_report.json").read_text())
    counts = report["summary"]["counts"]
    if counts["passed"] != cases:
        sys.exit(f"{cases} cases: expected every case to pass, the report says {counts}")
    return size


def dry_run(cases: int, root: Path, runs: int) -> Run:
    folder = root / f"plugin_{cases}"
    if not folder.exists():
        folder.mkdir()
        (folder / "cases.json").write_text(json.dumps(dataset(cases)))
        (folder / "eval-config.yaml").write_text(CONFIG)
        (folder / "pytest.ini").write_text("[pytest]\n")
    # The dry run ends the session before the tests, with pytest's "interrupted" status.
    return median_run(["--rag-dataset", "cases.json", "--rag-dry-run"], folder, runs, ok=(0, 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated")
    parser.add_argument("--runs", type=int, default=1, help="runs of each command (median)")
    parser.add_argument(
        "--fixed-size", type=int, default=10, help="cases of the run that measures fixed costs"
    )
    parser.add_argument(
        "--dry-run-only", action="store_true", help="only the dry run of the largest size"
    )
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    fixed_size = options.fixed_size
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
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        measure(fixed_size, root / "warm-up", 1)  # bytecode caches written, files read once
        fixed = measure(fixed_size, root, options.runs)
        print(
            f"fixed cost ({fixed_size} cases): run {fixed.run.seconds:.2f} s "
            f"({fixed.run.cpu_seconds:.2f} s CPU), baseline {fixed.base_run.seconds:.2f} s "
            f"({fixed.base_run.cpu_seconds:.2f} s CPU): {fixed.overhead:.2f} s CPU more",
            flush=True,
        )
        results: list[Size] = []

        def marginal(size: Size) -> float:
            return (size.overhead - fixed.overhead) / (size.cases - fixed_size)

        for cases in sizes:
            size = measure(cases, root, options.runs)
            results.append(size)
            if len(results) == 1:
                print(
                    "| cases | collect-only (baseline) | run, wall (baseline) "
                    "| run, CPU (baseline) | peak memory (baseline) "
                    "| plugin CPU per test, amortised | marginal |"
                )
                print("|---" * 7 + "|")
            print(
                f"| {cases:,} | {size.collect.seconds:.2f} s ({size.base_collect.seconds:.2f} s) "
                f"| {size.run.seconds:.2f} s ({size.base_run.seconds:.2f} s) "
                f"| {size.run.cpu_seconds:.2f} s ({size.base_run.cpu_seconds:.2f} s) "
                f"| {size.run.max_rss_mb:.0f} MB ({size.base_run.max_rss_mb:.0f} MB) "
                f"| {size.overhead / cases * 1000:.3f} ms | {marginal(size) * 1000:.3f} ms |",
                flush=True,
            )
        largest = max(sizes)
        dry = dry_run(largest, root, options.runs)
    if len(results) > 1:
        first, last = results[0], results[-1]
        print(
            f"plugin time per test, {last.cases:,} against {first.cases:,} cases: marginal "
            f"{marginal(last) / marginal(first):.2f} x (target: at most 1.3 x), amortised "
            f"{last.overhead / last.cases / (first.overhead / first.cases):.2f} x"
        )
    print(
        f"--rag-dry-run, {largest:,} cases: {dry.seconds:.2f} s ({dry.cpu_seconds:.2f} s CPU), "
        f"{dry.max_rss_mb:.0f} MB (target: under 10 s at 50,000)"
    )


if __name__ == "__main__":
    main()
