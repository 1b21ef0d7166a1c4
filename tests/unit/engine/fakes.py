"""A stand-in for the process's ``EvalSession``: what the judge registry and the memos read
of it (settings, redactor, limiter, where secrets and notices go, the usage counted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rag_eval_pytest.config.settings import Settings
from rag_eval_pytest.judges.base import Usage
from rag_eval_pytest.redaction import Redactor


class Progress:
    def __init__(self) -> None:
        self.usage = Usage()

    def add_usage(self, usage: Usage) -> None:
        self.usage = self.usage + usage


class Session:
    def __init__(self, cache_dir: Path | None = None, **judge: Any) -> None:
        self.settings = Settings(judge=judge)
        self.judge_cache_dir = cache_dir
        self.search_paths = ()
        self.judge_limiter = None
        self.judge_deadline = None
        self.redactor = Redactor()
        self.progress = Progress()
        self.secrets: list[tuple[list[str], str]] = []
        self.notices: list[str] = []

    def add_secrets(self, secrets: list[str], source: str) -> None:
        self.secrets.append((list(secrets), source))
        self.redactor.add(*secrets, source=source)

    def notice(self, text: str) -> None:
        self.notices.append(text)
