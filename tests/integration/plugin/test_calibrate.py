"""``rag-eval calibrate``: the configured judge against a team's own labels, the numbers a
reader needs to trust it and the cases it disagreed with, and a calibration file whose
thresholds a run then uses; labels that cannot place a threshold write none."""

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
    *(
        case(f"exact-{i}", "Refund policy?", answer=POLICY, contexts=[POLICY],
             labels={"faithfulness": "pass"})
        for i in range(3)
    ),
    # A reviewer accepts an answer with one unsupported aside; the judge scores it 0.5.
    *(
        case(f"aside-{i}", "Refund policy?", answer=f"{POLICY} Shipping is free to Mars.",
             contexts=[POLICY], labels={"faithfulness": "pass"})
        for i in range(2)
    ),
    *(
        case(f"mars-{i}", "Shipping?", answer="Shipping is free to Mars.", contexts=[POLICY],
             labels={"faithfulness": "fail"})
        for i in range(3)
    ),
    case("moon", "Moon base?", answer="The moon base opens on Monday.", contexts=[POLICY],
         labels={"faithfulness": "fail"}),
    # The reviewer knows the policy changed; the judge sees it quoted and scores it 1.
    case("stale", "Refund policy?", answer=POLICY, contexts=[POLICY],
         labels={"faithfulness": "fail"}),
    case("unlabelled", "Other?", answer=POLICY, contexts=[POLICY]),
]  # fmt: skip
JUDGE = "tests.word_judge:word_judge"


def calibrate(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The package of this source tree, and tests.word_judge.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
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
    # At the default threshold (0.7) the accepted asides fail and "stale" passes: 0.7
    # balanced accuracy; 0.5 fits these labels best, "stale" on its wrong side.
    assert "| faithfulness | 10 | 0.70 | 0.700 | " in done.stdout
    assert "| 0.50 | 0.900 |" in done.stdout
    assert (
        "faithfulness: the judge disagreed with 1 of 10 labels at the best threshold 0.50:\n"
        "  stale: labelled fail, scored 1.00\n"
    ) in done.stdout
    written = json.loads((pytester.path / "calibration.json").read_text())
    faithfulness = written["metrics"]["faithfulness"]
    assert (faithfulness["best_threshold"], faithfulness["auc"]) == (0.5, 0.86)
    assert (faithfulness["kappa"], faithfulness["passes"], faithfulness["failures"]) == (0.4, 5, 5)
    low, high = faithfulness["interval"]
    assert 0 <= low <= 0.7 <= high <= 1
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
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["rag-eval: *| calibration */calibration.json (for this judge)"])


def test_labels_of_one_class_write_no_threshold_and_an_old_such_file_is_refused(
    pytester: pytest.Pytester,
) -> None:
    accepted = [c for c in LABELLED if c["id"].startswith(("exact", "aside"))]
    (pytester.path / "labelled.json").write_text(json.dumps({"test_cases": accepted}))
    (pytester.path / "eval-config.yaml").write_text(f"judge:\n  kind: {JUDGE}\n")
    done = calibrate(pytester.path, "labelled.json", "--output", "calibration.json")
    assert done.returncode == 3
    assert done.stderr == (
        "rag-eval calibrate: cannot calibrate faithfulness (5 pass, 0 fail): a threshold is "
        "chosen from at least 5 labelled passes and 5 labelled failures of each metric; label "
        "more cases\n"
    )
    assert not (pytester.path / "calibration.json").exists()

    # What an earlier version wrote from such labels: a threshold of 0, which passed every
    # case, failing answers included.
    old = {"faithfulness": {"best_threshold": 0.0, "auc": None, "kappa": 1.0, "cases": 5}}
    (pytester.path / "calibration.json").write_text(json.dumps({"version": 1, "metrics": old}))
    (pytester.path / "eval-config.yaml").write_text(
        f"judge:\n  kind: {JUDGE}\n  calibration: calibration.json\n"
    )
    result = pytester.runpytest("--rag-dataset=labelled.json", "-p", "no:randomly")
    assert result.ret == 3
    result.stderr.fnmatch_lines(
        ["*judge.calibration *calibration.json: metric 'faithfulness' has a threshold its "
         "labels cannot place (labels of one class, *); run rag-eval calibrate again*"]
    )  # fmt: skip


def test_a_judge_whose_scores_do_not_follow_the_labels_writes_no_threshold(
    tmp_path: Path,
) -> None:
    quoted = [
        case(f"c{i}", "Refund policy?", answer=POLICY, contexts=[POLICY],
             labels={"faithfulness": "pass" if i % 2 else "fail"})
        for i in range(10)
    ]  # fmt: skip
    (tmp_path / "labelled.json").write_text(json.dumps({"test_cases": quoted}))
    done = calibrate(tmp_path, "labelled.json", "--judge", JUDGE)
    assert done.returncode == 3
    assert "| faithfulness | 10 |" in done.stdout  # the numbers that show why
    assert done.stderr == (
        "rag-eval calibrate: no threshold tells the labelled passes from the failures better "
        "than chance for faithfulness (best balanced accuracy 0.500); nothing written\n"
    )
    assert not (tmp_path / "calibration.json").exists()


def test_labels_without_recorded_answers_are_one_message(tmp_path: Path) -> None:
    bad = [case("c1", "Q?", labels={"faithfulness": "pass"})]
    (tmp_path / "labelled.json").write_text(json.dumps({"test_cases": bad}))
    done = calibrate(tmp_path, "labelled.json", "--judge", JUDGE)
    assert done.returncode == 3
    assert done.stderr.strip() == (
        "rag-eval calibrate: case 'c1': a labelled case needs its recorded answer and "
        "contexts (the answer the label is about)"
    )


def test_a_run_whose_judge_is_not_the_calibrated_one_warns_that_the_thresholds_may_not_fit(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "labelled.json").write_text(json.dumps({"test_cases": LABELLED}))
    (pytester.path / "eval-config.yaml").write_text(f"judge:\n  kind: {JUDGE}\n  passes: 1\n")
    assert calibrate(pytester.path, "labelled.json", "--output", "calibration.json").returncode == 0
    written = json.loads((pytester.path / "calibration.json").read_text())
    written["judge_identity"] = "another-judge"
    (pytester.path / "calibration.json").write_text(json.dumps(written))
    (pytester.path / "eval-config.yaml").write_text(
        f"judge:\n  kind: {JUDGE}\n  passes: 1\n  calibration: calibration.json\n"
    )
    pytester.makepyfile(
        test_rag="from rag_eval_pytest import assert_faithful\n\n"
        "def test_grounded(rag_case):\n    assert_faithful(rag_case)\n"
    )
    result = pytester.runpytest("--rag-dataset=labelled.json", "-p", "no:randomly", "-k", "exact")
    result.stdout.fnmatch_lines(
        [
            "warning: judge.calibration *calibration.json was made for another judge identity "
            "(another-judge) than this run's (*): its thresholds may not fit; run rag-eval "
            "calibrate again with this judge"
        ]
    )
