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

The file is JSON Lines, read one line at a time (a run of 50,000 cases keeps about 200 MB
of it; read whole, the text, its JSON data and its models were held at once): a first line
with its version and judge identity, a line per case (its content and scores, its last
outcomes), and a last line with the runs its scores came from. A run reads its own cases'
lines (:meth:`KeptStore.of`) and writes the next file while it reads the kept one
(:func:`write_updated`). The file is read up to the size limit of every input file, and
validated line by line before it is used: a file that holds anything a run does not write (a
truncated file, a score of NaN or of text) is :class:`UnreadableStore`, named with the case
and the field. A file of version 2 (release 0.1.0: one JSON text) is read whole once and
rewritten as JSON Lines, its cases kept.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..atomic import atomic_writer, write_atomic
from ..data import reading
from ..data.reading import FileTooLarge
from ..text.shorten import cut
from .models import Score
from .stability import stable_metrics

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
    from pathlib import Path

    from .collector import CaseRecord
    from .models import CaseResult
    from .payload import CasePayload

BASELINES = "baselines"
STORE_VERSION = 3
_HEADER_BYTES = 64 * 1024
"""The most the first line is read to (it holds the version and the judge identity): a file
of an earlier version, one JSON text, is recognised without being read whole."""


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
    """What the runs of one judge identity kept: each case's scores, each case's outcomes;
    or only some cases' (:meth:`KeptStore.of`), with how many the file keeps scores of."""

    version: Literal[3]
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
    stored_cases: int | None = Field(
        default=None,
        description="How many cases the file keeps scores of, where ``cases`` holds only "
        "some of them (``None``: all of them).",
    )


class KeptLine(_Kept):
    """A case's line in the file: its scores (``None``: none kept, a run flagged as a
    regression kept its outcomes only), its last outcomes."""

    key: str
    case: KeptCase | None = None
    outcomes: Any = None


class _Header(_Kept):
    version: Literal[3]
    judge_identity: str | None


class _Trailer(_Kept):
    runs: list[str | None]


_M = TypeVar("_M", bound=_Kept)


class UnreadableStore(ValueError):
    """The kept file is there and cannot be used; the message names it and why."""


class _EarlierVersion(Exception):
    """The kept file is one JSON text of version 2 (release 0.1.0)."""


class _KeptV2(_Kept):
    """A file of version 2: every case in one JSON text."""

    version: Literal[2]
    judge_identity: str | None
    runs: list[str | None] = Field(default_factory=list)
    cases: dict[str, KeptCase] = Field(default_factory=dict)
    outcomes: dict[str, Any] = Field(default_factory=dict)


def _rewritten(path: Path) -> None:
    """Rewrite a file of version 2 as JSON Lines, its cases kept: read whole this once (as
    version 2 was read every run). Raises :class:`UnreadableStore` where it cannot be."""
    fields = _version_2(path).model_dump(exclude={"version"})
    try:
        write_kept(path, KeptRuns(version=STORE_VERSION, **fields))
    except OSError as exc:
        raise UnreadableStore(
            f"the stored baseline {path} (version 2) cannot be rewritten as version "
            f"{STORE_VERSION}: {exc.strerror}"
        ) from None


def _version_2(path: Path) -> _KeptV2:
    """The cases a file of version 2 keeps; :class:`UnreadableStore` naming the case and the
    field where it holds anything that version did not write."""
    text = b"".join(_limited_lines(path))
    try:
        return _KeptV2.model_validate(json.loads(text.decode("utf-8")))
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(map(str, error["loc"]))
        raise UnreadableStore(
            f"the stored baseline {path} (version 2): {where}: {error['msg']}"
        ) from None
    except (ValueError, RecursionError):
        raise UnreadableStore(f"the stored baseline {path} is not JSON") from None


def store_path(output_dir: Path, judge_identity: str | None) -> Path:
    """The file of the runs judged by ``judge_identity`` (``None``: runs that used no judge)."""
    material = f"judge:{judge_identity or ''}".encode()
    return output_dir / BASELINES / f"judge-{hashlib.sha256(material).hexdigest()[:16]}.json"


def read_kept(path: Path, judge_identity: str | None) -> KeptStore | None:
    """The runs of ``judge_identity`` kept at ``path``, the file read through once and every
    line validated (none is held); ``None`` when none was kept yet. Raises
    :class:`UnreadableStore` for a file that is there and cannot be used (one kept for
    another judge identity included: copied there by hand)."""
    try:
        store = _scanned(path)
    except FileNotFoundError:
        return None
    except _EarlierVersion:
        _rewritten(path)
        store = _scanned(path)
    if store.judge_identity != judge_identity:
        raise UnreadableStore(
            f"the stored baseline {path} was kept for judge identity {store.judge_identity}, "
            f"not this run's ({judge_identity})"
        )
    return store


@dataclass(frozen=True)
class KeptStore:
    """A kept file, read through once (:func:`read_kept`): its judge identity, its runs and
    how many cases it keeps scores of; its lines read again, one at a time, when asked."""

    path: Path
    judge_identity: str | None
    runs: list[str | None]
    stored_cases: int

    def lines(self, keys: Collection[str] | None = None) -> Iterator[KeptLine]:
        """Each case's line, in the file's order (only those of ``keys``, when given)."""
        for data in _records(self.path, header=False):
            if "key" in data and (keys is None or data["key"] in keys):
                yield _line(self.path, data)

    def of(self, keys: Collection[str] | None = None) -> KeptRuns:
        """What the file keeps of ``keys`` (``None``: of every case)."""
        cases: dict[str, KeptCase] = {}
        outcomes: dict[str, Any] = {}
        for line in self.lines(keys):
            if line.case is not None:
                cases[line.key] = line.case
            if line.outcomes is not None:
                outcomes[line.key] = line.outcomes
        return KeptRuns(
            version=STORE_VERSION,
            judge_identity=self.judge_identity,
            runs=self.runs,
            cases=cases,
            outcomes=outcomes,
            stored_cases=self.stored_cases,
        )


def _scanned(path: Path) -> KeptStore:
    """The kept file read through, each line validated: its first line, its cases, its last
    line. Raises :class:`FileNotFoundError` when there is none."""
    records = _records(path, header=True)
    header = _header(path, next(records, None))
    scored, trailer = 0, None
    for data in records:
        if trailer is not None:
            raise UnreadableStore(f"the stored baseline {path} holds lines after its last")
        if "key" in data:
            scored += _line(path, data).case is not None
        else:
            trailer = _validated(path, _Trailer, data)
    if trailer is None:
        raise UnreadableStore(f"the stored baseline {path} is cut short: it has no last line")
    return KeptStore(path, header.judge_identity, trailer.runs, scored)


def _header(path: Path, data: dict[str, Any] | None) -> _Header:
    """The file's first line: its version and judge identity."""
    if data is None or data.get("version") != STORE_VERSION:
        raise UnreadableStore(
            f"the stored baseline {path} is not a stored baseline of version {STORE_VERSION}"
        )
    return _validated(path, _Header, data)


def _records(path: Path, *, header: bool) -> Iterator[dict[str, Any]]:
    """Each line's JSON object, one at a time (the first only with ``header``). Raises
    :class:`FileNotFoundError` when there is no file, and :class:`UnreadableStore` when it
    cannot be read or a line is no JSON object."""
    lines = _limited_lines(path)
    first = next(lines, b"")
    if header:
        yield _record(path, first, old=True)
    for line in lines:
        if line.strip():
            yield _record(path, line)


def _limited_lines(path: Path) -> Iterator[bytes]:
    """The file's lines, read one at a time up to the size limit of every input file (the
    first up to :data:`_HEADER_BYTES`). Raises :class:`FileNotFoundError` when there is no
    file, :class:`UnreadableStore` when it cannot be read."""
    try:
        yield from _lines_up_to(path, reading.MAX_FILE_BYTES)
    except FileNotFoundError:
        raise
    except FileTooLarge as exc:
        raise UnreadableStore(f"the stored baseline {path} cannot be read: {exc}") from None
    except OSError as exc:
        reason = exc.strerror or exc
        raise UnreadableStore(f"the stored baseline {path} cannot be read: {reason}") from None


def _lines_up_to(path: Path, limit: int) -> Iterator[bytes]:
    total, most = 0, _HEADER_BYTES
    with path.open("rb") as fh:
        while line := fh.readline(min(most, limit + 1 - total)):
            total += len(line)
            if total > limit:
                raise FileTooLarge
            yield line
            most = limit + 1


def _record(path: Path, line: bytes, *, old: bool = False) -> dict[str, Any]:
    """A line's JSON object; a file of an earlier version (``old``: its first line) is said
    as such."""
    if old and line.startswith(b'{"version":2,'):
        raise _EarlierVersion
    try:
        data = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        raise UnreadableStore(f"the stored baseline {path} is not JSON Lines") from None
    if not isinstance(data, dict):
        raise UnreadableStore(
            f"the stored baseline {path} is not a stored baseline of version {STORE_VERSION}"
        )
    return data


def _line(path: Path, data: dict[str, Any]) -> KeptLine:
    return _validated(path, KeptLine, data)


def _validated(path: Path, model: type[_M], data: dict[str, Any]) -> _M:
    """``data`` as ``model``; raises :class:`UnreadableStore` for data that holds anything a
    run does not write."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UnreadableStore(f"the stored baseline {path}: {_problem(exc, data)}") from None


def _problem(exc: ValidationError, data: dict[str, Any]) -> str:
    """The first thing wrong in a kept line: the case, the metric, the field, the value."""
    error = exc.errors()[0]
    where = _where(data.get("key"), list(error["loc"]))
    value = error.get("input")
    shown = "" if isinstance(value, dict | list) else f" (got {cut(repr(value), 40)})"
    return f"{': '.join(where)}: {error['msg']}{shown}"


def _where(key: object, loc: list[Any]) -> list[str]:
    """Where in a kept line an error is: its case, its metric, the rest of its path."""
    if loc[:1] != ["case"] or not isinstance(key, str):
        return _path(loc)
    loc = loc[1:]
    if loc[:1] == ["metrics"] and len(loc) > 1:
        return [f"case {key!r}", f"metric {loc[1]!r}", *_path(loc[2:])]
    return [f"case {key!r}", *_path(loc)]


def _path(loc: list[Any]) -> list[str]:
    return [".".join(map(str, loc))] if loc else []


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

    keys: Collection[str]
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
    kept: KeptStore | KeptRuns | None, update: StoreUpdate, used: set[str | None]
) -> list[str | None]:
    """The runs whose scores the cases keep, oldest first: this run last when it kept its
    scores."""
    runs = _earlier_runs(kept, update.run_id)
    if update.scores:
        runs.append(update.run_id)
    return [run for run in runs if run in used]


def _earlier_runs(kept: KeptStore | KeptRuns | None, run_id: str | None) -> list[str | None]:
    return [] if kept is None else [run for run in kept.runs if run != run_id]


def _runs_used(cases: Iterable[KeptCase]) -> set[str | None]:
    return {entry.run for case in cases for entry in case.metrics.values()}


def write_updated(
    path: Path,
    kept: KeptStore | KeptRuns | None,
    judge_identity: str | None,
    update: StoreUpdate,
) -> None:
    """Write ``kept`` with the run's ``update`` (atomically), one case at a time, the kept
    file read a line at a time as the new one is written: the whole store built first held
    every case three times over (its models, their JSON data, its text), 230 MB for 50,000
    cases."""
    used: set[str | None] = set()
    with atomic_writer(path, shared=True) as fh:
        fh.write(_json({"version": STORE_VERSION, "judge_identity": judge_identity}) + "\n")
        for line in _merged_lines(kept, update):
            if line.case is not None:
                used.update(entry.run for entry in line.case.metrics.values())
            fh.write(_line_json(line) + "\n")
        fh.write(_json({"runs": _runs_kept(kept, update, used)}) + "\n")


def _merged_lines(kept: KeptStore | KeptRuns | None, update: StoreUpdate) -> Iterator[KeptLine]:
    """The kept lines with the run's, in the file's order, then the run's cases no earlier
    run kept: each judged metric replaces the one kept, each of the run's cases' outcomes the
    ones kept. Holds the run's keys, never the kept file's."""
    found: set[str] = set()  # the run's cases among the kept ones
    for line in _kept_lines(kept):
        if line.key in update.outcomes or line.key in update.keys:
            found.add(line.key)
        yield _merged(line, update)
    yield from _new_lines(update, found)


def _new_lines(update: StoreUpdate, found: set[str]) -> Iterator[KeptLine]:
    """The lines of the run's cases not ``found`` among the kept ones."""
    for key in chain(update.keys, update.outcomes):
        if key in found:
            continue
        found.add(key)
        line = _merged(KeptLine(key=key), update)
        if line.case is not None or line.outcomes is not None:
            yield line


def _merged(line: KeptLine, update: StoreUpdate) -> KeptLine:
    """A case's line with the run's scores (unless the run keeps none) and outcomes."""
    case = line.case
    judged = update.judged(line.key) if update.scores else None
    if judged is not None:
        case = _with_scores(case, *judged) if case is not None else _new_case(*judged)
    outcomes = update.outcomes.get(line.key, line.outcomes)
    return KeptLine(key=line.key, case=case, outcomes=outcomes)


def _new_case(content: str, metrics: dict[str, KeptScore]) -> KeptCase | None:
    return KeptCase(content=content, metrics=metrics) if metrics else None


def _kept_lines(kept: KeptStore | KeptRuns | None) -> Iterator[KeptLine]:
    """The kept cases' lines: read from the file, or made from kept runs in memory."""
    if isinstance(kept, KeptStore):
        yield from kept.lines()
    elif kept is not None:
        yield from (
            KeptLine(key=key, case=kept.cases.get(key), outcomes=kept.outcomes.get(key))
            for key in {**kept.cases, **kept.outcomes}
        )


def _line_json(line: KeptLine) -> str:
    """A case's line, without the scores or the outcomes it has none of."""
    none = {name for name in ("case", "outcomes") if getattr(line, name) is None}
    return line.model_dump_json(exclude=none)


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def write_kept(path: Path, kept: KeptRuns) -> None:
    """Write the kept runs (atomically: a reader sees the old file or the new one)."""
    lines = [_json({"version": STORE_VERSION, "judge_identity": kept.judge_identity})]
    lines += [_line_json(line) for line in _kept_lines(kept)]
    lines.append(_json({"runs": kept.runs}))
    write_atomic(path, "".join(f"{line}\n" for line in lines), shared=True)
