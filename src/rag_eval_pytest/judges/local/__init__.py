"""The local (offline) judge: all-MiniLM-L6-v2 embeddings plus deterministic checks.

Importing this package is cheap: torch and the model load on the first question
that needs the model, once per process.
"""

from __future__ import annotations

from .judge import LocalJudge

__all__ = ["LocalJudge"]
