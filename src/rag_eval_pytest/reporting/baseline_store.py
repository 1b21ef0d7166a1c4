"""The cases earlier runs kept for the runs after them: ``baselines/judge-<hash>.json`` in the
output folder, one file per judge identity.

``results.jsonl`` keeps one line per run: its means, not its cases. A comparison that asks
whether a drop is larger than the judge's noise needs each case's score (a paired test), and
a case that flips between pass and fail with the same answer needs its last outcomes. So each
complete run also keeps, beside the history, each case's score per metric with the run it
came from, and each case's last outcomes with the hash of the answer and contexts they were
judged on.

* One file per judge identity: another judge (another model, prompt or number of votes)
  measures differently and is never compared with; a run of that judge finds its own file.
* Within it, a case keeps a digest of what defines it (question, ground truth, expected
  documents: a case whose content changed is not the same case) and each metric's score
  from the last run that judged it and was not flagged as a regression: a ``-k`` subset
  compares on its own cases and updates only them, and a flagged run updates no score (its
  outcomes only), so running the same build again is compared with the same baseline, not
  with the run that regressed.

The file is read up to the size limit of every input file, and validated whole: a file that
holds anything a run does not write (a truncated file, a score of NaN or of text) is
:class:`UnreadableStore`, named with the case and the field.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..atomic import atomic_writer, write_atomic
from ..data.reading import FileTooLarge, read_limited
from ..text.shorten import cut
from .models import Score
from .stability import stable_metrics

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from pathlib import Path

    from .collector import CaseRecord
    from .models import CaseResult
    from .payload import CasePayload

BASELINES = "baselines"
STORE_VERSION = 2


class _Kept(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class KeptScore(_Kept):
    """A metric's result on a case, and the run that judged it."""

    run: str | None
    score: Score
    status: Literal["passed", "failed"]
    threshold: Score | None
    stable: bool = Field(strict=True, description="Its verdict does not hang on noise.")


class KeptCase(_Kept):
    content: str = Field(
        description="A digest of what defines the case (its question, ground truth and "
        "expected documents, a conversation's turns'): a case whose content changed is "
        "another case, not compared with this one."
    )
    metrics: dict[str, KeptScore] = Field(default_factory=dict)


class KeptRuns(_Kept):
    """What the runs of one judge identity kept: each case's scores, each case's outcomes."""

    version: Literal[2]
    judge_identity: str | None
    runs: list[str | None] = Field(
        default_factory=list, description="The runs whose scores are kept, oldest first."
    )
    cases: dict[str, KeptCase] = Field(default_factory=dict)
    outcomes: dict[str, Any] = Field(
        default_factory=dict,
        description="Per case its last outcomes, [run, content hash, status]; read leniently "
        "(an entry that is not one is dropped): it only ever names a case judge-flaky.",
    )


class UnreadableStore(ValueError):
    """The kept file is there and cannot be used; the message names it and why."""


def store_path(output_dir: Path, judge_identity: str | None) -> Path:
    """The file of the runs judged by ``judge_identity`` (``None``: runs that used no judge)."""
    material = f"judge:{judge_identity or ''}".encode()
    return output_dir / BASELINES / f"judge-{hashlib.sha256(material).hexdigest()[:16]}.json"


def read_kept(path: Path, judge_identity: str | None) -> KeptRuns | None:
    """The runs of ``judge_identity`` kept at ``path``; ``None`` when none was kept yet.
    Raises :class:`UnreadableStore` for a file that is there and cannot be used (one kept
    for another judge identity included: copied there by hand)."""
    try:
        data = _json_of(path)
    except FileNotFoundError:
        return None
    kept = _validated(path, data)
    if kept.judge_identity != judge_identity:
        raise UnreadableStore(
            f"the stored baseline {path} was kept for judge identity {kept.judge_identity}, "
            f"not this run's ({judge_identity})"
        )
    return kept


def _json_of(path: Path) -> Any:
    """The data of the kept file. Raises :class:`FileNotFoundError` when there is none, and
    :class:`UnreadableStore` when it cannot be read or is no JSON."""
    try:
        return json.loads(read_limited(path).decode("utf-8"))
    except FileNotFoundError:
        raise
    except FileTooLarge as exc:
        raise UnreadableStore(f"the stored baseline {path} cannot be read: {exc}") from None
    except OSError as exc:
        reason = exc.strerror or exc
        raise UnreadableStore(f"the stored baseline {path} cannot be read: {reason}") from None
    except (ValueError, RecursionError):
        raise UnreadableStore(f"the stored baseline {path} is not JSON") from None


def _validated(path: Path, data: Any) -> KeptRuns:
    """The kept runs the file's data holds; raises :class:`UnreadableStore` for data of
    another version, or that holds anything a run does not write."""
    if not isinstance(data, dict) or data.get("version") != STORE_VERSION:
        raise UnreadableStore(
            f"the stored baseline {path} is not a stored baseline of version {STORE_VERSION}"
        )
    try:
        return KeptRuns.model_validate(data)
    except ValidationError as exc:
        raise UnreadableStore(f"the stored baseline {path}: {_problem(exc)}") from None


def _problem(exc: ValidationError) -> str:
    """The first thing wrong in a kept file: the case, the metric, the field, the value."""
    error = exc.errors()[0]
    where = _where(list(error["loc"]))
    value = error.get("input")
    shown = "" if isinstance(value, dict | list) else f" (got {cut(repr(value), 40)})"
    return f"{': '.join(where)}: {error['msg']}{shown}"


def _where(loc: list[Any]) -> list[str]:
    """Where in a kept file an error is: its case, its metric, the rest of its path."""
    where = []
    if loc[:1] == ["cases"] and len(loc) > 1:
        where.append(f"case {loc[1]!r}")
        loc = loc[2:]
        if loc[:1] == ["metrics"] and len(loc) > 1:
            where.append(f"metric {loc[1]!r}")
            loc = loc[2:]
    if loc:
        where.append(".".join(map(str, loc)))
    return where


def case_content(
    question: str,
    ground_truth: str | None,
    expected: Sequence[str] | None,
    turns: Sequence[tuple[str, str | None, Sequence[str] | None]] = (),
) -> str:
    """A digest of what defines a case (not its answer, which is the RAG system's): two runs'
    cases of one key are the same case only when it is equal."""
    material = [question, ground_truth, expected, [list(turn) for turn in turns]]
    return hashlib.sha256(json.dumps(material).encode("utf-8")).hexdigest()[:16]


def payload_content(payload: CasePayload) -> str:
    """:func:`case_content` of a run's case."""
    turns = [
        (t["question"], t["ground_truth"], t["expected_contexts"])
        for t in payload.get("turns") or []
    ]
    return case_content(
        payload["question"], payload["ground_truth"], payload["expected_contexts"], turns
    )


def report_content(case: CaseResult) -> str:
    """:func:`case_content` of a report's case (``--rag-baseline PATH``)."""
    turns = [(t.question, t.ground_truth, t.expected_contexts) for t in case.turns or []]
    return case_content(case.question, case.ground_truth, case.expected_contexts, turns)


def judged_scores(record: CaseRecord, run_id: str | None) -> dict[str, KeptScore]:
    """The results a run's case was judged to, as the next runs keep them."""
    stable = stable_metrics(record.payload, record.metrics)
    return {
        name: KeptScore(
            run=run_id,
            score=result.score,
            status="passed" if result.passed else "failed",
            threshold=result.threshold,
            stable=name in stable,
        )
        for name, result in record.metrics.items()
        if result.status in ("passed", "failed") and result.score is not None
    }


def updated(
    kept: KeptRuns | None,
    judge_identity: str | None,
    records: Iterable[CaseRecord],
    outcomes: Mapping[str, list[list[str]]],
    *,
    run_id: str | None,
    scores: bool,
) -> KeptRuns:
    """``kept`` with this run's outcomes, and with its scores unless ``scores`` is false (a
    run flagged as a regression is no baseline): each judged metric of each case replaces the
    one kept; what this run did not judge stays as the run that judged it left it."""
    judged = {
        r.payload["key"]: (payload_content(r.payload), judged_scores(r, run_id)) for r in records
    }
    update = StoreUpdate(list(judged), judged.get, outcomes, run_id=run_id, scores=scores)
    cases = dict(kept_cases(kept, update))
    return KeptRuns(
        version=STORE_VERSION,
        judge_identity=judge_identity,
        runs=_runs_kept(kept, update, _runs_used(cases.values())),
        cases=cases,
        outcomes=dict(kept_outcomes(kept, outcomes)),
    )


Judged = tuple[str, dict[str, KeptScore]]
"""A case a run judged: its content (:func:`case_content`) and its scores."""


@dataclass(frozen=True)
class StoreUpdate:
    """What a run adds to the kept runs of its judge identity, read one case at a time."""

    keys: Iterable[str]
    """The run's judged cases, in order."""
    judged: Callable[[str], Judged | None]
    """A case's content and scores (``None``: the run did not judge it)."""
    outcomes: Mapping[str, list[list[str]]]
    """Each of the run's cases' last outcomes, this run's last."""
    run_id: str | None
    scores: bool
    """Whether the run keeps its scores (a run flagged as a regression keeps none)."""


def kept_cases(kept: KeptRuns | None, update: StoreUpdate) -> Iterator[tuple[str, KeptCase]]:
    """The kept cases with the run's, one at a time, in the file's order: each judged
    metric replaces the one kept (of a case with the same content; a case whose content
    changed starts afresh), then the cases no earlier run kept."""
    earlier = kept.cases if kept is not None else {}
    for key, before in earlier.items():
        judged = update.judged(key) if update.scores else None
        yield key, before if judged is None else _with_scores(before, *judged)
    if update.scores:
        yield from _new_cases(earlier, update)


def _new_cases(
    earlier: Mapping[str, KeptCase], update: StoreUpdate
) -> Iterator[tuple[str, KeptCase]]:
    """The run's judged cases that no earlier run kept."""
    for key in update.keys:
        judged = None if key in earlier else update.judged(key)
        if judged is not None and judged[1]:
            yield key, KeptCase(content=judged[0], metrics=judged[1])


def _with_scores(before: KeptCase, content: str, metrics: dict[str, KeptScore]) -> KeptCase:
    if not metrics:
        return before
    earlier = before.metrics if before.content == content else {}
    return KeptCase(content=content, metrics={**earlier, **metrics})


def kept_outcomes(
    kept: KeptRuns | None, outcomes: Mapping[str, list[list[str]]]
) -> Iterator[tuple[str, Any]]:
    """The kept outcomes with the run's, one case at a time."""
    earlier = kept.outcomes if kept is not None else {}
    for key, before in earlier.items():
        yield key, outcomes.get(key, before)
    yield from ((key, last) for key, last in outcomes.items() if key not in earlier)


def _runs_kept(
    kept: KeptRuns | None, update: StoreUpdate, used: set[str | None]
) -> list[str | None]:
    """The runs whose scores the cases keep, oldest first: this run last when it kept its
    scores."""
    runs = _earlier_runs(kept, update.run_id)
    if update.scores:
        runs.append(update.run_id)
    return [run for run in runs if run in used]


def _earlier_runs(kept: KeptRuns | None, run_id: str | None) -> list[str | None]:
    return [] if kept is None else [run for run in kept.runs if run != run_id]


def _runs_used(cases: Iterable[KeptCase]) -> set[str | None]:
    return {entry.run for case in cases for entry in case.metrics.values()}


def write_updated(
    path: Path, kept: KeptRuns | None, judge_identity: str | None, update: StoreUpdate
) -> None:
    """Write ``kept`` with the run's ``update`` (atomically), one case at a time: the whole
    store built first held every case three times over (its models, their JSON data, its
    text), 230 MB for 50,000 cases."""
    used: set[str | None] = set()
    with atomic_writer(path, shared=True) as fh:
        fh.write(f'{{"version":{STORE_VERSION},"judge_identity":{_json(judge_identity)}')
        fh.write(',"cases":{')
        for n, (key, case) in enumerate(kept_cases(kept, update)):
            used.update(entry.run for entry in case.metrics.values())
            fh.write(f"{',' if n else ''}{_json(key)}:{case.model_dump_json()}")
        fh.write('},"outcomes":{')
        for n, (key, last) in enumerate(kept_outcomes(kept, update.outcomes)):
            fh.write(f"{',' if n else ''}{_json(key)}:{_json(last)}")
        fh.write(f'}},"runs":{_json(_runs_kept(kept, update, used))}}}')


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def write_kept(path: Path, kept: KeptRuns) -> None:
    """Write the kept runs whole (atomically: a reader sees the old file or the new one)."""
    text = json.dumps(kept.model_dump(mode="json"), separators=(",", ":"))
    write_atomic(path, text, shared=True)
