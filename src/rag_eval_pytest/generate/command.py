"""``rag-eval generate``: documents in, a dataset out; one message and exit 3 for bad input.

The order keeps every check ahead of any work that costs: the documents are found and the
output checked (never one of the inputs; an existing one only with ``--force`` or
``--append``), the judge's settings resolved as a run resolves them (config file, then
``--judge``), every document read and chunked, the plan made and, with ``--dry-run``,
printed; only then are questions generated (by rule offline, by the judge otherwise) and the
dataset written, atomically. Nothing is written when anything fails.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import ConfigError, RagEvalError
from .cases import LLM_KINDS
from .request import OFFLINE, OFFLINE_JUDGE, Inputs, Request

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..config.resolution import ResolvedConfig
    from ..config.settings import Settings
    from .cases import Generated
    from .chunking import Chunk
    from .documents import Document
    from .output import Existing, Provenance

FATAL = 3
SAMPLES = 3
"""Generated questions shown after the summary line, with the chunks they came from."""


def run(request: Request, env: Mapping[str, str] | None = None, out: TextIO | None = None) -> int:
    """The command: 0 when the dataset is written (or the dry run printed), 3 otherwise."""
    env = dict(os.environ) if env is None else env
    out = out or sys.stdout
    try:
        inputs = gather(request, env)
        if request.dry_run:
            return dry_run(request, inputs, env, out)
        cases, provenance = generate(request, inputs, env)
        written = _write(request, inputs, cases, provenance)
    except RagEvalError as exc:
        print(f"rag-eval generate: {exc}", file=sys.stderr)
        return FATAL
    _report(request, inputs, cases, written, out)
    return 0


def gather(request: Request, env: Mapping[str, str]) -> Inputs:
    """Every input checked and read, in the order that costs least to refuse."""
    from .documents import find_files

    _check_request(request)
    files = find_files(request.documents)
    resolved = _settings(request, env)
    settings = resolved.settings
    _refuse_output(request, [path for _, path in files], resolved.file.path)
    kind = _kind(settings, env)
    types = _types(request, kind)
    documents, chunks = _read(files)
    existing = _existing(request)
    return Inputs(settings, kind, documents, chunks, types, existing, resolved.secrets)


def _read(files: list[tuple[str, Path]]) -> tuple[list[Document], list[Chunk]]:
    """Every document read and chunked, the extra that reads PDFs checked first."""
    from ..extras import require_pdf
    from .chunking import chunk_documents
    from .documents import read_document

    require_pdf([name for name, path in files if path.suffix.lower() == ".pdf"])
    documents = [read_document(name, path) for name, path in files]
    chunks = chunk_documents(documents)
    if not chunks:
        raise RagEvalError("the documents hold no text to make questions from")
    return documents, chunks


def _existing(request: Request) -> Existing | None:
    """The dataset appended to, when there is one."""
    if not (request.append and request.output.exists()):
        return None
    from .output import read_existing

    return read_existing(request.output)


def _check_request(request: Request) -> None:
    from ..data.writing import SUFFIXES, unknown_suffix

    if request.output.suffix.lower() not in SUFFIXES:
        raise ConfigError(f"{request.output}: {unknown_suffix(request.output.suffix)}")
    _check_counts(request)
    if request.max_cost is not None and request.max_cost < 0:
        raise ConfigError("--max-cost: must not be negative")


def _check_counts(request: Request) -> None:
    if request.count < 0 or request.conversations < 0:
        which = "--count" if request.count < 0 else "--conversations"
        raise ConfigError(f"{which}: must not be negative")
    if request.count < 1 and request.conversations < 1:
        raise ConfigError("--count: give at least 1 case (or --conversations K)")


def _settings(request: Request, env: Mapping[str, str]) -> ResolvedConfig:
    """The run's settings (config file, then ``--judge``), as ``rag-eval calibrate``
    reads them."""
    from ..config.files import find_config_file
    from ..config.resolution import Override, resolve_settings

    here = Path.cwd()
    file = find_config_file(here, request.config, here)
    overrides = [] if request.judge is None else [Override("judge.kind", request.judge, "--judge")]
    return resolve_settings(file, overrides, env)


def _refuse_output(request: Request, files: list[Path], config: Path | None) -> None:
    from ..atomic import output_refusal

    inputs = [*files, *([config] if config is not None else [])]
    refusal = output_refusal(
        request.output, inputs, force=request.force or request.append, role="--output"
    )
    if refusal is not None:
        raise RagEvalError(refusal)


def _kind(settings: Settings, env: Mapping[str, str]) -> str:
    from ..judges.factory import resolve_kind

    return resolve_kind(settings.judge, env)


def _types(request: Request, kind: str) -> list[str]:
    """The kinds of question asked for, checked against the judge."""
    if kind == "local":
        return _offline_types(request)
    wanted = list(request.types or LLM_KINDS)
    unknown = [t for t in wanted if t not in LLM_KINDS]
    if unknown:
        raise ConfigError(
            f"--types: unknown kind {unknown[0]!r}: choose from {', '.join(LLM_KINDS)}"
        )
    return list(dict.fromkeys(wanted))


def _offline_types(request: Request) -> list[str]:
    """Extractive questions, the only kind the offline generator writes."""
    wanted = list(request.types or [OFFLINE])
    if wanted != [OFFLINE] or request.conversations:
        raise _needs_llm(wanted)
    return wanted


def _needs_llm(wanted: list[str]) -> ConfigError:
    asked = ", ".join(t for t in wanted if t != OFFLINE) or "--conversations"
    return ConfigError(
        f"the offline generator (--judge local) writes extractive questions only; "
        f"{asked} needs an LLM judge (--judge anthropic, openai, cascade or "
        "module:attribute)"
    )


def generate(
    request: Request, inputs: Inputs, env: Mapping[str, str]
) -> tuple[list[Generated], Provenance]:
    """The cases, and what made them."""
    from .dedup import Deduplicator

    existing = inputs.existing.questions if inputs.existing is not None else []
    if inputs.offline:
        from .extractive import generate_extractive

        cases = generate_extractive(
            inputs.chunks, request.count, request.seed, Deduplicator(existing)
        )
        return cases, _provenance(request, inputs, "extractive", OFFLINE_JUDGE, None)
    from .llm import generate_with_judge
    from .plan import check_cost, plan

    check_cost(request, plan(request, inputs, env))
    generation = generate_with_judge(request, inputs, env)
    inputs.notes.extend(generation.notes)
    provenance = _provenance(request, inputs, "llm", generation.judge, generation.identity)
    return generation.cases, provenance


def _provenance(
    request: Request, inputs: Inputs, generator: str, judge: str, identity: str | None
) -> Provenance:
    from ..release import package_version
    from .documents import digest
    from .output import Provenance, today

    return Provenance(
        generator=generator,
        judge=judge,
        judge_identity=identity,
        seed=request.seed,
        documents=len(inputs.documents),
        documents_digest=digest(inputs.documents),
        date=today(),
        source_format=request.source_format,
        types=[*inputs.types, *(["conversation"] if request.conversations else [])],
        version=package_version(),
    )


def _write(request: Request, inputs: Inputs, cases: list[Generated], provenance: Provenance) -> int:
    from .output import dataset_document, write_dataset

    if not cases:
        why = (
            "no informative sentence found"
            if inputs.offline
            else "the judge's checks dropped every case written, or none could be written"
        )
        raise RagEvalError(f"no case could be made from the documents ({why}); nothing written")
    document = dataset_document(cases, request.source_format, provenance, inputs.existing)
    try:
        write_dataset(request.output, document)
    except OSError as exc:
        raise RagEvalError(f"{request.output}: cannot be written ({exc.strerror})") from None
    return len(cases)


def _report(
    request: Request, inputs: Inputs, cases: list[Generated], written: int, out: TextIO
) -> None:
    verb = "appended" if inputs.existing is not None else "wrote"
    print(
        f"{verb} {written} cases ({_spread(cases)}) from {len(inputs.documents)} documents "
        f"({len(inputs.chunks)} chunks) to {request.output}",
        file=out,
    )
    _print_samples(cases, out)
    asked = request.count + request.conversations
    if written < asked:
        print(f"note: {asked} cases asked for, {written} made", file=out)
    for note in dict.fromkeys(inputs.notes):
        print(f"note: {note}", file=out)
    print("review the cases before committing them (docs/generate.md)", file=out)


def _spread(cases: list[Generated]) -> str:
    """How many cases of each kind (their tags), in the order first made."""
    kinds: dict[str, int] = {}
    for case in cases:
        for tag in case.tags:
            kinds[tag] = kinds.get(tag, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in kinds.items())


def _print_samples(cases: list[Generated], out: TextIO) -> None:
    """The first few questions, each with the chunks it came from."""
    for case in cases[:SAMPLES]:
        print(f"  {case.question}  ({', '.join(c.id for c in case.chunks)})", file=out)
    if len(cases) > SAMPLES:
        print(f"  … and {len(cases) - SAMPLES} more", file=out)


def dry_run(request: Request, inputs: Inputs, env: Mapping[str, str], out: TextIO) -> int:
    """The plan: documents, chunks, questions by kind, requests, tokens and cost."""
    from .plan import plan

    for line in plan(request, inputs, env).lines():
        print(line, file=out)
    return 0
