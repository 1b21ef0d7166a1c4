"""What the plugin costs a test suite that does not use it (no --rag-dataset).

Runs ``python -X importtime -m pytest`` on a one-test suite with the plugin enabled and with
``-p no:rag_eval``, several times each, and prints the median total import time of both and
of the plugin's own modules. Usage: ``python benchmarks/dormant_overhead.py [--runs 7]``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def measure(suite: Path, *extra: str) -> tuple[int, int]:
    """(total top-level import microseconds, microseconds in rag_eval_pytest modules)."""
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *extra,
            str(suite),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=suite.parent,
    )
    total = ours = 0
    for line in proc.stderr.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        self_us, cumulative_us, indent, name = match.groups()
        if not indent:  # top-level imports: their cumulative times add up to the whole
            total += int(cumulative_us)
        if name.startswith("rag_eval_pytest"):
            ours += int(self_us)
    return total, ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "test_plain.py"
        suite.write_text("def test_ok():\n    pass\n")
        with_plugin = [measure(suite) for _ in range(args.runs)]
        without = [measure(suite, "-p", "no:rag_eval") for _ in range(args.runs)]
    on = statistics.median(t for t, _ in with_plugin) / 1000
    off = statistics.median(t for t, _ in without) / 1000
    ours = statistics.median(o for _, o in with_plugin) / 1000
    print(f"runs: {args.runs} each (median)")
    print(f"imports with the plugin:    {on:7.1f} ms")
    print(f"imports with -p no:rag_eval: {off:7.1f} ms")
    print(f"difference:                 {on - off:7.1f} ms (noise included)")
    print(f"rag_eval_pytest modules:    {ours:7.1f} ms")


if __name__ == "__main__":
    main()
