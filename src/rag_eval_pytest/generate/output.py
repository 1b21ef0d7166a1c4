"""Generated cases written as a dataset the plugin runs as it is.

Each case gets a unique id (``gen-`` and a digest of its question: the same question, the
same id), ``expected_contexts`` naming its chunks as the user's RAG system names them, a tag
for its kind and ``metadata`` saying which generator made it and from which chunks. The
dataset's ``metadata.generated`` records each generation: the generator, the judge and its
identity, the seed, the documents' digest and the date. ``--append`` adds to an existing
dataset, keeping its cases as they are, without repeating an id or a question. Every case is
checked with the dataset's own model before anything is written.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..data.writing import dataset_text
from ..errors import DatasetError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from .cases import Generated, Turn
    from .chunking import SourceFormat

GENERATOR = "rag-eval generate"


@dataclass(frozen=True)
class Provenance:
    """What made a generated set: recorded in the dataset's metadata."""

    generator: str
    """``extractive`` (offline, rules) or ``llm`` (questions written by a judge)."""
    judge: str
    judge_identity: str | None
    seed: int
    documents: int
    documents_digest: str
    date: str
    source_format: str
    types: list[str]
    version: str


def today() -> str:
    """The date of a generation: today, or ``SOURCE_DATE_EPOCH``'s (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc).date().isoformat()
    return dt.date.today().isoformat()


@dataclass
class Existing:
    """A dataset appended to: its document as read, and its cases' ids and questions."""

    document: dict[str, Any]
    ids: set[str]
    questions: list[str]


def read_existing(path: Path) -> Existing:
    """The dataset at ``path``, checked as a run loads it (one :class:`DatasetError`
    naming the file, the case and the field), and its raw document to append to."""
    from ..data.dataset import load_dataset

    dataset = load_dataset(path)
    document = _document(path)
    document.setdefault("metadata", {})
    ids = {case.id for case in dataset.cases if case.id}
    questions = [q.question for case in dataset.cases for q in _questions(case)]
    return Existing(document, ids, questions)


def _document(path: Path) -> dict[str, Any]:
    """The dataset file's document, its cases under ``test_cases`` (a list of cases, a
    JSONL file's lines, is put there)."""
    raw = _parsed(path.suffix.lower(), path.read_text(encoding="utf-8-sig"))
    return raw if isinstance(raw, dict) else {"test_cases": raw}


def _parsed(suffix: str, text: str) -> Any:
    if suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if suffix in (".yaml", ".yml"):
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


def _questions(case: Any) -> list[Any]:
    return list(case.turns) if case.turns is not None else [case]


def _sources(chunks: Sequence[Any], form: SourceFormat) -> list[str]:
    return list(dict.fromkeys(chunk.source(form) for chunk in chunks))


def case_id(question: str, taken: set[str]) -> str:
    """``gen-`` and the question's digest; ``-2``, ``-3``... where that is taken."""
    base = "gen-" + hashlib.sha256(question.strip().encode("utf-8")).hexdigest()[:8]
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    taken.add(candidate)
    return candidate


def case_entry(
    generated: Generated, form: SourceFormat, taken: set[str], provenance: Provenance
) -> dict[str, Any]:
    """One generated case as a dataset writes it."""
    text = "\n".join(t.question for t in generated.turns) or generated.question
    entry: dict[str, Any] = {"id": case_id(text, taken), **_asked(generated, form)}
    entry["tags"] = generated.tags
    entry["metadata"] = _case_metadata(generated, provenance)
    return entry


def _asked(generated: Generated, form: SourceFormat) -> dict[str, Any]:
    """A conversation's turns, or a case's question, its ground truth and the chunks that
    hold it."""
    if generated.turns:
        return {"turns": [_turn(turn, form) for turn in generated.turns]}
    asked: dict[str, Any] = {
        "question": generated.question,
        "ground_truth": generated.ground_truth,
    }
    if generated.ground_truth is not None:
        asked["expected_contexts"] = _sources(generated.chunks, form)
    return asked


def _case_metadata(generated: Generated, provenance: Provenance) -> dict[str, Any]:
    """Which generator made the case (and by which rule), from which chunks."""
    meta: dict[str, Any] = {"generator": f"{GENERATOR} ({provenance.generator})"}
    if generated.rule:
        meta["rule"] = generated.rule
    meta["chunks"] = [chunk.id for chunk in generated.chunks]
    return meta


def _turn(turn: Turn, form: SourceFormat) -> dict[str, Any]:
    return {
        "question": turn.question,
        "ground_truth": turn.ground_truth,
        "expected_contexts": _sources(turn.chunks, form),
    }


def dataset_document(
    cases: Sequence[Generated],
    form: SourceFormat,
    provenance: Provenance,
    existing: Existing | None = None,
) -> dict[str, Any]:
    """The dataset to write: the new cases (after an existing dataset's, when appending),
    every case checked with the dataset's model."""
    taken = set(existing.ids) if existing is not None else set()
    entries = [case_entry(case, form, taken, provenance) for case in cases]
    _check(entries)
    record = asdict(provenance)
    if existing is None:
        metadata: dict[str, Any] = {
            "name": "generated test set",
            "created": provenance.date,
            "description": (
                f"{len(entries)} cases generated by {GENERATOR} from "
                f"{provenance.documents} documents; review them before committing"
            ),
            "generated": [record],
        }
        return {"metadata": metadata, "test_cases": entries}
    document = dict(existing.document)
    metadata = dict(document.get("metadata") or {})
    earlier = metadata.get("generated")
    metadata["generated"] = [*(earlier if isinstance(earlier, list) else []), record]
    document["metadata"] = metadata
    document["test_cases"] = [*document.get("test_cases", []), *entries]
    return document


def _check(entries: list[dict[str, Any]]) -> None:
    """Every entry is a valid case (a bug otherwise: said as such, not written)."""
    from pydantic import ValidationError

    from ..data.dataset import Case, describe_problems

    for entry in entries:
        try:
            Case.model_validate(entry)
        except ValidationError as exc:
            raise DatasetError(
                f"generated case {entry['id']} is not a valid case ({describe_problems(exc)[0]})"
            ) from None


def write_dataset(path: Path, document: dict[str, Any]) -> None:
    """Write the dataset at ``path`` (JSON, JSONL or YAML by its suffix) atomically."""
    from ..atomic import write_atomic

    write_atomic(path, dataset_text(document, path.suffix.lower()), shared=True)
