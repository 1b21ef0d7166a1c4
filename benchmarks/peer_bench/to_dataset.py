"""Turn the peer bench's dataset (``$BENCH_DATASET``, JSON lines) into a rag-eval-pytest
dataset with pre-recorded answers and contexts, then run pytest in zero-code mode on it with
the Anthropic judge (pointed by the peer bench at its fake server), one pass, no cache.

Usage (from ``run.sh``): ``python to_dataset.py OUT_DIR`` then pytest runs in ``OUT_DIR``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rows = [
        json.loads(line)
        for line in Path(os.environ["BENCH_DATASET"]).read_text().splitlines()
        if line.strip()
    ]
    cases = [
        {
            "id": row["id"],
            "question": row["question"],
            "ground_truth": row["ground_truth"],
            "answer": row["answer"],
            "contexts": row["contexts"],
        }
        for row in rows
    ]
    (out / "cases.json").write_text(
        json.dumps({"metadata": {"name": "peer-bench"}, "test_cases": cases})
    )
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "--rag-dataset=cases.json",
        "--rag-judge=anthropic",
        "--rag-judge-passes=1",
        "--rag-no-cache",
        f"--junitxml={out / 'junit.xml'}",
    ]
    code = subprocess.run(command, cwd=out).returncode
    # Judged failures (a metric below its threshold) are results, not errors of the tool.
    return 0 if code in (0, 1) else code


if __name__ == "__main__":
    sys.exit(main())
