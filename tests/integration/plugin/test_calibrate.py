"""``rag-eval calibrate``: the configured judge against a team's own labels, the numbers a
reader needs to trust it, and a calibration file whose thresholds a run then uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import case

ROOT = Path(__file__).parents[3]
POLICY = "Refunds are available within 30 days of purchase."
LABELLED = [
    case("exact", "Refund policy?", answer=POLICY, contexts=[POLICY],
         labels={"faithfulness": "pass"}),
    # A reviewer accepts an answer with one unsupported aside; the judge scores it 0.5.
    case("aside", "Refund policy?", answer=f"{POLICY} Shipping is free to Mars.",
         contexts=[POLICY], labels={"faithfulness": "pass"}),
    case("mars", "Shipping?", answer="Shipping is free to Mars.", contexts=[POLICY],
         labels={"faithfulness": "fail"}),
    case("moon", "Moon base?", answer="The moon base opens on Monday.", contexts=[POLICY],
         labels={"faithfulness": "fail"}),
    case("unlabelled", "Other?", answer=POLICY, contexts=[POLICY]),
]
JUDGE = "tests.word_judge:word_judge"


def calibrate(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "rag_eval_pytest.cli", "calibrate", *args],
        cwd=cwd, capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip


def test_calibrate_measures_the_judge_against_the_labels_and_a_run_uses_its_thresholds(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "labelled.json").write_text(json.dumps({"test_cases": LABELLED}))
    (pytester.path / "eval-config.yaml").write_text(f"judge:\n  kind: {JUDGE}\n  passes: 1\n")
    done = calibrate(pytester.path, "labelled.json", "--output", "calibration.json")
    assert done.returncode == 0, done.stderr
    # At the default threshold (0.7) the accepted aside fails: 0.75 balanced accuracy; 0.5
    # would fit these labels.
    assert "| faithfulness | 4 | 0.70 | 0.750 | " in done.stdout
    assert "| 0.50 | 1.000 |" in done.stdout
    written = json.loads((pytester.path / "calibration.json").read_text())
    faithfulness = written["metrics"]["faithfulness"]
    assert (faithfulness["best_threshold"], faithfulness["auc"]) == (0.5, 1.0)
    assert faithfulness["kappa"] == 0.5
    low, high = faithfulness["interval"]
    assert 0 <= low <= 0.75 <= high <= 1
    assert written["judge_identity"]

    # A run with the calibration: the default threshold is the calibrated one.
    (pytester.path / "eval-config.yaml").write_text(
        f"judge:\n  kind: {JUDGE}\n  passes: 1\n  calibration: calibration.json\n"
    )
    pytester.makepyfile(
        test_rag="from rag_eval_pytest import assert_faithful\n\n"
        "def test_grounded(rag_case):\n    assert_faithful(rag_case)\n"
    )
    result = pytester.runpytest("--rag-dataset=labelled.json", "-p", "no:randomly", "-k", "aside")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["rag-eval: *| calibration */calibration.json (for this judge)"])


def test_labels_without_recorded_answers_are_one_message(tmp_path: Path) -> None:
    bad = [case("c1", "Q?", labels={"faithfulness": "pass"})]
    (tmp_path / "labelled.json").write_text(json.dumps({"test_cases": bad}))
    done = calibrate(tmp_path, "labelled.json", "--judge", JUDGE)
    assert done.returncode == 3
    assert done.stderr.strip() == (
        "rag-eval calibrate: case 'c1': a labelled case needs its recorded answer and "
        "contexts (the answer the label is about)"
    )
