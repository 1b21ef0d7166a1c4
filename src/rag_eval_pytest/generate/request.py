"""What ``rag-eval generate`` was asked (:class:`Request`) and what it starts from once every
input is read (:class:`Inputs`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..config.settings import Settings
    from .chunking import Chunk, SourceFormat
    from .documents import Document
    from .output import Existing

OFFLINE = "extractive"
OFFLINE_JUDGE = "none (offline extractive rules, no model)"


@dataclass(frozen=True)
class Request:
    """What the command line asked for."""

    documents: Sequence[Path]
    output: Path
    count: int = 20
    judge: str | None = None
    config: Path | None = None
    seed: int = 0
    types: Sequence[str] | None = None
    conversations: int = 0
    source_format: SourceFormat = "path"
    append: bool = False
    dry_run: bool = False
    max_cost: float | None = None
    force: bool = False


@dataclass
class Inputs:
    """What the generation starts from, every input read and checked."""

    settings: Settings
    kind: str
    """The judge's kind as resolved (``local``: the offline generator)."""
    documents: list[Document]
    chunks: list[Chunk]
    types: list[str]
    existing: Existing | None = None
    secrets: set[str] = field(default_factory=set, repr=False)
    """The config's ``${VAR}`` credentials: never in an output."""
    notes: list[str] = field(default_factory=list)

    @property
    def offline(self) -> bool:
        return self.kind == "local"
