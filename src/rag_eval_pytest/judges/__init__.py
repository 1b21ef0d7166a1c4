"""Judges: who answers the metrics' questions (LLM APIs, a custom callable, or offline)."""

from __future__ import annotations
