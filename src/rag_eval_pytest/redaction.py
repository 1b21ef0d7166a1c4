"""Secrets never reach an output: every string written by the plugin passes through here."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

MASK = "[REDACTED]"
# Environment variables whose values are credentials wherever they appear.
SECRET_ENV_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "RAG_AUTH_HEADER", "RAG_JUDGE_API_KEY")
_MIN_SECRET_LENGTH = 4


class Redactor:
    """Replaces known secret values (API keys, header values) by ``[REDACTED]``."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self.add(*secrets)

    @classmethod
    def from_environment(cls, extra: Iterable[str] = ()) -> Redactor:
        values = [os.environ.get(name, "") for name in SECRET_ENV_VARS]
        header = os.environ.get("RAG_AUTH_HEADER", "")
        if ":" in header:
            values.append(header.split(":", 1)[1].strip())
        return cls([*values, *extra])

    def add(self, *secrets: str) -> None:
        for secret in secrets:
            secret = secret.strip()
            if len(secret) >= _MIN_SECRET_LENGTH:
                self._secrets.add(secret)
                # "Bearer abc" also leaks as "abc".
                scheme, _, token = secret.partition(" ")
                if token and len(token) >= _MIN_SECRET_LENGTH and scheme.isalpha():
                    self._secrets.add(token)

    def text(self, value: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in value:
                value = value.replace(secret, MASK)
        return value

    def data(self, value: Any) -> Any:
        """Redact every string inside JSON-like data."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value
