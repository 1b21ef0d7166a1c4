"""``rag-eval calibrate``: the judge's verdicts against a team's labels, in numbers checked by
hand on small sets (balanced accuracy, Cohen's kappa, ROC AUC, the best threshold and a
seeded bootstrap interval, the cases the judge disagreed with); the labelled cases a
calibration needs (both classes, enough of each); the calibration file written and read
back, one clear error for anything else (a threshold its labels could not place included);
and a whole calibration of a judge on a labelled dataset file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.data.dataset import Case, LoadedCase
from rag_eval_pytest.engine.calibration import (
    CALIBRATION_VERSION,
    Disagreement,
    Scored,
    agreement,
    balanced_accuracy,
    best_threshold,
    bootstrap_interval,
    calibrate,
    calibrated_thresholds,
    check_label_counts,
    cohen_kappa,
    label_counts,
    labelled_cases,
    read_calibration,
    roc_auc,
)
from rag_eval_pytest.errors import ConfigError
from tests.unit.engine.fakes import loaded

T, F = True, False

# --------------------------------------------------------------------------- statistics


def test_balanced_accuracy_weighs_passes_and_failures_alike() -> None:
    # The one pass is called a pass (1/1); two of the three failures are called failures.
    assert balanced_accuracy([T, T, F, F], [T, F, F, F]) == pytest.approx((1 + 2 / 3) / 2)
    # A class the labels do not have counts 0.5, whatever the predictions.
    assert balanced_accuracy([T, T], [T, T]) == 0.75
    assert balanced_accuracy([F, F], [T, T]) == 0.25


def test_kappa_is_agreement_beyond_chance() -> None:
    # 3 of 4 agree; the judge says pass half the time, the labels a quarter: chance agrees
    # 0.5 * 0.25 + 0.5 * 0.75 = 0.5 of the time, so kappa = (0.75 - 0.5) / (1 - 0.5).
    assert cohen_kappa([T, T, F, F], [T, F, F, F]) == 0.5
    assert cohen_kappa([T, F], [F, T]) == -1.0
    assert cohen_kappa([T, T], [T, T]) == 1.0  # agreement chance cannot explain away
    assert cohen_kappa([], []) == 0.0


def test_auc_is_the_chance_a_labelled_pass_scores_above_a_labelled_failure() -> None:
    # Passes 0.9, 0.4 against failures 0.6, 0.2: 0.9 beats both, 0.4 beats 0.2 only.
    assert roc_auc([0.9, 0.4, 0.6, 0.2], [T, T, F, F]) == 0.75
    assert roc_auc([0.5, 0.5], [T, F]) == 0.5  # a tie counts half
    assert roc_auc([0.9, 0.4], [T, T]) is None  # no failure to compare with


def test_the_best_threshold_fits_the_labels_ties_going_to_the_one_nearest_half() -> None:
    # Only 0.9 separates 0.95, 0.9 (passes) from 0.8, 0.7 (failures).
    assert best_threshold([0.95, 0.9, 0.8, 0.7], [T, T, F, F]) == (0.9, 1.0)
    # 0.5 and 0.6 both separate 0.9, 0.6 from 0.4, 0.2: 0.5 is nearer.
    assert best_threshold([0.9, 0.6, 0.4, 0.2], [T, T, F, F]) == (0.5, 1.0)


def test_the_bootstrap_interval_is_seeded_and_holds_the_estimate() -> None:
    predictions = [T, T, F, T, F, F, T, F, T, T]
    labels = [T, T, F, F, F, T, T, F, T, F]
    low, high = bootstrap_interval(predictions, labels)
    assert bootstrap_interval(predictions, labels) == (low, high)  # the same labels, the same
    assert low < balanced_accuracy(predictions, labels) < high
    # One case, nothing to resample: its balanced accuracy, the missing class counting 0.5.
    assert bootstrap_interval([T], [F]) == (0.25, 0.25)
    # Perfect verdicts on ten of each stay perfect in every resample that has both classes.
    assert bootstrap_interval([T] * 10 + [F] * 10, [T] * 10 + [F] * 10) == (1.0, 1.0)


def test_an_agreement_puts_the_numbers_together_and_counts_the_decided_verdicts() -> None:
    scored = [Scored("a", 0.9, T, T), Scored("b", 0.6, None, T)]
    scored += [Scored("c", 0.4, F, F), Scored("d", 0.2, F, F)]
    result = agreement("faithfulness", 0.7, scored)
    # At 0.7 the 0.6 pass is called a failure: passes 1/2, failures 2/2 -> 0.75; kappa as
    # above 0.5; every pass scores above every failure; 0.5 would fit the labels.
    assert (result.metric, result.cases, result.threshold) == ("faithfulness", 4, 0.7)
    assert (result.passes, result.failures, result.disagreed) == (2, 2, [])
    assert (result.balanced_accuracy, result.kappa, result.auc) == (0.75, 0.5, 1.0)
    assert (result.best_threshold, result.best_balanced_accuracy) == (0.5, 1.0)
    # The 0.6 depended on items the judge was unsure of: the three others were all right.
    assert (result.decided, result.decided_balanced_accuracy) == (3, 1.0)
    low, high = result.interval
    assert low <= 0.75 <= high


def test_with_no_decided_verdict_there_is_no_decided_accuracy() -> None:
    result = agreement("faithfulness", 0.5, [Scored("a", 0.9, None, T), Scored("b", 0.1, None, F)])
    assert (result.decided, result.decided_balanced_accuracy) == (0, None)


def test_the_cases_the_judge_disagreed_with_at_the_best_threshold_are_listed() -> None:
    scored = [Scored(f"p{i}", 0.9, T, T) for i in range(3)] + [Scored("low", 0.1, F, T)]
    scored += [Scored(f"f{i}", 0.2, F, F) for i in range(3)] + [Scored("high", 0.95, T, F)]
    result = agreement("faithfulness", 0.7, scored)
    # 0.5 and 0.9 both call 3 of each class right, 0.5 is nearer 0.5: "low" (a pass the
    # judge scored 0.1) and "high" (a failure it scored 0.95) are on its wrong side.
    assert (result.best_threshold, result.best_balanced_accuracy) == (0.5, 0.75)
    assert result.disagreed == [
        Disagreement("low", "pass", 0.1),
        Disagreement("high", "fail", 0.95),
    ]
    assert result.placed


def test_a_threshold_no_better_than_chance_is_not_placed() -> None:
    # The judge scores every answer 1: any threshold calls every case a pass.
    scored = [Scored(f"c{i}", 1.0, T, i % 2 == 0) for i in range(10)]
    result = agreement("faithfulness", 0.7, scored)
    assert result.best_balanced_accuracy == 0.5
    assert not result.placed


# --------------------------------------------------------------------------- labelled cases

POLICY = "Refunds are available within 30 days of purchase."
MARS = "Shipping is free to Mars."


def labelled(key: str, answer: str, label: str | None, **fields: Any) -> dict[str, Any]:
    labels = {"faithfulness": label} if label else None
    return {
        "id": key,
        "question": "Refunds?",
        "answer": answer,
        "contexts": [POLICY],
        "labels": labels,
        **fields,
    }


def test_only_labelled_cases_are_calibrated_on() -> None:
    cases = [
        LoadedCase(
            key=key, index=0, case=Case(**labelled(key, POLICY, label)), dataset=Path("d.json")
        )
        for key, label in (("a", "pass"), ("b", None))
    ]
    assert [c.key for c in labelled_cases(cases)] == ["a"]
    with pytest.raises(ConfigError, match=r"no case has labels: give each case labels: \{metric"):
        labelled_cases(cases[1:])


def test_a_labelled_case_needs_the_answer_its_label_is_about() -> None:
    unanswered = loaded("c1", question="Q?", labels={"faithfulness": "pass"})
    with pytest.raises(ConfigError, match="case 'c1': a labelled case needs its recorded answer"):
        labelled_cases([unanswered])


def test_a_threshold_needs_enough_labelled_passes_and_failures_of_each_metric() -> None:
    cases = [
        loaded(f"c{i}", question="Q?", labels={"faithfulness": "pass", "answer_relevancy": label})
        for i, label in enumerate(["pass"] * 5 + ["fail"] * 4)
    ]
    counts = label_counts(cases)
    assert counts == {"faithfulness": (9, 0), "answer_relevancy": (5, 4)}
    with pytest.raises(ConfigError) as raised:
        check_label_counts(counts)
    assert str(raised.value) == (
        "cannot calibrate answer_relevancy (5 pass, 4 fail), faithfulness (9 pass, 0 fail): a "
        "threshold is chosen from at least 5 labelled passes and 5 labelled failures of each "
        "metric; label more cases"
    )
    check_label_counts({"faithfulness": (5, 5)})  # enough of each


# --------------------------------------------------------------------------- the file


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_calibration_file_reads_back_with_its_thresholds(tmp_path: Path) -> None:
    entry = {"best_threshold": 0.55, "balanced_accuracy": 0.9}
    data = {
        "version": CALIBRATION_VERSION,
        "metrics": {"faithfulness": entry, "context_recall": {"best_threshold": 1}},
    }
    read = read_calibration(write(tmp_path / "c.json", data))
    assert calibrated_thresholds(read) == {"faithfulness": 0.55, "context_recall": 1.0}


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("{not json", "not a calibration file \\("),
        (json.dumps([1, 2]), "not a calibration file written by rag-eval calibrate"),
        (json.dumps({"version": 99, "metrics": {}}), "not a calibration file written by"),
        (
            json.dumps({"version": 1, "metrics": {"f": {"best_threshold": 1.5}}}),
            "metric 'f' has no threshold",
        ),
        (
            json.dumps({"version": 1, "metrics": {"f": {"best_threshold": True}}}),
            "metric 'f' has no threshold",
        ),
        (json.dumps({"version": 1, "metrics": {"f": "0.5"}}), "metric 'f' has no threshold"),
        # As an earlier version wrote labels of one class: 0, which passes every case.
        (
            json.dumps({"version": 1, "metrics": {"f": {"best_threshold": 0.0, "auc": None}}}),
            "metric 'f' has a threshold its labels cannot place \\(labels of one class, fewer "
            "than 5 of each, or none better than chance\\); run rag-eval calibrate again",
        ),
        (
            json.dumps({"version": 1, "metrics": {"f": {"best_threshold": 0.5, "failures": 2}}}),
            "metric 'f' has a threshold its labels cannot place",
        ),
        (
            json.dumps(
                {
                    "version": 1,
                    "metrics": {"f": {"best_threshold": 0.5, "best_balanced_accuracy": 0.5}},
                }
            ),
            "metric 'f' has a threshold its labels cannot place",
        ),
    ],
)
def test_anything_but_a_calibration_file_is_one_error_naming_it(
    tmp_path: Path, content: str, error: str
) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=f"^judge.calibration {path}: {error}"):
        read_calibration(path)


def test_a_missing_calibration_file_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nowhere\.json: cannot be read"):
        read_calibration(tmp_path / "nowhere.json")


# --------------------------------------------------------------------------- a whole calibration

JUDGE = {"kind": "tests.unit.engine.fakes:SentenceJudge"}


def dataset(tmp_path: Path, *cases: dict[str, Any]) -> Path:
    return write(tmp_path / "labelled.json", {"test_cases": list(cases)})


def balanced(tmp_path: Path, *extra: dict[str, Any]) -> Path:
    """Five labelled passes and five labelled failures, which the judge scores 1 (exact),
    0.5 (an unsupported aside a reviewer accepts) and 0 (mars, moon); "stale" repeats the
    policy, which a reviewer knows has changed: labelled fail, scored 1."""
    return dataset(
        tmp_path,
        *(labelled(f"exact-{i}", POLICY, "pass") for i in range(3)),
        *(labelled(f"aside-{i}", f"{POLICY} {MARS}", "pass") for i in range(2)),
        *(labelled(f"mars-{i}", MARS, "fail") for i in range(3)),
        labelled("moon", "The moon base opens on Monday.", "fail"),
        labelled("stale", POLICY, "fail"),
        *extra,
    )


def test_a_judge_is_calibrated_on_a_labelled_dataset_and_the_result_reads_back(
    tmp_path: Path,
) -> None:
    path = balanced(tmp_path, labelled("unlabelled", POLICY, None))
    calibration = calibrate(Settings(judge=JUDGE), path, env={})
    result = calibration.metrics["faithfulness"]
    # At the default 0.7 the asides are called failures and "stale" a pass: passes 3/5,
    # failures 4/5, 0.7 balanced accuracy; 7 of 10 agree where chance gives 0.5: kappa 0.4.
    # 0.5 fits the labels best: 5/5 and 4/5; "stale" stays on the wrong side of it.
    assert (result.cases, result.passes, result.failures, result.threshold) == (10, 5, 5, 0.7)
    assert (result.balanced_accuracy, result.kappa, result.auc) == (0.7, 0.4, 0.86)
    assert (result.best_threshold, result.best_balanced_accuracy) == (0.5, 0.9)
    assert result.disagreed == [Disagreement("stale", "fail", 1.0)]
    assert result.decided == 10  # the judge is sure of every statement
    assert calibration.dataset == str(path)
    assert calibration.judge_identity is not None
    assert calibration.unplaced() is None
    data = calibration.to_json()
    assert data["version"] == CALIBRATION_VERSION
    assert data["metrics"]["faithfulness"]["disagreed"] == [
        {"case": "stale", "label": "fail", "score": 1.0}
    ]
    assert calibrated_thresholds(read_calibration(write(tmp_path / "c.json", data))) == {
        "faithfulness": 0.5
    }


def test_a_configured_threshold_is_the_one_calibrated(tmp_path: Path) -> None:
    settings = Settings(judge=JUDGE, metrics={"faithfulness": {"threshold": 0.5}})
    result = calibrate(settings, balanced(tmp_path), env={}).metrics["faithfulness"]
    assert (result.threshold, result.balanced_accuracy) == (0.5, 0.9)


def test_labels_of_one_class_are_refused_before_the_judge_is_asked(tmp_path: Path) -> None:
    # Ten accepted answers: every threshold up to the lowest score calls them all passes, so
    # the "best" was 0, and a run that used it passed every case.
    path = dataset(tmp_path, *(labelled(f"c{i}", POLICY, "pass") for i in range(10)))
    with pytest.raises(ConfigError, match=r"^cannot calibrate faithfulness \(10 pass, 0 fail\)"):
        calibrate(Settings(judge={"kind": "tests.unit.engine.fakes:NoSuchJudge"}), path, env={})


def test_a_judge_whose_scores_do_not_follow_the_labels_places_no_threshold(
    tmp_path: Path,
) -> None:
    # Every answer quotes the policy (scored 1), half of them labelled fail.
    path = dataset(
        tmp_path, *(labelled(f"c{i}", POLICY, "pass" if i % 2 else "fail") for i in range(10))
    )
    calibration = calibrate(Settings(judge=JUDGE), path, env={})
    assert calibration.unplaced() == (
        "no threshold tells the labelled passes from the failures better than chance for "
        "faithfulness (best balanced accuracy 0.500)"
    )


def test_a_label_of_an_unknown_metric_is_one_error_naming_the_case(tmp_path: Path) -> None:
    path = dataset(tmp_path, labelled("c1", POLICY, None, labels={"faithfullness": "pass"}))
    with pytest.raises(ConfigError, match="case 'c1': labels: unknown metric 'faithfullness'"):
        calibrate(Settings(judge=JUDGE), path, env={})


def test_a_case_the_judge_cannot_judge_stops_the_calibration(tmp_path: Path) -> None:
    path = balanced(tmp_path, labelled("empty", "", "pass"))
    with pytest.raises(
        ConfigError, match="case 'empty': faithfulness not judged: the answer makes no"
    ):
        calibrate(Settings(judge=JUDGE), path, env={})
