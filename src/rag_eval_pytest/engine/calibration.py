"""``rag-eval calibrate``: how well the configured judge agrees with a team's own labels.

A labelled dataset is a dataset whose cases carry recorded answers and contexts and a
person's verdict per metric (``labels: {faithfulness: fail}``). Each labelled metric of each
case is scored by the configured judge through the metrics' own code, as a run scores it, and
compared with the label:

* the balanced accuracy of the verdicts at the metric's threshold (the config's ``metrics:``
  threshold, else the metric's default), with a 95 % bootstrap interval over the cases
  (seeded: the same labels give the same interval), Cohen's kappa and the ROC AUC of the
  scores;
* the threshold that would maximise the balanced accuracy on these labels, and the labelled
  cases the judge disagreed with at it;
* for the local and the cascade judges, how many verdicts were decided (did not depend on
  items the local judge was unsure of) and how right those were.

A threshold is chosen only where the labels can place one: a metric needs at least
:data:`MIN_LABELS_PER_CLASS` labelled passes and as many labelled failures (checked before the
judge is asked anything), and a threshold that tells them apart better than chance. On labels
of one class any threshold on one side of the scores "fits" them, whatever the judge says (an
earlier version wrote 0, and a run that used it passed every case).

The result is written to a calibration file (JSON) with the judge's identity; a run's config
points at it with ``judge.calibration``: its thresholds become the metrics' defaults, and a
run whose judge identity differs from the file's says so in its header.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import math
import random
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from ..errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from ..config.settings import Settings
    from ..data.dataset import LoadedCase
    from ..judges.base import Judge
    from ..metrics.base import Measurement

T = TypeVar("T")

CALIBRATION_VERSION = 1
BOOTSTRAP_ROUNDS = 2000
MIN_LABELS_PER_CLASS = 5
"""The fewest labelled passes, and labelled failures, of a metric that a threshold is chosen
from: with fewer, the best threshold fits a handful of cases and its interval spans most of
[0, 1]."""


class Scored(NamedTuple):
    """A labelled case scored by the judge on one metric."""

    key: str
    score: float
    decided: bool | None
    """The run's verdict at the metric's threshold; ``None`` when it depended on items the
    judge was unsure of."""
    label: bool
    """The person's verdict: ``True`` for pass."""


@dataclass(frozen=True)
class Disagreement:
    """A labelled case the judge's score puts on the other side of the best threshold."""

    case: str
    label: Literal["pass", "fail"]
    score: float


@dataclass(frozen=True)
class Agreement:
    """The judge against the labels of one metric."""

    metric: str
    cases: int
    passes: int
    failures: int
    threshold: float
    balanced_accuracy: float
    interval: tuple[float, float]
    kappa: float
    auc: float | None
    best_threshold: float
    best_balanced_accuracy: float
    decided: int
    decided_balanced_accuracy: float | None
    disagreed: list[Disagreement]

    @property
    def placed(self) -> bool:
        """Whether the best threshold tells the labelled passes from the failures better
        than chance (a threshold at or below every score calls all of them passes: 0.5)."""
        return self.best_balanced_accuracy > 0.5


@dataclass(frozen=True)
class Calibration:
    judge: str
    judge_identity: str | None
    dataset: str
    created: str
    metrics: dict[str, Agreement]

    def unplaced(self) -> str | None:
        """Why the calibration gives no thresholds to write: a metric none of whose
        thresholds tells its labelled passes from its failures better than chance."""
        names = [
            f"{a.metric} (best balanced accuracy {a.best_balanced_accuracy:.3f})"
            for a in self.metrics.values()
            if not a.placed
        ]
        if not names:
            return None
        return (
            "no threshold tells the labelled passes from the failures better than chance "
            f"for {', '.join(names)}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "version": CALIBRATION_VERSION,
            "judge": self.judge,
            "judge_identity": self.judge_identity,
            "dataset": self.dataset,
            "created": self.created,
            "metrics": {name: asdict(agreement) for name, agreement in self.metrics.items()},
        }


# --------------------------------------------------------------------------- statistics


def balanced_accuracy(predictions: Sequence[bool], labels: Sequence[bool]) -> float:
    """The mean of the share of passes called passes and of failures called failures (0.5
    for a class the labels do not have)."""
    positives, negatives = _by_label(predictions, labels)
    return (_share(positives) + _share([not p for p in negatives])) / 2


def _by_label(values: Sequence[T], labels: Sequence[bool]) -> tuple[list[T], list[T]]:
    """The values of the labelled passes, and those of the labelled failures."""
    positives = [v for v, y in zip(values, labels, strict=True) if y]
    negatives = [v for v, y in zip(values, labels, strict=True) if not y]
    return positives, negatives


def _share(verdicts: list[bool]) -> float:
    """The share of true verdicts; 0.5 for none."""
    return sum(verdicts) / len(verdicts) if verdicts else 0.5


def cohen_kappa(predictions: Sequence[bool], labels: Sequence[bool]) -> float:
    """Agreement beyond chance: 1 perfect, 0 what chance gives, below 0 worse."""
    n = len(labels)
    if not n:
        return 0.0
    observed = sum(p == y for p, y in zip(predictions, labels, strict=True)) / n
    p_yes = sum(predictions) / n
    y_yes = sum(labels) / n
    expected = p_yes * y_yes + (1 - p_yes) * (1 - y_yes)
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The chance that a labelled pass scores above a labelled failure (ties count half);
    ``None`` without both."""
    positives, negatives = _by_label(scores, labels)
    if not positives or not negatives:
        return None
    wins = sum((p > q) + 0.5 * (p == q) for p in positives for q in negatives)
    return wins / (len(positives) * len(negatives))


def best_threshold(scores: Sequence[float], labels: Sequence[bool]) -> tuple[float, float]:
    """The threshold (one of the scores, or 0.5) with the best balanced accuracy on these
    labels, ties to the one closest to 0.5; with that accuracy."""
    candidates = sorted({round(s, 4) for s in scores} | {0.5})

    def quality(threshold: float) -> tuple[float, float]:
        accuracy = balanced_accuracy([s >= threshold for s in scores], labels)
        return accuracy, -abs(threshold - 0.5)

    best = max(candidates, key=quality)
    return best, quality(best)[0]


def bootstrap_interval(
    predictions: Sequence[bool], labels: Sequence[bool], *, seed: int = 0
) -> tuple[float, float]:
    """A 95 % interval of the balanced accuracy, resampling the cases (seeded)."""
    n = len(labels)
    if n < 2:
        value = balanced_accuracy(predictions, labels)
        return (value, value)
    rng = random.Random(seed)
    values = []
    for _ in range(BOOTSTRAP_ROUNDS):
        picks = [rng.randrange(n) for _ in range(n)]
        values.append(
            balanced_accuracy([predictions[i] for i in picks], [labels[i] for i in picks])
        )
    values.sort()
    return (values[int(0.025 * len(values))], values[math.ceil(0.975 * len(values)) - 1])


def agreement(metric: str, threshold: float, scored: Sequence[Scored]) -> Agreement:
    """The judge's scores against the labels of ``metric``. The verdict at the threshold is
    the score's, forced where undecided."""
    scores = [row.score for row in scored]
    labels = [row.label for row in scored]
    predictions = [s >= threshold for s in scores]
    decided = [(row.decided, row.label) for row in scored if row.decided is not None]
    best, best_accuracy = best_threshold(scores, labels)
    return Agreement(
        metric=metric,
        cases=len(scored),
        passes=sum(labels),
        failures=len(labels) - sum(labels),
        threshold=threshold,
        balanced_accuracy=round(balanced_accuracy(predictions, labels), 4),
        interval=_rounded_interval(bootstrap_interval(predictions, labels)),
        kappa=round(cohen_kappa(predictions, labels), 4),
        auc=_rounded(roc_auc(scores, labels)),
        best_threshold=best,
        best_balanced_accuracy=round(best_accuracy, 4),
        decided=len(decided),
        decided_balanced_accuracy=_decided_accuracy(decided),
        disagreed=disagreements(scored, best),
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _rounded_interval(interval: tuple[float, float]) -> tuple[float, float]:
    return round(interval[0], 4), round(interval[1], 4)


def _decided_accuracy(decided: list[tuple[bool, bool]]) -> float | None:
    """The balanced accuracy of the verdicts that did not depend on unsure items (verdict,
    label); ``None`` without any."""
    if not decided:
        return None
    return round(balanced_accuracy([d for d, _ in decided], [y for _, y in decided]), 4)


def disagreements(scored: Sequence[Scored], threshold: float) -> list[Disagreement]:
    """The labelled cases whose score is on the other side of ``threshold``, in order."""
    return [
        Disagreement(row.key, "pass" if row.label else "fail", round(row.score, 4))
        for row in scored
        if (row.score >= threshold) != row.label
    ]


# --------------------------------------------------------------------------- running


def labelled_cases(cases: Sequence[LoadedCase]) -> list[LoadedCase]:
    """The cases with labels; each needs its recorded answer and contexts (the judge is
    calibrated on answers a person labelled, not on new ones)."""
    labelled = [c for c in cases if c.case.labels]
    if not labelled:
        raise ConfigError("no case has labels: give each case labels: {metric: pass|fail}")
    for loaded in labelled:
        _check_recorded(loaded)
    return labelled


def _check_recorded(loaded: LoadedCase) -> None:
    if loaded.case.answer is None or loaded.case.contexts is None:
        raise ConfigError(
            f"case {loaded.key!r}: a labelled case needs its recorded answer and contexts "
            "(the answer the label is about)"
        )


def label_counts(cases: Sequence[LoadedCase]) -> dict[str, tuple[int, int]]:
    """Per labelled metric, its labelled passes and labelled failures."""
    counts: dict[str, tuple[int, int]] = {}
    for loaded in cases:
        for name, label in (loaded.case.labels or {}).items():
            passes, failures = counts.get(name, (0, 0))
            counts[name] = (passes + (label == "pass"), failures + (label == "fail"))
    return counts


def check_label_counts(counts: Mapping[str, tuple[int, int]]) -> None:
    """One error naming every metric whose labels cannot place a threshold: labels of one
    class, or fewer than :data:`MIN_LABELS_PER_CLASS` of either."""
    short = [
        f"{name} ({passes} pass, {failures} fail)"
        for name, (passes, failures) in sorted(counts.items())
        if min(passes, failures) < MIN_LABELS_PER_CLASS
    ]
    if short:
        raise ConfigError(
            f"cannot calibrate {', '.join(short)}: a threshold is chosen from at least "
            f"{MIN_LABELS_PER_CLASS} labelled passes and {MIN_LABELS_PER_CLASS} labelled "
            "failures of each metric; label more cases"
        )


async def _score(
    judge: Judge,
    cases: Sequence[LoadedCase],
    thresholds: Mapping[str, float],
    concurrency: int,
) -> dict[str, list[Scored]]:
    slots = asyncio.Semaphore(concurrency)
    jobs = [
        _score_one(judge, loaded, name, thresholds, slots)
        for loaded in cases
        for name in (loaded.case.labels or {})
    ]
    scored: dict[str, list[Scored]] = {}
    for name, row in await asyncio.gather(*jobs):
        scored.setdefault(name, []).append(row)
    return scored


async def _score_one(
    judge: Judge,
    loaded: LoadedCase,
    name: str,
    thresholds: Mapping[str, float],
    slots: asyncio.Semaphore,
) -> tuple[str, Scored]:
    """One labelled metric of one case, scored as a run scores it (a case it leaves not
    judged is an error: its label can be compared with nothing)."""
    from ..metrics.base import MetricResult, Services
    from ..metrics.registry import get_metric
    from .session import make_sample, measure, recorded_response

    sample = make_sample(loaded, recorded_response(loaded))
    async with slots:
        measured = await measure(get_metric(name), sample, Services(judge=judge, embed=judge.embed))
    if measured.score is None and measured.bounds is None:
        raise ConfigError(f"case {loaded.key!r}: {name} not judged: {measured.reason}")
    result = MetricResult.from_measurement(loaded.key, name, measured, thresholds[name])
    decided = None if result.undecided else result.passed
    label = (loaded.case.labels or {})[name] == "pass"
    return name, Scored(loaded.key, _score_of(measured), decided, label)


def _score_of(measured: Measurement) -> float:
    """The score; where it depended on unsure items, the middle of its bounds."""
    if measured.score is not None:
        return measured.score
    assert measured.bounds is not None
    return sum(measured.bounds) / 2


def calibrate(settings: Settings, dataset: Path, env: Mapping[str, str]) -> Calibration:
    """Score the labelled cases of ``dataset`` with the configured judge and compare."""
    from ..data.dataset import load_datasets
    from ..judges.base import run_identity
    from ..judges.factory import build_judge, judge_label

    cases = labelled_cases(load_datasets([dataset]).cases)
    thresholds = _thresholds(settings, cases)
    check_label_counts(label_counts(cases))
    judge = build_judge(settings.judge, env=env)
    scored = asyncio.run(_score_and_close(judge, cases, thresholds, settings.concurrency.limit))
    return Calibration(
        judge=judge_label(settings.judge, env),
        judge_identity=run_identity(judge),
        dataset=str(dataset),
        created=dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        metrics={
            name: agreement(name, thresholds[name], rows) for name, rows in sorted(scored.items())
        },
    )


def _thresholds(settings: Settings, cases: Sequence[LoadedCase]) -> dict[str, float]:
    """The threshold of each labelled metric: the config's, else the metric's default. An
    unknown metric is an error naming its case."""
    from ..metrics.registry import registered_names

    known = registered_names()
    thresholds: dict[str, float] = {}
    for loaded in cases:
        for name in loaded.case.labels or {}:
            if name not in known:
                raise ConfigError(f"case {loaded.key!r}: labels: unknown metric {name!r}")
            thresholds[name] = _threshold(settings, name)
    return thresholds


def _threshold(settings: Settings, name: str) -> float:
    from ..metrics.registry import default_threshold

    configured = settings.metrics.get(name) if settings.metrics else None
    threshold = configured.threshold if configured is not None else None
    return default_threshold(name) if threshold is None else threshold


async def _score_and_close(
    judge: Judge, cases: Sequence[LoadedCase], thresholds: Mapping[str, float], concurrency: int
) -> dict[str, list[Scored]]:
    try:
        return await _score(judge, cases, thresholds, concurrency)
    finally:
        await judge.aclose()


def read_calibration(path: Path) -> dict[str, Any]:
    """A calibration file as written by :func:`Calibration.to_json`; one clear error for
    anything else."""
    data = _calibration_json(path)
    metrics = data.get("metrics") if isinstance(data, dict) else None
    if not isinstance(metrics, dict) or data.get("version") != CALIBRATION_VERSION:
        raise ConfigError(
            f"judge.calibration {path}: not a calibration file written by rag-eval calibrate"
        )
    for name, entry in metrics.items():
        problem = _entry_problem(entry)
        if problem is not None:
            raise ConfigError(f"judge.calibration {path}: metric {name!r} {problem}")
    read: dict[str, Any] = data
    return read


def _calibration_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"judge.calibration {path}: cannot be read ({exc.strerror})") from None
    except ValueError as exc:
        raise ConfigError(f"judge.calibration {path}: not a calibration file ({exc})") from None


def _entry_problem(entry: object) -> str | None:
    """Why a metric's entry of a calibration file gives no threshold a run may use: none in
    [0, 1], or one its labels could not place."""
    if not isinstance(entry, dict) or not _unit_number(entry.get("best_threshold")):
        return "has no threshold"
    if not _placed(entry):
        return (
            "has a threshold its labels cannot place (labels of one class, fewer than "
            f"{MIN_LABELS_PER_CLASS} of each, or none better than chance); run rag-eval "
            "calibrate again with more labels"
        )
    return None


def _placed(entry: Mapping[str, Any]) -> bool:
    """Whether what an entry records of its labels allows its threshold: an earlier version
    wrote 0 from labels of one class (its ROC AUC null), which passes every case."""
    return not (_no_auc(entry) or _too_few_labels(entry) or _no_better_than_chance(entry))


def _unit_number(value: object) -> bool:
    """A number (not a bool) in [0, 1]."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0 <= value <= 1


def _no_auc(entry: Mapping[str, Any]) -> bool:
    return "auc" in entry and entry["auc"] is None


def _too_few_labels(entry: Mapping[str, Any]) -> bool:
    counts = [entry.get(key) for key in ("passes", "failures")]
    return any(isinstance(n, int) and n < MIN_LABELS_PER_CLASS for n in counts)


def _no_better_than_chance(entry: Mapping[str, Any]) -> bool:
    accuracy = entry.get("best_balanced_accuracy")
    return isinstance(accuracy, (int, float)) and accuracy <= 0.5


def calibrated_thresholds(data: Mapping[str, Any]) -> dict[str, float]:
    """The threshold per metric a calibration file gives (its best threshold)."""
    return {name: float(entry["best_threshold"]) for name, entry in data["metrics"].items()}
