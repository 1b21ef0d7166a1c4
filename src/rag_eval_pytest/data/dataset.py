"""Dataset files: loading, validation and the :class:`Case` model.

A dataset is JSON (``{"metadata": ..., "test_cases": [...]}`` or a bare list), JSONL (one case
per line) or YAML (same shapes as JSON). A whole file is validated before any test runs; all
problems of a file are reported in one :class:`DatasetError` naming the file, each case and
field. Missing optional fields and stale files are warnings, not errors.

Runs in every process (controller and xdist workers load the same files and must produce the
same cases, in the same order, with the same ids).
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import pickle
import re
import reprlib
import threading
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, overload

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from ..errors import DatasetError
from ..runtime.heap import paused_collection
from ..text.shorten import cut
from . import bigints
from .duplicate_keys import DuplicateKeyError
from .foreign import NAMES, converter_command, foreign_format
from .reading import FileTooLarge, read_limited
from .relevance import expected_names, graded_expected_contexts
from .response import Context

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

STALE_AFTER_DAYS = 30
MAX_PROBLEMS_SHOWN = 10
_EXCERPT = 60
_BOUNDED_REPR = reprlib.Repr()
_BOUNDED_REPR.maxlevel = 3
_BOUNDED_REPR.maxstring = _BOUNDED_REPR.maxother = _EXCERPT
_BOUNDED_REPR.maxlist = _BOUNDED_REPR.maxtuple = _BOUNDED_REPR.maxdict = 6
_TOO_DEEP = "nested too deeply to be a dataset"


class DatasetMetadata(BaseModel):
    """The ``metadata`` block of a JSON/YAML dataset. Extra keys are kept."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None
    created: dt.date | dt.datetime | None = None
    version: str | None = None
    description: str | None = None

    @field_validator("version", mode="before")
    @classmethod
    def _version_as_text(cls, value: object) -> object:
        return str(value) if isinstance(value, (int, float)) else value


class _Asked(BaseModel):
    """What one question of a case holds: a single case's, or one turn's of a conversation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    ground_truth: str | None = None
    """The reference answer; metrics that need one are not judged for a case without it."""
    expected_contexts: list[str] | None = None
    answer: str | None = None
    contexts: list[Context] | None = None
    _expected_grades: dict[str, int] | None = PrivateAttr(default=None)

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("ground_truth")
    @classmethod
    def _not_blank_when_given(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be empty (leave the field out when the case has none)")
        return value

    @field_validator("contexts", mode="before")
    @classmethod
    def _coerce_contexts(cls, value: object) -> object:
        if isinstance(value, list):
            return [Context(text=item) if isinstance(item, str) else item for item in value]
        return value

    @field_validator("expected_contexts", mode="before")
    @classmethod
    def _expected_names(cls, value: object) -> object:
        grades = graded_expected_contexts(value)
        return value if grades is None else expected_names(grades)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_grades(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        asked = handler(data)
        if isinstance(data, dict):  # valid by now: the field's own check has read it
            asked._expected_grades = graded_expected_contexts(data.get("expected_contexts"))
        return asked

    @property
    def expected_grades(self) -> dict[str, int] | None:
        """The grade of each ``expected_contexts`` document when the dataset grades them
        (``None`` for a plain list of names)."""
        return self._expected_grades


class Turn(_Asked):
    """One turn of a conversation: the user's question and what the case knows of its
    answer (a recorded ``answer`` and ``contexts`` are not asked of the RAG system)."""


TURN_FIELDS = frozenset(Turn.model_fields)
"""The fields a conversation's turns hold, which its case itself must not."""
_NO_OPENING = "(a conversation)"


def _refuse_question_fields(conversation: dict[str, Any]) -> None:
    """A conversation's case with a field of one question (its turns hold those)."""
    own = sorted(k for k in TURN_FIELDS if k in conversation)
    if "question" in own:
        raise ValueError(
            "has both 'question' and 'turns': give 'question' for one question, 'turns' "
            "for a conversation"
        )
    if own:
        raise ValueError(
            f"field {own[0]!r} belongs in each turn of a conversation, not in its case"
        )


def _opening(turns: object) -> Any:
    """The first turn's question, which titles the case; a missing one is its turn's error."""
    first = turns[0] if isinstance(turns, list) and turns else None
    opening = first.get("question") if isinstance(first, dict) else None
    usable = isinstance(opening, str) and opening.strip()
    return opening if usable else _NO_OPENING


class Case(_Asked):
    """One test case of a dataset (the PRD schema, plus optional pre-recorded outputs).

    A conversation has ``turns`` instead of a question: its ``question`` is then its first
    turn's (what the reports title it with), and the fields of each question (``ground_truth``,
    ``expected_contexts``, ``answer``, ``contexts``) are its turns'."""

    id: str | None = None
    turns: list[Turn] | None = None
    """A conversation's turns, in order; ``None`` for a single question."""
    critical: bool = Field(default=False, strict=True)  # "yes" or 1 is a mistake, not True
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    labels: dict[str, Literal["pass", "fail"]] | None = None
    """A person's verdict per metric (``{"faithfulness": "fail"}``), for ``rag-eval
    calibrate``; a run ignores it."""

    @model_validator(mode="before")
    @classmethod
    def _conversation(cls, data: Any) -> Any:
        """A conversation's case holds its turns and the fields of the whole conversation,
        nothing of one question: each mistake is one message naming the field."""
        if not isinstance(data, dict) or data.get("turns") is None:
            return data
        _refuse_question_fields(data)
        return {**data, "question": _opening(data["turns"])}

    @field_validator("turns")
    @classmethod
    def _has_turns(cls, value: list[Turn] | None) -> list[Turn] | None:
        if value is not None and not value:
            raise ValueError("a conversation has at least one turn (use 'question' for one)")
        return value

    @field_validator("id", mode="before")
    @classmethod
    def _id_is_text(cls, value: object) -> object:
        # An integer id is refused rather than turned into text: YAML reads `id: 007` as 7.
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise ValueError(f"must be text, found the number {value!r}; quote it")
        return value

    @field_validator("id")
    @classmethod
    def _id_is_usable(cls, value: str | None) -> str | None:
        if value is None:
            return None
        # One spelling per id: "é" typed as one character or as "e" and an accent is the same
        # id in the reports, so it must be the same id here.
        value = unicodedata.normalize("NFC", value.strip())
        if not value:
            raise ValueError("must not be empty")
        if any(ch in value for ch in "\n\r\t") or not value.isprintable():
            raise ValueError("must be printable text on one line")
        return value

    @property
    def is_conversation(self) -> bool:
        return self.turns is not None

    @property
    def has_recorded_answer(self) -> bool:
        """Whether the RAG system is not asked: the answer is recorded (each turn's, for a
        conversation)."""
        if self.turns is not None:
            return all(turn.answer is not None for turn in self.turns)
        return self.answer is not None

    def turn_case(self, number: int) -> Case:
        """Turn ``number`` (from 1) of a conversation as a case of its own: its question and
        recorded answer, the conversation's id (suffixed), criticality, tags and metadata."""
        assert self.turns is not None, "only a conversation has turns"
        turn = self.turns[number - 1]
        fields = {name: getattr(turn, name) for name in TURN_FIELDS}
        case = Case.model_construct(
            **fields,
            id=None if self.id is None else turn_key(self.id, number),
            turns=None,
            critical=self.critical,
            tags=list(self.tags),
            metadata=dict(self.metadata),
            labels=None,
        )
        case._expected_grades = turn.expected_grades
        return case


def turn_key(key: str, number: int) -> str:
    """The key of a conversation's turn ``number`` (from 1) in the memos and the reports."""
    return f"{key}/turn-{number}"


def pack(case: Case) -> bytes:
    """A case's compact form (about a fifth of the memory of its model): what a loaded case
    keeps until its test runs."""
    return pickle.dumps(case, protocol=pickle.HIGHEST_PROTOCOL)


class PackedCase(NamedTuple):
    """A validated case kept packed, with what a run reads of every case before its test."""

    packed: bytes
    id: str | None
    critical: bool
    tags: tuple[str, ...]
    turns: int
    """A conversation's number of turns; 0 for a single question."""

    @classmethod
    def of(cls, case: Case) -> PackedCase:
        turns = len(case.turns or ())
        return cls(pack(case), case.id, case.critical, tuple(case.tags), turns)


def unpack(packed: bytes) -> Case:
    """The case :func:`pack` made, as it was (its validation is not repeated)."""
    case: Case = pickle.loads(packed)  # made by pack() in this process
    return case


class _RecentModels:
    """The models of the last few cases read (:attr:`LoadedCase.case`), by their packed form:
    a test reads its case some 8 times, and makes its model once; memory stays at a few
    models, however many cases the run has."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._models: OrderedDict[bytes, Case] = OrderedDict()
        self._lock = threading.Lock()  # the engine's event loop reads cases too

    def model(self, packed: bytes) -> Case:
        with self._lock:
            case = self._models.get(packed)
            if case is not None:
                self._models.move_to_end(packed)
                return case
        case = unpack(packed)
        with self._lock:
            self._models[packed] = case
            while len(self._models) > self._size:
                self._models.popitem(last=False)
        return case


_RECENT = _RecentModels(8)


class LoadedCase:
    """A validated case with its run-wide identity.

    ``key`` is the case id, unique across all datasets of the run (qualified by the file stem
    when two files use the same id); ``index`` is its position across all datasets, the order
    reports are sorted by.

    The case is kept packed (:func:`pack`), and :attr:`case` makes its model when it is read
    (the last few cases' models are kept: a test that reads its case again gets the same one):
    a run of 50,000 cases keeps their compact forms, not 50,000 models.
    """

    __slots__ = (
        "_critical",
        "_packed",
        "_tags",
        "_turns",
        "case_id",
        "conversation",
        "dataset",
        "index",
        "key",
        "turn",
    )

    def __init__(
        self,
        key: str,
        index: int,
        case: Case | PackedCase,
        dataset: Path,
        turn: int = 0,
        conversation: str | None = None,
    ) -> None:
        packed = case if isinstance(case, PackedCase) else PackedCase.of(case)
        self.key = key
        self.index = index
        self.dataset = dataset
        self.turn = turn
        """For a conversation's turn, its number (from 1); 0 for a case."""
        self.conversation = conversation
        """For a conversation's turn, the conversation's key."""
        self._packed = packed.packed
        self._critical = packed.critical
        self._tags = packed.tags
        self.case_id = packed.id
        """The case's id (``None`` for a case made in code without one)."""
        self._turns: tuple[LoadedCase, ...] | None = None if packed.turns else ()

    def __repr__(self) -> str:
        return f"LoadedCase(key={self.key!r}, index={self.index}, dataset={self.dataset!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LoadedCase):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash((self.key, self.index, self.turn))

    def _identity(self) -> tuple[object, ...]:
        return (self.key, self.index, self.dataset, self.turn, self.conversation, self._packed)

    @property
    def case(self) -> Case:
        """The case's model, made from its packed form (kept for the next reads while it is
        one of the last few cases read)."""
        return _RECENT.model(self._packed)

    @property
    def tags(self) -> tuple[str, ...]:
        """The case's tags (read without making its model)."""
        return self._tags

    @property
    def owner(self) -> str:
        """The key of the case whose memos hold this one's (a turn's: its conversation)."""
        return self.conversation or self.key

    @property
    def critical(self) -> bool:
        return self._critical

    @property
    def turns(self) -> tuple[LoadedCase, ...]:
        """A conversation's turns, each a case of its own keyed ``<key>/turn-N``; none for a
        single question. Made once, when first read."""
        if self._turns is None:
            self._turns = self._made_turns()
        return self._turns

    def _made_turns(self) -> tuple[LoadedCase, ...]:
        case = self.case
        return tuple(
            LoadedCase(
                key=turn_key(self.key, n),
                index=self.index,
                case=case.turn_case(n),
                dataset=self.dataset,
                turn=n,
                conversation=self.key,
            )
            for n in range(1, len(case.turns or ()) + 1)
        )


class PackedCases(Sequence[Case]):
    """A file's cases, each kept packed (:func:`pack`) and made into its model when read."""

    __slots__ = ("_packed",)

    def __init__(self, packed: Iterable[PackedCase]) -> None:
        self._packed = list(packed)

    def __len__(self) -> int:
        return len(self._packed)

    @overload
    def __getitem__(self, index: int) -> Case: ...
    @overload
    def __getitem__(self, index: slice) -> list[Case]: ...
    def __getitem__(self, index: int | slice) -> Case | list[Case]:
        if isinstance(index, slice):
            return [unpack(p.packed) for p in self._packed[index]]
        return unpack(self._packed[index].packed)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PackedCases({len(self)} cases)"

    @property
    def packed(self) -> list[PackedCase]:
        return self._packed


@dataclass
class Dataset:
    path: Path
    metadata: DatasetMetadata
    cases: Sequence[Case]
    warnings: list[str] = field(default_factory=list)
    sha256: str | None = None
    """The hash of the file's text as it was read, which the run's selection records."""


@dataclass
class DatasetCollection:
    """All datasets of a run, the selected cases in dataset order, and their warnings."""

    datasets: list[Dataset]
    cases: list[LoadedCase]
    warnings: list[str]
    total_cases: int

    _index: tuple[list[LoadedCase], int, dict[str, LoadedCase]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def by_key(self) -> Mapping[str, LoadedCase]:
        """The selected cases by key, built once (every test looks its case up here; a
        search through the list would make a run quadratic in the number of cases)."""
        index = self._index
        if index is None or index[0] is not self.cases or index[1] != len(self.cases):
            index = self._index = (self.cases, len(self.cases), {c.key: c for c in self.cases})
        return MappingProxyType(index[2])


# --------------------------------------------------------------------------- reading files


def _read_text(path: Path) -> str:
    try:
        data = read_limited(path)
    except FileTooLarge as exc:
        raise DatasetError(
            f"Dataset {path}: {exc}; split it into several files, each given to --rag-dataset"
        ) from None
    except FileNotFoundError:
        raise DatasetError(f"Dataset {path}: file not found") from None
    except IsADirectoryError:
        raise DatasetError(f"Dataset {path}: is a directory, not a file") from None
    except OSError as exc:
        raise DatasetError(f"Dataset {path}: cannot be read ({exc.strerror})") from None
    return _decoded(path, data)


def _decoded(path: Path, data: bytes) -> str:
    """The file's text: UTF-8 (with or without a byte order mark), not empty."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(
            f"Dataset {path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); save the file as UTF-8"
        ) from None
    if not text.strip():
        raise DatasetError(f"Dataset {path}: the file is empty")
    return text


def _parse_json(path: Path, text: str) -> object:
    try:
        document, problem = bigints.load_json(text)
    except DuplicateKeyError as exc:
        raise DatasetError(f"Dataset {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(
            f"Dataset {path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise DatasetError(f"Dataset {path}: {_TOO_DEEP}") from None
    return _refuse_huge_integers(path, document, problem)


def _refuse_huge_integers(path: Path, document: object, problem: str | None) -> object:
    """An integer too long to read is refused by field (Python would raise deep in the
    parser, with no file or field)."""
    if problem is not None:
        raise DatasetError(f"Dataset {path}: {problem}")
    return document


def _parse_yaml(path: Path, text: str) -> object:
    try:
        document, problem = bigints.read_yaml(text, "a dataset")
    except bigints.Unreadable as exc:
        raise DatasetError(f"Dataset {path}: {exc}") from None
    return _refuse_huge_integers(path, document, problem)


def _parse_jsonl(path: Path, text: str) -> list[tuple[str, object]]:
    rows: list[tuple[str, object]] = []
    # Lines end at "\n" only: str.splitlines() would also split at U+2028 and the other
    # separators that a JSON string may hold unescaped.
    for lineno, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            rows.append((f"line {lineno}", _jsonl_row(path, lineno, line)))
    if not rows:
        raise DatasetError(f"Dataset {path}: the file has no cases")
    return rows


def _jsonl_row(path: Path, lineno: int, line: str) -> object:
    try:
        row, problem = bigints.load_json(line, line=lineno)
    except DuplicateKeyError as exc:
        raise DatasetError(f"Dataset {path}: line {lineno}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(
            f"Dataset {path}: line {lineno} is not valid JSON (column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise DatasetError(f"Dataset {path}: line {lineno} is {_TOO_DEEP}") from None
    return _refuse_huge_integers(path, row, problem)


def _split_document(path: Path, document: object) -> tuple[object, list[tuple[str, object]]]:
    """Return (metadata, [(where, raw case)]) from a parsed JSON/YAML document."""
    if isinstance(document, list):
        if not document:  # as empty as {"test_cases": []}: a run of it would decide nothing
            raise DatasetError(f"Dataset {path}: the list of cases is empty")
        return None, _numbered(document)
    if not isinstance(document, dict):
        raise DatasetError(
            f"Dataset {path}: expected an object with 'test_cases' (or a list of cases), "
            f"found {type(document).__name__}"
        )
    return document.get("metadata"), _numbered(_test_cases(path, document))


def _test_cases(path: Path, document: dict[str, Any]) -> list[object]:
    """The document's list of cases; any other top-level key is a mistake."""
    unknown = sorted(set(document) - {"metadata", "test_cases"})
    if unknown:
        raise DatasetError(
            f"Dataset {path}: unknown top-level key {unknown[0]!r} "
            "(expected 'metadata' and 'test_cases')"
        )
    if "test_cases" not in document:
        raise DatasetError(f"Dataset {path}: field 'test_cases' is required")
    raw_cases = document["test_cases"]
    if not isinstance(raw_cases, list):
        raise DatasetError(
            f"Dataset {path}: field 'test_cases' must be a list, found {type(raw_cases).__name__}"
        )
    if not raw_cases:
        raise DatasetError(f"Dataset {path}: field 'test_cases' has no cases")
    return raw_cases


def _numbered(raw_cases: list[object]) -> list[tuple[str, object]]:
    return [(f"test_cases[{i}]", raw) for i, raw in enumerate(raw_cases)]


# --------------------------------------------------------------------------- validation


def _case_label(raw: object, where: str) -> str:
    if isinstance(raw, dict) and isinstance(raw.get("id"), (str, int)) and str(raw["id"]).strip():
        return f"case {str(raw['id']).strip()!r} ({where})"
    return f"case at {where}"


def _field_path(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _excerpt(value: object) -> str:
    # Bounded: a YAML alias bomb is a few lines of text but billions of items once expanded,
    # and a plain repr() of it would take minutes and gigabytes before being cut.
    text = repr(value[:_EXCERPT]) if isinstance(value, str) else _BOUNDED_REPR.repr(value)
    return cut(text, _EXCERPT)


def _describe(error: Any) -> str:
    loc = _field_path(error["loc"])
    msg = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "missing":
        return f"field {loc!r} is required"
    if error["type"] == "extra_forbidden":
        return _unknown_field(loc, error["loc"])
    where = f"field {loc!r}" if loc else "the case"
    got = f" (got {_excerpt(error['input'])})" if error["type"].endswith("_type") else ""
    return f"{where}: {msg}{got}"


def _unknown_field(loc: str, parts: Sequence[int | str]) -> str:
    model: type[BaseModel] = Context if "contexts" in parts else Turn if "turns" in parts else Case
    # A close spelling only: "score" is not a misspelt "source".
    close = difflib.get_close_matches(str(parts[-1]), model.model_fields, 1, 0.8)
    if close:
        return f"unknown field {loc!r} (did you mean {close[0]!r}?)"
    return f"unknown field {loc!r} (allowed: {', '.join(model.model_fields)})"


def describe_problems(error: ValidationError) -> list[str]:
    """Each problem of a case that is not valid, naming its field (``field 'question': must
    not be empty``), as dataset errors name them."""
    return [_describe(err) for err in error.errors()]


def _refuse_foreign_fields(path: Path, rows: list[tuple[str, object]]) -> None:
    """A file in DeepEval's or RAGAS's own format is one error naming the converter, not an
    "unknown field" per field and case."""
    keys = _foreign_keys(rows)
    fmt = foreign_format(keys) if keys else None
    if fmt is not None:
        theirs = ", ".join(repr(k) for k in sorted(keys))
        raise DatasetError(
            f"Dataset {path}: the cases use {NAMES[fmt]}'s field names ({theirs}), not this "
            f"plugin's; convert the file with: {converter_command(fmt, path)}"
        )


def _foreign_keys(rows: list[tuple[str, object]]) -> set[str]:
    """The fields of the cases that a case of ours does not have."""
    return {
        k for _, raw in rows if isinstance(raw, dict) for k in raw if k not in Case.model_fields
    }


class _Checked(NamedTuple):
    """A valid case, packed, with what its file's checks read of it."""

    case: PackedCase
    text: str
    """What its id is made of when it has none (:func:`case_text`); empty when it has one."""
    expected: bool
    """Whether it (or one of its turns) names the contexts it expects."""


def _checked(case: Case) -> _Checked:
    text = "" if case.id is not None else case_text(case)
    expected = any(a.expected_contexts is not None for a in _asked(case))
    return _Checked(PackedCase.of(case), text, expected)


def _validate_cases(path: Path, rows: list[tuple[str, object]]) -> list[_Checked]:
    """The file's cases, each packed once valid; each row is let go of once read (``rows``
    is emptied), so a large file's parsed rows and models never all live at once."""
    _refuse_foreign_fields(path, rows)
    cases: list[_Checked] = []
    problems: list[str] = []
    first_use: dict[str, str] = {}
    for n, (where, raw) in enumerate(rows):
        rows[n] = (where, None)
        case = _validated(where, raw, problems)
        if case is not None:
            cases.append(_checked(case))
            _refuse_duplicate_id(case, where, first_use, problems)
    rows.clear()
    if problems:
        raise _invalid(path, problems)
    return cases


def _validated(where: str, raw: object, problems: list[str]) -> Case | None:
    """The case at ``where``, or ``None`` with its problems, each naming its field."""
    if not isinstance(raw, dict):
        problems.append(
            f"{_case_label(raw, where)}: expected an object, found {type(raw).__name__}"
        )
        return None
    try:
        return Case.model_validate(raw)
    except ValidationError as exc:
        label = _case_label(raw, where)
        problems.extend(f"{label}: {_describe(err)}" for err in exc.errors())
        return None


def _refuse_duplicate_id(
    case: Case, where: str, first_use: dict[str, str], problems: list[str]
) -> None:
    if case.id is None:  # normalised: ids that differ only in Unicode form are equal
        return
    if case.id in first_use:
        problems.append(
            f"case {case.id!r} ({where}): duplicate id (also used at {first_use[case.id]})"
        )
    else:
        first_use[case.id] = where


def _invalid(path: Path, problems: list[str]) -> DatasetError:
    """One error for a file's problems: the first :data:`MAX_PROBLEMS_SHOWN` of them, and how
    many more there are."""
    shown = problems[:MAX_PROBLEMS_SHOWN]
    more = len(problems) - len(shown)
    lines = "\n".join(f"  {p}" for p in shown)
    tail = f"\n  … and {more} more" if more else ""
    count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
    return DatasetError(f"Invalid dataset {path} ({count}):\n{lines}{tail}")


def case_text(case: Case) -> str:
    """What a case's id without one is made of: its question, or its turns' questions."""
    if case.turns is not None:
        return "\n".join(turn.question for turn in case.turns)
    return case.question


def auto_id(question: str) -> str:
    """Stable id for a case without one: the same question gives the same id in every run."""
    digest = hashlib.sha256(question.strip().encode("utf-8")).hexdigest()[:8]
    return f"case-{digest}"


def _assign_ids(cases: list[_Checked]) -> list[_Checked]:
    taken = {c.case.id for c in cases if c.case.id is not None}
    out: list[_Checked] = []
    for checked in cases:
        if checked.case.id is None:
            base = auto_id(checked.text)
            candidate, n = base, 2
            while candidate in taken:
                candidate, n = f"{base}-{n}", n + 1
            taken.add(candidate)
            case = unpack(checked.case.packed).model_copy(update={"id": candidate})
            checked = checked._replace(case=PackedCase.of(case))
        out.append(checked)
    return out


def _asked(case: Case) -> Sequence[_Asked]:
    """What a case asks: itself, or a conversation's turns."""
    return case.turns if case.turns is not None else [case]


def _optional_field_warnings(path: Path, cases: list[_Checked]) -> list[str]:
    without = [c.case.id or "?" for c in cases if not c.expected]
    if not without:
        return []
    return [
        f"{path}: {len(without)} of {len(cases)} cases have no 'expected_contexts' "
        f"(retrieval metrics are not judged for them): {_first_five(without)}"
    ]


def _first_five(keys: list[str]) -> str:
    return ", ".join(keys[:5]) + (", …" if len(keys) > 5 else "")


def missing_ground_truth_notice(cases: Sequence[LoadedCase], metrics: Sequence[str]) -> str | None:
    """One line for the whole run naming the selected cases without a ``ground_truth`` and
    the ``metrics`` (those that need one) left not judged on them; ``None`` when every case
    has one. Issued once, by the process that reports, not once per case or per worker."""
    without = [c.key for c in cases if all(a.ground_truth is None for a in _asked(c.case))]
    if not without or not metrics:
        return None
    return (
        f"{len(without)} of {len(cases)} cases have no 'ground_truth'; the metrics that need "
        f"one ({', '.join(metrics)}) are not judged for them: {_first_five(without)}"
    )


def _staleness_warning(path: Path, metadata: DatasetMetadata, now: dt.datetime) -> str | None:
    created = metadata.created
    if created is not None:
        created_dt = (
            created
            if isinstance(created, dt.datetime)
            else dt.datetime.combine(created, dt.time(), tzinfo=dt.timezone.utc)
        )
        if created_dt.tzinfo is None:
            created_dt = created_dt.replace(tzinfo=dt.timezone.utc)
        origin = f"metadata.created {created.isoformat()}"
    else:
        created_dt = dt.datetime.fromtimestamp(path.stat().st_mtime, tz=dt.timezone.utc)
        origin = f"last modified {created_dt.date().isoformat()}"
    age = (now - created_dt).days
    if age > STALE_AFTER_DAYS:
        return (
            f"{path}: dataset is {age} days old ({origin}); answers may have drifted from "
            f"the ground truth, review it (warning after {STALE_AFTER_DAYS} days)"
        )
    return None


def load_dataset(path: Path, *, now: dt.datetime | None = None) -> Dataset:
    """Read and validate one dataset file. Raises :class:`DatasetError`."""
    now = now or dt.datetime.now(dt.timezone.utc)
    text = _read_text(path)
    sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    metadata_raw, rows = _rows(path, text)
    del text  # the rows hold what it says
    metadata = _metadata(path, metadata_raw)
    cases = _assign_ids(_validate_cases(path, rows))
    warnings = _optional_field_warnings(path, cases)
    stale = _staleness_warning(path, metadata, now)
    if stale:
        warnings.append(stale)
    return Dataset(
        path=path,
        metadata=metadata,
        cases=PackedCases(c.case for c in cases),
        warnings=warnings,
        sha256=sha256,
    )


def _rows(path: Path, text: str) -> tuple[object, list[tuple[str, object]]]:
    """The file's metadata (``None`` when it has none) and its cases, each with where it is,
    read as the file's type says."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return None, _parse_jsonl(path, text)
    if suffix in (".yaml", ".yml"):
        return _split_document(path, _parse_yaml(path, text))
    if suffix == ".json":
        return _split_document(path, _parse_json(path, text))
    raise DatasetError(
        f"Dataset {path}: unknown file type {suffix or '(none)'!r} "
        "(use .json, .jsonl, .yaml or .yml)"
    )


def _metadata(path: Path, raw: object) -> DatasetMetadata:
    if raw is not None and not isinstance(raw, dict):
        raise DatasetError(
            f"Dataset {path}: field 'metadata' must be an object, found {type(raw).__name__}"
        )
    try:
        return DatasetMetadata.model_validate(raw or {})
    except ValidationError as exc:
        err = exc.errors()[0]
        raise DatasetError(
            f"Dataset {path}: field 'metadata.{_field_path(err['loc'])}': {err['msg']}"
        ) from None


def select_by_tags(cases: Iterable[LoadedCase], tags: Sequence[str]) -> list[LoadedCase]:
    """Cases carrying at least one of ``tags`` (all cases when ``tags`` is empty)."""
    wanted = set(tags)
    if not wanted:
        return list(cases)
    return [c for c in cases if wanted.intersection(c.tags)]


_UNSAFE_STEM = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class _KeyHolder:
    """What holds a key of the run: a case, or a conversation's turn (``turn`` > 0)."""

    item: LoadedCase
    case_id: str
    turn: int = 0

    def __str__(self) -> str:
        if self.turn:
            return f"turn {self.turn} of the conversation {self.case_id!r}"
        return f"case {self.case_id!r}"


def _key_holders(loaded: Sequence[LoadedCase]) -> Iterable[_KeyHolder]:
    for item in loaded:
        case_id = item.case_id or item.key
        yield _KeyHolder(item, case_id)
        for turn in item.turns:
            yield _KeyHolder(turn, case_id, turn.turn)


def _clash_message(first: _KeyHolder, second: _KeyHolder) -> str:
    key, here, there = second.item.key, first.item.dataset, second.item.dataset
    if _one_id_in_two_files(first, second):
        return (
            f"Datasets {here} and {there} both have a case {first.case_id!r}, and their file "
            f"names qualify it the same way ({key!r}); rename one of the files or one of the "
            "cases"
        )
    apart = here != there
    where = f"Invalid datasets {here}, {there}" if apart else f"Invalid dataset {here}"
    first_at, second_at = (f" ({here})", f" ({there})") if apart else ("", "")
    return (
        f"{where}: {first}{first_at} and {second}{second_at} have the same key {key!r}; "
        "keys are unique across cases and turns (turn N of a conversation is "
        "'<id>/turn-N'): rename one of them"
    )


def _one_id_in_two_files(first: _KeyHolder, second: _KeyHolder) -> bool:
    """Two cases (no turns) of one id in two files whose names qualify it alike."""
    return (
        first.item.dataset != second.item.dataset
        and not first.turn
        and not second.turn
        and first.case_id == second.case_id
    )


def _refuse_clashing_keys(loaded: Sequence[LoadedCase]) -> None:
    """Every key of the run, a case's or a conversation's turn's, names one thing: two
    holders of one key would share their memos and their rows in the reports."""
    holders: dict[str, _KeyHolder] = {}
    for holder in _key_holders(loaded):
        first = holders.setdefault(holder.item.key, holder)
        if first is not holder:
            raise DatasetError(_clash_message(first, holder))


# The cycle collector paused while the datasets are read: the objects of the cases live until
# the end of the run, and the collections that their number triggered found nothing to free
# (a third of the time of reading 50,000 cases).
@paused_collection()
def load_datasets(
    paths: Sequence[Path], *, tags: Sequence[str] = (), now: dt.datetime | None = None
) -> DatasetCollection:
    """Load every dataset of the run. Case keys are the case ids; an id used by two files is
    qualified with the file stem (``stem/id``) in both, so keys stay unique and stable."""
    datasets = [load_dataset(path, now=now) for path in _distinct(paths)]
    loaded = _keyed(datasets)
    _refuse_clashing_keys(loaded)
    selected = select_by_tags(loaded, tags)
    if tags and not selected:  # a run that checks nothing must not pass
        raise _no_case_tagged(tags, loaded)
    warnings = [w for ds in datasets for w in ds.warnings]
    return DatasetCollection(
        datasets=datasets, cases=selected, warnings=warnings, total_cases=len(loaded)
    )


def _distinct(paths: Sequence[Path]) -> list[Path]:
    """The paths, each file once (the first of its spellings)."""
    seen: set[Path] = set()
    distinct: list[Path] = []
    for path in paths:
        resolved = path.resolve()
        if resolved not in seen:
            seen.add(resolved)
            distinct.append(path)
    return distinct


def _keyed(datasets: list[Dataset]) -> list[LoadedCase]:
    """Every case of the datasets with its key and index; an id two files use is qualified
    with its file's stem."""
    owners = _owners(datasets)
    loaded: list[LoadedCase] = []
    for ds in datasets:
        stem = _UNSAFE_STEM.sub("_", ds.path.stem)
        for case in _packed(ds):
            assert case.id is not None
            key = case.id if owners[case.id] == 1 else f"{stem}/{case.id}"
            loaded.append(LoadedCase(key=key, index=len(loaded), case=case, dataset=ds.path))
    return loaded


def _owners(datasets: list[Dataset]) -> Counter[str | None]:
    """How many cases of the datasets use each id."""
    return Counter(case.id for ds in datasets for case in _packed(ds))


def _packed(dataset: Dataset) -> Sequence[PackedCase]:
    cases = dataset.cases
    return cases.packed if isinstance(cases, PackedCases) else [PackedCase.of(c) for c in cases]


def _no_case_tagged(tags: Sequence[str], loaded: list[LoadedCase]) -> DatasetError:
    known = sorted({t for c in loaded for t in c.tags})
    return DatasetError(
        f"no case has any of the tags {', '.join(tags)} selected: no case would run; "
        + (f"the tags in the dataset are {', '.join(known)}" if known else "no case has tags")
    )
