"""The offline judge: local embeddings and deterministic checks, no LLM and no network.

Importing this package is cheap; torch and sentence-transformers load on the first question.
"""

from __future__ import annotations

from .judge import OfflineJudge

__all__ = ["OfflineJudge"]
