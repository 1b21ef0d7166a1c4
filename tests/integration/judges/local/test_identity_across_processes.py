"""The local judge's identity is the same in every process: it keys the judge cache and the
baselines, which a later run (another process, another hash seed) must find."""

from __future__ import annotations

import os
import subprocess
import sys


def test_the_judges_identity_is_the_same_in_every_process() -> None:
    """Its identity names the kinds of evidence it trusts, a set: written in the set's own
    order, which follows the hash seed, it moved from run to run, and no run shared a cache
    entry or a baseline with the run before."""
    script = (
        "from rag_eval_pytest.judges.local.judge import LocalJudge\n"
        "print(LocalJudge().fingerprint())\n"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3", "4")
    }
    assert len(seen) == 1, seen
